import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { verifyWebhookSignature } from "@renderkit/notifier-webhook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/redis.js";
import { api, type Loopback, loopback, PROJECT, type ServerProcess, serveProcess, until } from "./helpers.js";

/**
 * A webhook receiver that fails, then recovers (issue 14, "Faults"): it answers 500, then its
 * port refuses connections, then it is back. Each render's webhook is delivered exactly once,
 * after the recovery, with the same signed body as every failed attempt.
 */

const RENDERS = 3;
/** What the receiver does now: fail with 500, or accept. (Down is `receiver.down()`.) */
let mode: "fail" | "ok" = "fail";
let receiver: Loopback;
let server: ServerProcess | undefined;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "renderkit-faults-hooks-"));
  receiver = await loopback(() => ({ status: mode === "ok" ? 200 : 500 }));
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Pending {
  attempts: number;
  errors: { attempt: number; reason: string; status?: number }[];
}

describe("a webhook receiver that fails, then recovers", () => {
  it("500s, then connection refused, then up: one delivery per render after the recovery", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dataDir = join(dir, "data");
    server = await serveProcess(join(dir, "config.json"), {
      port,
      host: "127.0.0.1",
      dataDir,
      allowPrivateNetworks: ["127.0.0.1"],
      projects: [PROJECT],
      // Up to 40 attempts half a second apart (±20 % jitter): the phases below need a few each.
      webhooks: { timeoutMs: 5_000, scheduleMs: Array.from({ length: 40 }, () => 500) },
    });
    const ids: string[] = [];
    for (let i = 0; i < RENDERS; i++) {
      const created = await api(url, "/v1/render/async", {
        html: `<p>hook ${i}</p>`,
        width: 320,
        height: 200,
        webhook_url: `${receiver.url}/hook`,
      });
      expect(created.status, created.text).toBe(201);
      ids.push(created.body.renderId as string);
    }
    const bodiesOf = (id: string) => receiver.received.filter((r) => JSON.parse(r.body).renderId === id);
    const pendingOf = (id: string): Pending | undefined => {
      const file = join(dataDir, "webhooks", "pending", `${id}.json`);
      try {
        return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Pending) : undefined;
      } catch {
        return undefined; // being replaced right now
      }
    };

    // Phase 1: two 500s for each render.
    await until("two 500 answers per render", () => ids.every((id) => bodiesOf(id).length >= 2));
    // Phase 2: the port refuses connections; two refused attempts on record for each render.
    await receiver.down();
    const refused = (id: string) => (pendingOf(id)?.errors ?? []).filter((e) => /ECONNREFUSED/.test(e.reason)).length;
    await until("two refused attempts per render", () => ids.every((id) => refused(id) >= 2));
    // Phase 3: back, and accepting.
    mode = "ok";
    await receiver.reopen();
    await until("every render's webhook accepted", () => ids.every((id) => bodiesOf(id).some((r) => r.status === 200)));
    await until("every delivery on record", () =>
      ids.every((id) => existsSync(join(dataDir, "webhooks", "delivered", `${id}.json`))),
    );

    for (const id of ids) {
      const posts = bodiesOf(id);
      // Exactly one accepted POST, the last one; the 500s before it carried the same signed body.
      expect(posts.filter((r) => r.status === 200)).toHaveLength(1);
      expect(posts.at(-1)?.status).toBe(200);
      expect(new Set(posts.map((r) => r.body)).size).toBe(1);
      for (const post of posts) {
        expect(verifyWebhookSignature(post.headers["x-service-signature"] as string, post.body, PROJECT.webhookSecret)).toBe(
          true,
        );
      }
      expect(JSON.parse(posts[0]?.body ?? "{}")).toMatchObject({ event: "render.succeeded", renderId: id });
      // Nothing is left scheduled: no later attempt can deliver it a second time.
      expect(pendingOf(id)).toBeUndefined();
      expect(existsSync(join(dataDir, "webhooks", "failed", `${id}.json`))).toBe(false);
      const delivered = JSON.parse(readFileSync(join(dataDir, "webhooks", "delivered", `${id}.json`), "utf8"));
      // Its attempts: the 500s the receiver saw, the refused ones, and the delivery.
      expect(delivered.attempts).toBeGreaterThanOrEqual(posts.length + 2);
      expect(delivered.status).toBe(200);
      expect((await api(url, `/v1/render/${id}`)).body?.status).toBe("succeeded");
    }
  }, 300_000);
});
