import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeRender, expectColour } from "../helpers/image.js";
import { browserEngine, forEachEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/*
 * A reused page (issue 15) is captured with each render's own capture settings. A transparent
 * capture takes away the page's default white background while it runs (on Playwright, over the
 * engine's own DevTools link): the next render of the project, handed the same page, must be
 * opaque again, and a transparent one after it transparent again.
 */

/** A page that paints no background of its own: a dark bar at the top, nothing below it. */
const HTML = `<body style="margin:0"><div style="height:40px;background:rgb(20,40,60)"></div></body>`;

forEachEngine((engine) => {
  describe("a reused page after a transparent capture", () => {
    let started: TestRenderer | undefined;
    beforeAll(async () => {
      // One page at a time: each render of the project is handed the page of the one before.
      started = await startRenderer([], { concurrency: 1 }, engine);
    });
    afterAll(async () => {
      await started?.close();
    });

    it("is opaque again for a render that does not ask for transparency, and transparent for one that does", async () => {
      const renderer = started?.renderer;
      if (!renderer) throw new Error("the renderer is not started");
      const stats = () => browserEngine(renderer).stats();
      let renders = 0;
      const render = async (transparent: boolean) => {
        // Wait until the page of the render before is reset and idle, so this render is handed it.
        if (renders++ > 0) await expect.poll(() => stats().idlePages ?? 0).toBe(1);
        const result = await renderer.render(
          { html: HTML, format: "png", width: 200, height: 100, ...(transparent ? { transparent } : {}) },
          { job: { projectId: "project-t" } },
        );
        return decodeRender(result);
      };

      const first = await render(true);
      expectColour(first, 100, 10, [20, 40, 60]);
      expect(first.at(100, 80)[3]).toBe(0);
      const before = stats().reusedPages ?? 0;

      const opaque = await render(false);
      expectColour(opaque, 100, 10, [20, 40, 60]);
      expectColour(opaque, 100, 80, [255, 255, 255]);

      const clear = await render(true);
      expectColour(clear, 100, 10, [20, 40, 60]);
      expect(clear.at(100, 80)[3]).toBe(0);

      // Both later renders were handed the first render's page: the reuse really happened.
      expect((stats().reusedPages ?? 0) - before).toBe(2);
    });
  });
});
