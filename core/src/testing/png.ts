import { inflateSync } from "node:zlib";

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** True when `bytes` start with the PNG signature. */
export function isPng(bytes: Uint8Array): boolean {
  return bytes.length >= 24 && SIGNATURE.every((b, i) => bytes[i] === b);
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Width and height of a PNG, read from its IHDR chunk (no image library needed). */
export function pngSize(bytes: Uint8Array): { width: number; height: number } {
  if (!isPng(bytes)) throw new Error("not a PNG: bad signature");
  const data = view(bytes);
  const type = String.fromCharCode(...bytes.subarray(12, 16));
  if (type !== "IHDR") throw new Error("not a PNG: the first chunk is not IHDR");
  return { width: data.getUint32(16), height: data.getUint32(20) };
}

/** A decoded PNG: `pixel(x, y)` gives `[r, g, b, a]`. */
export interface DecodedPng {
  width: number;
  height: number;
  pixel(x: number, y: number): [number, number, number, number];
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 4: 2, 6: 4 };

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/**
 * Decodes the 8-bit, non-interlaced grey/RGB/RGBA PNGs browsers write, enough for colour
 * checks in tests without an image library.
 */
export function decodePng(bytes: Uint8Array): DecodedPng {
  const { width, height } = pngSize(bytes);
  const data = view(bytes);
  const depth = bytes[24];
  const colorType = bytes[25] ?? -1;
  const interlace = bytes[28];
  const channels = CHANNELS[colorType];
  if (depth !== 8 || !channels || interlace !== 0) {
    throw new Error(`unsupported PNG (depth ${depth}, colour type ${colorType}, interlace ${interlace})`);
  }
  const idat: Uint8Array[] = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = data.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (type === "IDAT") idat.push(bytes.subarray(at + 8, at + 8 + length));
    if (type === "IEND") break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const out = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const row = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? (out[row + x - channels] ?? 0) : 0;
      const b = y > 0 ? (out[row - stride + x] ?? 0) : 0;
      const c = x >= channels && y > 0 ? (out[row - stride + x - channels] ?? 0) : 0;
      const v = line[x] ?? 0;
      const predicted = filter === 1 ? a : filter === 2 ? b : filter === 3 ? (a + b) >> 1 : filter === 4 ? paeth(a, b, c) : 0;
      out[row + x] = (v + predicted) & 255;
    }
  }
  return {
    width,
    height,
    pixel(x, y) {
      const at = y * stride + x * channels;
      const p = (i: number) => out[at + i] ?? 0;
      if (channels === 1) return [p(0), p(0), p(0), 255];
      if (channels === 2) return [p(0), p(0), p(0), p(1)];
      return [p(0), p(1), p(2), channels === 4 ? p(3) : 255];
    },
  };
}
