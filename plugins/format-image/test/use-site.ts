import type { Renderer, RenderResult } from "@renderkit/core";
import { afterAll, beforeAll } from "vitest";
import { type Decoded, decodeRender } from "../../../test/helpers/image.js";
import { type EngineName, startRenderer, type TestRenderer } from "../../../test/helpers/setup.js";
import { type Site, startSite } from "./site.js";

/** One renderer on `engine` allowed to reach the suite's loopback site, for the enclosing block. */
export interface SiteRenderer {
  readonly renderer: Renderer;
  readonly site: Site;
  render(path: string, options?: Record<string, unknown>): Promise<RenderResult>;
  /** Renders and decodes the image. */
  image(path: string, options?: Record<string, unknown>): Promise<Decoded & { result: RenderResult }>;
}

export function useSite(engine: EngineName): SiteRenderer {
  let site: Site | undefined;
  let started: TestRenderer | undefined;
  beforeAll(async () => {
    site = await startSite();
    started = await startRenderer([site.host], {}, engine);
  });
  afterAll(async () => {
    await started?.close();
    await site?.close();
  });
  const ctx: SiteRenderer = {
    get renderer() {
      if (!started) throw new Error("the renderer is not started");
      return started.renderer;
    },
    get site() {
      if (!site) throw new Error("the site is not started");
      return site;
    },
    render: (path, options = {}) => ctx.renderer.render({ url: ctx.site.url(path), ...options }),
    async image(path, options = {}) {
      const result = await ctx.render(path, options);
      return Object.assign(await decodeRender(result), { result });
    },
  };
  return ctx;
}
