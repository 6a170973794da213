import { mkdtemp, readdir, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { definePlugin, type FinalRenderEvent, NOTIFIER, QUEUE, type RenderEvent, type RenderResult } from "@renderkit/core";
import { FsQueue } from "@renderkit/core/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserEngine, startRenderer } from "../helpers/setup.js";

/** A notifier that records what it is told. */
function recordingNotifier(seen: RenderEvent[]) {
  return definePlugin(() => ({
    name: "test/recording-notifier",
    register({ container }) {
      container.register(NOTIFIER, {
        useValue: {
          name: "recording",
          notify: async (event: RenderEvent) => {
            seen.push(event);
          },
        },
      });
    },
  }))();
}

const durableQueue = (dir: string) =>
  definePlugin(() => ({
    name: "test/fs-queue",
    register({ container }) {
      container.register(QUEUE, { useValue: new FsQueue(dir) });
    },
  }))();

let site: Server;
let base: string;
beforeAll(async () => {
  // Answers after 8 s: a render of it is still running when a short drain ends.
  site = createServer((_req, res) => {
    setTimeout(() => res.writeHead(200, { "content-type": "text/html" }).end("<h1>late</h1>"), 8_000).unref();
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => {
  site.closeAllConnections();
  return new Promise<void>((r) => site.close(() => r()));
});

describe("redelivered renders", () => {
  it("a render whose end is on record is not run again; its notifiers are told that end once more", async () => {
    const seen: RenderEvent[] = [];
    const recorded: FinalRenderEvent = {
      type: "render.succeeded",
      renderId: "",
      result: {
        renderId: "",
        renderUrl: "http://example.test/renders/x.png",
        size: 42,
        renderTime: 7,
        queueTime: 1,
        bandwidth: 3,
        format: "png",
        contentType: "image/png",
        key: "x.png",
      } satisfies RenderResult,
      startTime: 1_000,
      endTime: 2_000,
    };
    const withNotifier = await startRenderer(
      [],
      { finalEvent: async (renderId) => ({ ...recorded, renderId, result: { ...recorded.result, renderId } }) },
      "playwright",
      [recordingNotifier(seen)],
    );
    try {
      const result = await withNotifier.renderer.render(
        { html: "<p>never rendered</p>" },
        { job: { webhookUrl: "https://hook.test/" } },
      );
      expect(result).toMatchObject({ size: 42, renderUrl: "http://example.test/renders/x.png" });
      expect(browserEngine(withNotifier.renderer).stats().launches).toBe(0);
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        type: "render.succeeded",
        renderId: result.renderId,
        job: { webhookUrl: "https://hook.test/" },
      });
    } finally {
      await withNotifier.close();
    }
  });

  it("an end that cannot be recorded is not lost: the render runs again and its end is recorded and notified once", async () => {
    const seen: RenderEvent[] = [];
    const ends = new Map<string, FinalRenderEvent>();
    let refusals = 0;
    // A record store that is unreachable the first time a render ends (Redis restarting).
    const record = async (event: RenderEvent) => {
      if (event.type !== "render.succeeded" && event.type !== "render.failed") return;
      if (refusals++ === 0) throw new Error("the shared state is unreachable");
      if (!ends.has(event.renderId)) ends.set(event.renderId, event);
    };
    const flaky = await startRenderer([], { record, finalEvent: async (id) => ends.get(id) }, "playwright", [
      recordingNotifier(seen),
    ]);
    const events: RenderEvent[] = [];
    flaky.renderer.on((event) => {
      events.push(event);
    });
    try {
      const result = await flaky.renderer.render(
        { html: "<body style='margin:0;background:#00f'></body>", width: 200, height: 100 },
        { job: { webhookUrl: "https://hook.test/" } },
      );
      expect(refusals).toBe(2);
      expect(ends.get(result.renderId)).toMatchObject({ type: "render.succeeded", renderId: result.renderId });
      // Rendered twice (the first end was not on record: listeners heard it, then the second),
      // recorded and notified once.
      expect(events.filter((e) => e.type === "render.started").map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2]);
      expect(events.filter((e) => e.type === "render.succeeded")).toHaveLength(2);
      expect(seen.map((e) => [e.type, e.renderId])).toEqual([["render.succeeded", result.renderId]]);
      const png = await flaky.renderer.read(result.key);
      expect(png?.contentType).toBe("image/png");
      png?.body.destroy();
    } finally {
      await flaky.close();
    }
  }, 60_000);

  it("with a durable queue, a render cut short by close() is kept for the next start, not reported failed", async () => {
    const seen: RenderEvent[] = [];
    const queueDir = await mkdtemp(join(tmpdir(), "renderkit-e2e-queue-"));
    const durable = await startRenderer([new URL(base).host], {}, "playwright", [
      durableQueue(queueDir),
      recordingNotifier(seen),
    ]);
    const events: RenderEvent[] = [];
    durable.renderer.on((event) => {
      events.push(event);
    });
    const { renderId } = await durable.renderer.submit({ url: `${base}/slow` });
    await expect.poll(() => events.some((e) => e.type === "render.started"), { timeout: 20_000 }).toBe(true);
    await durable.renderer.close(500);
    expect(events.map((e) => e.type)).not.toContain("render.failed");
    expect(seen).toEqual([]);
    const active = await readdir(join(queueDir, "active"));
    expect(active.some((name) => name.endsWith(`-${renderId}.json`))).toBe(true);
    await durable.close();
    await rm(queueDir, { recursive: true, force: true });
  }, 60_000);
});
