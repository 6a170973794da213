import { bool, type FormatOptions, type FormatSpec, oneOf } from "@renderkit/core";

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
    // Declared by the image formats too, with the same spec: the core merges the formats.
    transparent: bool(
      "Transparent background where the page sets none, in the formats with transparency (png, webp, avif, svg).",
      {
        default: false,
        only: { formats: ["svg"], why: "needs a format with transparency ({formats}); jpg, pdf and the other formats have none" },
      },
    ),
  };
}

/** The options the svg format reads: the core's and its own. */
export type SvgOptions = FormatOptions<ReturnType<typeof svgOptions>>;
