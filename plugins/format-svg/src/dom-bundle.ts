import { readFile } from "node:fs/promises";

/** Name of the global the bundle defines (inside the evaluated function, so it stays local). */
export const BUNDLE_GLOBAL = "__renderkitDomToSvg";

/**
 * The committed bundle: `vendor/` sits next to `src/` and `dist/`, so this path works from either
 * (installs and tests run `dist`), and `files` in package.json ships it.
 */
export const BUNDLE_URL = new URL("../vendor/dom-to-svg.iife.min.js", import.meta.url);

let bundle: Promise<string> | undefined;

/**
 * dom-to-svg as one browser script (an IIFE defining `__renderkitDomToSvg` with `documentToSVG`,
 * `elementToSVG` and `inlineResources`). dom-to-svg ships ES modules only, with npm dependencies
 * (postcss, gradient-parser), so `scripts/bundle-dom-to-svg.mjs` bundles it with esbuild into the
 * committed `vendor/dom-to-svg.iife.min.js` (about 100 KB); a test fails when that file is stale. At run
 * time the file is read once per process: neither esbuild nor dom-to-svg is a runtime dependency.
 */
export function domToSvgBundle(): Promise<string> {
  bundle ??= readFile(BUNDLE_URL, "utf8").catch((error: unknown) => {
    bundle = undefined;
    throw new Error(`The dom-to-svg bundle ${BUNDLE_URL.pathname} cannot be read`, { cause: error });
  });
  return bundle;
}
