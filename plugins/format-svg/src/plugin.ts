import { definePlugin, FORMATTER } from "@renderkit/core";
import { SVG_METHODS, type SvgMethod } from "./format.js";
import { SvgFormatter } from "./svg-formatter.js";

/** Options of `svgFormat()`. */
export interface SvgFormatOptions {
  /** Method used when a request sets no `svg_method`: `pdf` (default) or `dom`. */
  defaultMethod?: SvgMethod;
  /** pdftocairo executable. Default: `PDFTOCAIRO_PATH`, else `pdftocairo` on PATH (Debian `poppler-utils`). */
  pdftocairoPath?: string;
  /** Longest one pdftocairo run may take, in ms, 1000 to 600000. Default 60000. */
  pdftocairoTimeoutMs?: number;
}

/**
 * The `svg` format (image/svg+xml). Options are checked when the factory is called; nothing is
 * started until a render asks for an SVG.
 */
export const svgFormat = definePlugin((options: SvgFormatOptions = {}) => {
  const defaultMethod = options.defaultMethod ?? "pdf";
  if (!SVG_METHODS.includes(defaultMethod)) {
    throw new RangeError(`svgFormat: defaultMethod must be one of ${SVG_METHODS.join(", ")}, got ${String(defaultMethod)}`);
  }
  const timeout = options.pdftocairoTimeoutMs ?? 60_000;
  if (!Number.isInteger(timeout) || timeout < 1_000 || timeout > 600_000) {
    throw new RangeError(`svgFormat: pdftocairoTimeoutMs must be an integer from 1000 to 600000, got ${timeout}`);
  }
  const pdftocairo = options.pdftocairoPath ?? (process.env.PDFTOCAIRO_PATH || "pdftocairo");
  return {
    name: "@renderkit/format-svg",
    register({ provide }) {
      provide(FORMATTER, new SvgFormatter({ defaultMethod, pdftocairo, pdftocairoTimeoutMs: timeout }));
    },
  };
});
