import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { RenderEvent } from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRenderError } from "../helpers/errors.js";
import { browserEngine, forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

let site: Server;
let base: string;
let firstRequest: (() => void) | undefined;

beforeAll(async () => {
  site = createServer((_req, res) => {
    firstRequest?.();
    setTimeout(() => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<body style='background:rgb(0,128,0)'><h1>slow</h1></body>");
    }, 1500).unref();
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

forEachEngine((engineName) => {
  const once = onOneEngine(engineName);
  let rk: TestRenderer;
  beforeAll(async () => {
    rk = await startRenderer([new URL(base).host], {}, engineName);
  });
  afterAll(() => rk?.close());

  describe("retries", () => {
    it("a render whose browser crashes mid-attempt goes to retrying and then succeeds on a new browser", async () => {
      const events: RenderEvent[] = [];
      const off = rk.renderer.on((event) => events.push(event));
      const engine = browserEngine(rk.renderer);
      const loading = new Promise<void>((resolve) => {
        firstRequest = () => {
          firstRequest = undefined;
          resolve();
        };
      });
      const result = rk.renderer.render({ url: `${base}/crash` });
      await loading;
      const [pid] = engine.browserPids();
      process.kill(-(pid as number), "SIGKILL");
      const done = await result;
      off();
      const mine = events.filter((e) => e.renderId === done.renderId).map((e) => e.type);
      expect(mine).toEqual(["render.created", "render.started", "render.retrying", "render.started", "render.succeeded"]);
      expect(engine.stats().launches).toBe(2);
      expect(done.size).toBeGreaterThan(0);
    });

    once(
      "an attempt stalled inside the page fails at the stall guard and its page is closed",
      async () => {
        // A page that loads, then never yields again: reading its DOM never returns on its own.
        const stalled = await startRenderer([], { attemptTimeoutMs: 1_000, maxAttempts: 1 }, engineName);
        try {
          const html = "<p>busy</p><script>setTimeout(() => { for (;;) {} }, 100)</script>";
          // The guard: max(attemptTimeoutMs, timeout + delay + 2 × wait_timeout + 15 s) = 22.3 s here.
          const error = await expectRenderError(
            stalled.renderer.render({ html, format: "html", delay: 300, timeout: 5_000, wait_timeout: 1_000 }),
            "RenderTimeoutError",
          );
          // The stall guard ended it (it says so); nothing else would: the page never yields.
          expect(error.message).toMatch(/stalled/);
          await expect.poll(() => stalled.renderer.engine().stats().pages, { timeout: 10_000 }).toBe(0);
        } finally {
          await stalled.close();
        }
      },
      120_000,
    );
  });
});
