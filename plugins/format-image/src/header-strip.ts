/** Height of the `show_timestamp` / `show_url` strip in CSS pixels (times the device scale factor). */
export const STRIP_CSS_HEIGHT = 32;
/** The strip's band and text colours: a dark band, so it never looks like the page's own pixels. */
export const STRIP_BAND = { r: 34, g: 34, b: 34 } as const;
const STRIP_TEXT = "#f5f5f5";

/** What the strip says. */
export interface StripText {
  /** Capture time, shown as `YYYY-MM-DD HH:MM:SS UTC`. */
  time?: Date;
  /** The page's address. */
  url?: string;
}

/** `2025-11-25 16:54:03 UTC`. */
export function stripTime(time: Date): string {
  return `${time.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Cuts `text` with an ellipsis to about `chars` characters. */
function fit(text: string, chars: number): string {
  if (chars < 4) return "";
  return text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;
}

/**
 * The header strip as an SVG of exactly `width` × `height` pixels: a solid band, the time on the
 * left, the address after it (cut with an ellipsis to the width). sharp rasterises it (librsvg,
 * the system's sans-serif font) and composites it above the screenshot, so the page is untouched.
 */
export function stripSvg(width: number, height: number, text: StripText): Buffer {
  const size = Math.max(6, Math.round(height * 0.45));
  // Average advance of a sans-serif glyph is about 0.55 em; keep a margin either side.
  const chars = Math.floor((width - size * 2) / (size * 0.56));
  const parts = [text.time ? stripTime(text.time) : undefined, text.url].filter((p): p is string => p !== undefined);
  const line = escapeXml(fit(parts.join("  ·  "), chars));
  const band = `rgb(${STRIP_BAND.r},${STRIP_BAND.g},${STRIP_BAND.b})`;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">` +
      `<rect width="${width}" height="${height}" fill="${band}"/>` +
      `<text x="${size}" y="${Math.round(height / 2)}" dominant-baseline="central" font-family="Liberation Sans, DejaVu Sans, sans-serif" font-size="${size}" fill="${STRIP_TEXT}">${line}</text>` +
      "</svg>",
  );
}
