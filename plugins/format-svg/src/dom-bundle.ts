import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

/** Name of the global the bundle defines (inside the evaluated function, so it stays local). */
export const BUNDLE_GLOBAL = "__renderkitDomToSvg";

let bundle: Promise<string> | undefined;

/**
 * dom-to-svg as one browser script (an IIFE defining `__renderkitDomToSvg` with `documentToSVG`,
 * `elementToSVG` and `inlineResources`). dom-to-svg ships ES modules only, with npm dependencies
 * (postcss, gradient-parser), so it is bundled with esbuild's JS API the first time a `dom` SVG is
 * asked for, in memory, once per process (about 100–200 ms; 100 KB). Bundling at run time rather
 * than in a build step means every way of building the repository (`tsc -b`, turbo, `npm run
 * build`) and every install gets the same script, and nothing generated can go stale.
 */
export function domToSvgBundle(): Promise<string> {
  bundle ??= build().catch((error: unknown) => {
    bundle = undefined;
    throw error;
  });
  return bundle;
}

async function build(): Promise<string> {
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    stdin: {
      contents: 'export { documentToSVG, elementToSVG, inlineResources } from "dom-to-svg";',
      // dom-to-svg is resolved from this package, wherever it is installed.
      resolveDir: dirname(fileURLToPath(import.meta.url)),
      loader: "js",
      sourcefile: "renderkit-dom-to-svg.js",
    },
    bundle: true,
    write: false,
    format: "iife",
    globalName: BUNDLE_GLOBAL,
    platform: "browser",
    target: "chrome120",
    minify: true,
    logLevel: "silent",
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error("esbuild produced no dom-to-svg bundle");
  return file.text;
}
