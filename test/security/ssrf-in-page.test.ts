import { forEachEngine } from "../helpers/setup.js";
import { inPageCases } from "./in-page-cases.js";
import { useSsrf } from "./ssrf-harness.js";

/**
 * SSRF, part 2a: what a page's markup and styles load. Images (src, srcset, picture, input, SVG),
 * scripts and module imports, stylesheets, CSS url(), image-set() and @import, fonts, frames,
 * object and embed, media and posters, and a <base> that points every relative address at the
 * canary: each reaches the allowed site in the control run, and never the canary.
 */
forEachEngine((engine) => {
  const h = useSsrf(engine);
  inPageCases(h, [
    "img",
    "srcset",
    "picture",
    "input-image",
    "svg-image",
    "script",
    "module-import",
    "stylesheet",
    "css-url",
    "css-image-set",
    "css-import",
    "font",
    "iframe",
    "iframe-srcdoc",
    "object",
    "embed",
    "video",
    "video-poster",
    "audio",
    "base-href",
  ]);
});
