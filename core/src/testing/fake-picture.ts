import type { Box, ScreenshotSettings } from "../contracts/capture-settings.js";
import { encodeJpeg, encodePng, type Raster } from "./image-encode.js";

/** How a fake page looks: the same picture whatever its HTML says (the fake lays nothing out). */
export interface FakeLook {
  /** The page's background, `[r, g, b]`, everywhere but the text band. */
  background: readonly [number, number, number];
  /** Whether the page has text: a black band stands for it at the top left, so a capture is not one flat colour. */
  text: boolean;
}

/** The text band, in CSS pixels of the document: 8 px from the top left, 32 px tall, at most 400 px wide. */
export const TEXT_BAND = { x: 8, y: 8, height: 32, maxWidth: 400 } as const;

function paint(area: Box, dpr: number, look: FakeLook, documentWidth: number): Raster {
  const width = Math.max(1, Math.round(area.width * dpr));
  const height = Math.max(1, Math.round(area.height * dpr));
  const stride = width * 3;
  const plain = new Uint8Array(stride);
  for (let x = 0; x < width; x++) plain.set(look.background, x * 3);
  const banded = plain.slice();
  const band = { ...TEXT_BAND, width: Math.min(TEXT_BAND.maxWidth, documentWidth - 2 * TEXT_BAND.x) };
  for (let x = 0; x < width; x++) {
    const cssX = area.x + (x + 0.5) / dpr;
    if (cssX >= band.x && cssX < band.x + band.width) banded.set([0, 0, 0], x * 3);
  }
  const rgb = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const cssY = area.y + (y + 0.5) / dpr;
    const inBand = look.text && cssY >= band.y && cssY < band.y + band.height;
    rgb.set(inBand ? banded : plain, y * stride);
  }
  return { width, height, rgb };
}

/**
 * A screenshot of a fake page as `screenshot(settings)` hands it back: a real PNG or JPEG of the
 * clip, the whole document (`fullPage`) or the viewport, `deviceScaleFactor` device pixels per CSS
 * pixel. `omitBackground` changes nothing: the fake page paints its own background.
 */
export function fakeScreenshot(
  settings: ScreenshotSettings,
  viewport: { width: number; height: number; deviceScaleFactor: number },
  document: { width: number; height: number },
  look: FakeLook,
): Buffer {
  const area: Box = settings.clip ?? {
    x: 0,
    y: 0,
    width: viewport.width,
    height: settings.fullPage ? document.height : viewport.height,
  };
  const raster = paint(area, viewport.deviceScaleFactor, look, document.width);
  return settings.type === "jpeg" ? encodeJpeg(raster) : encodePng(raster);
}
