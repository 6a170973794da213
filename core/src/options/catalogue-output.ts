import { RenderError } from "../errors.js";
import { bool, num } from "./spec.js";

/** Bounds of `ttl` in seconds (docs/compatibility.md#cache-and-storage): one minute to 30 days. */
export const TTL_BOUNDS = { min: 60, max: 2_592_000 } as const;

/** Options of every output: `disable_ligatures`, `ttl`. Merged into `CORE_OPTIONS`; names and defaults follow the option catalogue clients send (docs/compatibility.md). */
export const OUTPUT_OPTIONS = {
  disableLigatures: bool(
    "Turn off font ligatures (`font-variant-ligatures: none !important` on every element of the main frame), so `fi`, `fl`, `ffi` are drawn and extracted from PDFs as separate letters instead of one ligature glyph (U+FB01...). Every format that draws the page (images, pdf, svg, video); `html` and `mhtml` carry the style; refused with `md`.",
    { default: false },
  ),
  ttl: num(
    "Seconds this render's file and its side renders (`save_html`, `save_metadata`...) are kept and served, 60–2,592,000. Default: the server's render lifetime (`renderTtlDays`, 30 days unless its operator changed it). A value above the server's lifetime is refused (400 `InvalidTtl`), never cut short.",
    { min: TTL_BOUNDS.min, max: TTL_BOUNDS.max, integer: true },
  ),
} as const;

/** Seconds a render's files are kept: `ttl`, else the server's render lifetime (`RendererSettings.renderTtlSeconds`). */
export function renderTtlSeconds(options: { ttl?: number }, settings: { renderTtlSeconds: number }): number {
  return options.ttl ?? settings.renderTtlSeconds;
}

/** Refuses a `ttl` longer than the server keeps renders (400 `InvalidTtl`): files are never cut short silently. */
export function checkTtl(options: { ttl?: number }, settings: { renderTtlSeconds: number }): void {
  if (options.ttl === undefined || options.ttl <= settings.renderTtlSeconds) return;
  throw new RenderError(
    "InvalidTtl",
    `Option ttl (${options.ttl} s) is longer than this server keeps renders (${settings.renderTtlSeconds} s)`,
    { details: { option: "ttl" } },
  );
}
