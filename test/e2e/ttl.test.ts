import { access, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { RenderResult } from "@renderkit/core";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FsStorage } from "../../core/dist/defaults/fs-storage.js";
import { api, PROJECT_A, startTestServer, type TestServer } from "../../server/test/helpers.js";
import { expectRenderError } from "../helpers/errors.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/** The server's render lifetime in these tests: one hour. */
const SERVER_TTL = 3_600;

const PAGE = `<!doctype html><title>ttl</title><body style="margin:0;background:rgb(0,128,255)"><p>kept for a while</p></body>`;

/** The files of a render: the render and its side files, as local paths. */
function files(result: RenderResult): string[] {
  const addresses = [result.renderUrl, result.htmlUrl, result.metadataUrl].filter((u): u is string => typeof u === "string");
  return addresses.map((address) => fileURLToPath(address));
}

/** `expiresAt` (epoch ms) the storage recorded beside a file (its `.meta.json`). */
async function storedExpiry(path: string): Promise<number> {
  const meta = JSON.parse(await readFile(`${path}.meta.json`, "utf8")) as { expiresAt?: number };
  if (meta.expiresAt === undefined) throw new Error(`${path} has no expiry`);
  return meta.expiresAt;
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

forEachEngine((engine) => {
  let fixture: FixtureServer;
  let started: TestRenderer;
  const once = onOneEngine(engine);

  beforeAll(async () => {
    fixture = await startFixtureServer({ "/page": PAGE });
    started = await startRenderer([`127.0.0.1:${fixture.port}`], { renderTtlSeconds: SERVER_TTL }, engine);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  const render = (options: Record<string, unknown> = {}): Promise<RenderResult> =>
    started.renderer.render({ url: `${fixture.url}/page`, ...options });

  describe("ttl", () => {
    it("keeps the render and its side files for ttl seconds; the sweep removes them once past", async () => {
      const before = Date.now();
      const result = await render({ ttl: 60, save_html: true, save_metadata: true });
      const after = Date.now();
      const paths = files(result);
      expect(paths).toHaveLength(3);
      for (const path of paths) {
        const expiresAt = await storedExpiry(path);
        expect(expiresAt).toBeGreaterThanOrEqual(before + 60_000);
        expect(expiresAt).toBeLessThanOrEqual(after + 60_000);
      }
      expectColour(await decodeRender(result), 10, 100, [0, 128, 255], { tolerance: 2 });
      expect(await started.renderer.read(result.key)).toBeDefined();

      const storage = new FsStorage(dirname(fileURLToPath(result.renderUrl)));
      // Before the expiry nothing of this render goes; a minute later all of it does.
      await storage.sweep(before + 59_000);
      for (const path of paths) expect(await exists(path)).toBe(true);
      expect(await storage.sweep(after + 61_000)).toBeGreaterThanOrEqual(3);
      for (const path of paths) expect(await exists(path)).toBe(false);
      expect(await started.renderer.read(result.key)).toBeUndefined();
    });

    it("without ttl a render lives as long as the server keeps renders", async () => {
      const before = Date.now();
      const result = await render();
      const expiresAt = await storedExpiry(fileURLToPath(result.renderUrl));
      expect(expiresAt).toBeGreaterThanOrEqual(before + SERVER_TTL * 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + SERVER_TTL * 1000);
    });

    once("ttl equal to the server's lifetime is kept that long", async () => {
      const before = Date.now();
      const result = await render({ ttl: String(SERVER_TTL) });
      expect(await storedExpiry(fileURLToPath(result.renderUrl))).toBeGreaterThanOrEqual(before + SERVER_TTL * 1000);
    });

    once("a ttl longer than the server keeps renders is refused with InvalidTtl, before the page loads", async () => {
      const loads = fixture.requestsTo("/page").length;
      const error = await expectRenderError(render({ ttl: SERVER_TTL + 1 }), "InvalidTtl");
      expect(error.message).toBe(`Option ttl (${SERVER_TTL + 1} s) is longer than this server keeps renders (${SERVER_TTL} s)`);
      expect(error.details).toEqual({ option: "ttl" });
      expect(fixture.requestsTo("/page")).toHaveLength(loads);
    });

    once("a ttl outside 60..2,592,000 seconds is refused with InvalidOptions", async () => {
      for (const ttl of [59, 2_592_001, 90.5]) {
        const error = await expectRenderError(render({ ttl }), "InvalidOptions");
        expect(error.message).toContain("ttl");
      }
    });
  });
});

describe("ttl through the HTTP API", () => {
  let fixture: FixtureServer;
  let server: TestServer;
  beforeAll(async () => {
    fixture = await startFixtureServer({ "/page": PAGE });
    server = await startTestServer({ renderTtlDays: 1 });
  });
  afterAll(async () => {
    await server?.close();
    await fixture?.close();
  });
  const sync = (options: Record<string, unknown>) =>
    api(server.url, "/v1/render/sync", { key: PROJECT_A.secretKey, json: { url: `${fixture.url}/page`, ...options } });

  it("the render's address expires ttl seconds after the render; a ttl beyond the server's day is 400 InvalidTtl", async () => {
    const before = Date.now();
    const done = await sync({ format: "html", ttl: 120 });
    const after = Date.now();
    expect(done.status).toBe(200);
    const file = await fetch(done.body.renderUrl);
    expect(file.status).toBe(200);
    expect(await file.text()).toContain("kept for a while");
    const expires = Date.parse(file.headers.get("expires") ?? "");
    expect(expires).toBeGreaterThanOrEqual(Math.floor((before + 120_000) / 1000) * 1000);
    expect(expires).toBeLessThanOrEqual(after + 120_000);

    const refused = await sync({ format: "html", ttl: 86_401 });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toEqual({
      code: "InvalidTtl",
      message: "Option ttl (86401 s) is longer than this server keeps renders (86400 s)",
    });
  });
});
