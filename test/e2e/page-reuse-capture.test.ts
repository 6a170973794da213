import type { Renderer } from "@renderkit/core";
import { videoFormats } from "@renderkit/format-video";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeRender, expectColour } from "../helpers/image.js";
import { browserEngine, type EngineName, forEachEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/*
 * A reused page (issue 15) is captured with each render's own capture settings. A transparent
 * capture takes away the page's default white background while it runs (on Playwright, over the
 * engine's own DevTools link): the next render of the project, handed the same page, must be
 * opaque again, and a transparent one after it transparent again.
 */

/** A page that paints no background of its own: a dark bar at the top, nothing below it. */
const HTML = `<body style="margin:0"><div style="height:40px;background:rgb(20,40,60)"></div></body>`;

/**
 * A renderer on `engine` with the image and video formats for the calling `describe`, rendering one
 * page at a time: each render of a project is handed the page of the one before, once it is reset.
 */
function useRenderer(engine: EngineName): () => Renderer {
  let started: TestRenderer | undefined;
  beforeAll(async () => {
    started = await startRenderer([], { concurrency: 1 }, engine, [videoFormats()]);
  });
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (!started) throw new Error("the renderer is not started (use inside tests)");
    return started.renderer;
  };
}

forEachEngine((engine) => {
  describe("a reused page after a transparent capture", () => {
    const rendererOf = useRenderer(engine);

    it("is opaque again for a render that does not ask for transparency, and transparent for one that does", async () => {
      const renderer = rendererOf();
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

  describe("a reused page after a video", () => {
    const rendererOf = useRenderer(engine);

    it("is reset after the screencast, which had a DevTools session of its own, and records again", async () => {
      const renderer = rendererOf();
      const stats = () => browserEngine(renderer).stats();
      const project = { job: { projectId: "project-v" } };
      const ask = { html: HTML, format: "mp4", width: 200, height: 100, video_duration: 1 };
      expect((await renderer.render(ask, project)).frames).toBe(30);
      const before = stats().reusedPages ?? 0;
      await expect.poll(() => stats().idlePages ?? 0).toBe(1);
      const again = await renderer.render(ask, project);
      expect(again.frames).toBe(30);
      expect(again.capturedFrames).toBeGreaterThanOrEqual(1);
      // Handed the first video's page: its reset, and a second screencast, worked after the first.
      expect((stats().reusedPages ?? 0) - before).toBe(1);
    });
  });
});
