import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { RenderResult } from "@renderkit/core";
import { newRenderId } from "@renderkit/core/internal";
import { describe, expect, it } from "vitest";
import { forEachEngine, useE2E } from "../helpers/setup.js";

forEachEngine((engine) => {
  const e2e = useE2E({ engine });
  const SMALL = { width: 400, height: 300 };

  function expectCounters(result: RenderResult): void {
    for (const field of ["renderTime", "queueTime", "bandwidth", "size"] as const) {
      expect(Number.isInteger(result[field]), `${field} = ${result[field]}`).toBe(true);
      expect(result[field], field).toBeGreaterThanOrEqual(0);
    }
  }

  describe("render result fields", () => {
    it("a URL render: id, stored file, size, timings and bandwidth", async () => {
      const result = await e2e.render("/blocks", SMALL);
      expect(result.renderId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}_s$/);
      expect(result.renderUrl).toMatch(/^file:\/\//);
      const file = statSync(fileURLToPath(result.renderUrl));
      expect(file.isFile()).toBe(true);
      expect(file.size).toBe(result.size);
      expect(result.size).toBeGreaterThan(0);
      expectCounters(result);
      expect(result.bandwidth).toBeGreaterThan(0);
      expect(result).toMatchObject({ format: "png", contentType: "image/png", width: 400, height: 300 });
    });

    it("every render gets its own id and file", async () => {
      const [a, b] = await Promise.all([e2e.render("/blocks", SMALL), e2e.render("/blocks", SMALL)]);
      expect(a?.renderId).not.toBe(b?.renderId);
      expect(a?.renderUrl).not.toBe(b?.renderUrl);
    });

    it("an html render has the same fields", async () => {
      const result = await e2e.renderer.render({ html: "<h1>hello</h1>", format: "jpg", ...SMALL });
      expect(result.renderId).toMatch(/_s$/);
      expect(result).toMatchObject({ format: "jpg", contentType: "image/jpeg" });
      expect(statSync(fileURLToPath(result.renderUrl)).size).toBe(result.size);
      expectCounters(result);
    });

    it("renderTime covers the requested delay", async () => {
      const result = await e2e.render("/blocks", { ...SMALL, delay: 600 });
      expect(result.renderTime).toBeGreaterThanOrEqual(600);
    });
  });

  describe("events", () => {
    // Regression: a queue that starts the job in a microtask reported `started` before `created`.
    it("a render reports created, started, succeeded in that order", async () => {
      const renderId = newRenderId("sync");
      const seen: string[] = [];
      const off = e2e.renderer.on((event) => {
        if (event.renderId === renderId) seen.push(event.type);
      });
      try {
        await e2e.renderer.render({ url: e2e.fixture.url("/blocks"), ...SMALL }, { renderId });
      } finally {
        off();
      }
      expect(seen).toEqual(["render.created", "render.started", "render.succeeded"]);
    });
  });

  describe("unknown options", () => {
    it("parse() lists unknown and not-yet-implemented options as ignored, keeping their spelling", () => {
      const { options, ignored } = e2e.renderer.parse({
        url: e2e.fixture.url("/blocks"),
        full_page: "true",
        frobnicate: 1,
        someCamelThing: "x",
        redirect_after: 5,
      });
      expect(ignored.sort()).toEqual(["frobnicate", "redirect_after", "someCamelThing"]);
      expect(options.fullPage).toBe(true);
    });

    it("a render with unknown options still succeeds", async () => {
      const result = await e2e.render("/blocks", { ...SMALL, frobnicate: 1 });
      expect(result.size).toBeGreaterThan(0);
    });

    it("submit() reports the ignored options too", async () => {
      const done = new Promise<string>((resolve) => {
        const off = e2e.renderer.on((event) => {
          if (event.type === "render.succeeded" || event.type === "render.failed") {
            off();
            resolve(event.type);
          }
        });
      });
      const { renderId, ignored } = await e2e.renderer.submit({ url: e2e.fixture.url("/blocks"), ...SMALL, frobnicate: 1 });
      expect(renderId).not.toMatch(/_s$/);
      expect(ignored).toEqual(["frobnicate"]);
      expect(await done).toBe("render.succeeded");
    });
  });
});
