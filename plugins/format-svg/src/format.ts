import type { FormatSpec } from "@renderkit/core";
import { oneOf } from "@renderkit/core";

/** How an SVG is made: `pdf` (Chromium's PDF through pdftocairo) or `dom` (dom-to-svg in the page). */
export type SvgMethod = "pdf" | "dom";

export const SVG_METHODS: readonly SvgMethod[] = ["pdf", "dom"];

/**
 * The `svg` format. It needs the engine's `pdf` capability for the default method; `dom` needs
 * only `evaluate`, which every page session has.
 */
export const SVG_FORMAT: FormatSpec = { format: "svg", contentType: "image/svg+xml", extension: "svg", requires: ["pdf"] };

/** The request options this formatter adds; `defaultMethod` comes from `svgFormat({ defaultMethod })`. */
export function svgOptions(defaultMethod: SvgMethod) {
  return {
    svgMethod: oneOf(
      "How the svg format is made: `pdf` (Chromium's PDF converted by pdftocairo: faithful, text as glyph outlines) or `dom` (dom-to-svg in the page: real `<text>`, smaller, loses some CSS effects).",
      SVG_METHODS,
      { default: defaultMethod },
    ),
  };
}
