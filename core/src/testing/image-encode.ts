import { crc32, deflateSync } from "node:zlib";

/** An 8-bit RGB picture, row by row (`width × height × 3` bytes). */
export interface Raster {
  width: number;
  height: number;
  rgb: Uint8Array;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A real PNG of `raster` (8-bit RGB): what any image library reads. A row equal to the one above
 * is written with the `Up` filter (all zeros), which deflates in a fraction of the time.
 */
export function encodePng(raster: Raster): Buffer {
  const { width, height, rgb } = raster;
  const stride = width * 3;
  const raw = Buffer.alloc((stride + 1) * height);
  const pixels = Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength);
  for (let y = 0; y < height; y++) {
    const row = pixels.subarray(y * stride, (y + 1) * stride);
    if (y > 0 && row.equals(pixels.subarray((y - 1) * stride, y * stride))) raw[y * (stride + 1)] = 2;
    else raw.set(row, y * (stride + 1) + 1);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

/** Writes Huffman codes and values MSB first, with JPEG's byte stuffing (0xFF is followed by 0x00). */
class BitWriter {
  private readonly bytes: number[] = [];
  private acc = 0;
  private count = 0;

  write(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((value >> i) & 1);
      if (++this.count === 8) this.flushByte();
    }
  }

  private flushByte(): void {
    this.bytes.push(this.acc);
    if (this.acc === 0xff) this.bytes.push(0);
    this.acc = 0;
    this.count = 0;
  }

  /** Pads the last byte with 1 bits, as the standard asks. */
  finish(): Buffer {
    while (this.count !== 0) this.write(1, 1);
    return Buffer.from(this.bytes);
  }
}

/** The standard DC table (ITU T.81 Annex K.3): code lengths, then the categories 0 to 11. */
const DC_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_VALUES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
/** An AC table of one symbol, end-of-block (code `0`): every block of this encoder is flat. */
const AC_BITS = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const AC_VALUES = [0];

/** Canonical Huffman codes of a table, by symbol: `[code, length]`. */
function huffmanCodes(bits: number[], values: number[]): Map<number, [number, number]> {
  const codes = new Map<number, [number, number]>();
  let code = 0;
  let k = 0;
  for (let length = 1; length <= 16; length++) {
    for (let i = 0; i < (bits[length - 1] ?? 0); i++) codes.set(values[k++] ?? 0, [code++, length]);
    code <<= 1;
  }
  return codes;
}

const DC_CODES = huffmanCodes(DC_BITS, DC_VALUES);

function segment(marker: number, body: number[]): Buffer {
  return Buffer.from([0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body]);
}

/**
 * A real baseline JPEG of `raster`, each 8×8 block painted in its mean colour: only DC
 * coefficients, with a quantisation of 1, so a picture made of flat 8×8 blocks comes back
 * within a unit or two per channel (YCbCr rounding). Small and dependency-free; enough for
 * pictures of flat areas such as the fake engine's.
 */
export function encodeJpeg(raster: Raster): Buffer {
  const { width, height, rgb } = raster;
  const out = new BitWriter();
  const previous = [0, 0, 0];
  for (let by = 0; by < height; by += 8) {
    for (let bx = 0; bx < width; bx += 8) {
      let r = 0;
      let g = 0;
      let b = 0;
      const xEnd = Math.min(bx + 8, width) * 3;
      const yEnd = Math.min(by + 8, height);
      for (let y = by; y < yEnd; y++) {
        for (let at = y * width * 3 + bx * 3, end = y * width * 3 + xEnd; at < end; at += 3) {
          r += rgb[at] as number;
          g += rgb[at + 1] as number;
          b += rgb[at + 2] as number;
        }
      }
      const n = (yEnd - by) * (xEnd / 3 - bx);
      [r, g, b] = [r / n, g / n, b / n];
      const ycc = [
        0.299 * r + 0.587 * g + 0.114 * b,
        128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
        128 + 0.5 * r - 0.418688 * g - 0.081312 * b,
      ];
      for (let c = 0; c < 3; c++) {
        // A flat block's DC coefficient is 8 × its level-shifted value.
        const dc = Math.max(-1024, Math.min(1016, Math.round(8 * ((ycc[c] ?? 0) - 128))));
        const diff = dc - (previous[c] ?? 0);
        previous[c] = dc;
        const category = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
        const [code, length] = DC_CODES.get(category) ?? [0, 0];
        out.write(code, length);
        if (category > 0) out.write(diff > 0 ? diff : diff + (1 << category) - 1, category);
        out.write(0, 1); // end of block
      }
    }
  }
  const components = [1, 2, 3].flatMap((id) => [id, 0x11, 0]);
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    segment(0xdb, [0, ...new Array<number>(64).fill(1)]),
    segment(0xc0, [8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, ...components]),
    segment(0xc4, [0x00, ...DC_BITS, ...DC_VALUES, 0x10, ...AC_BITS, ...AC_VALUES]),
    segment(0xda, [3, 1, 0, 2, 0, 3, 0, 0, 63, 0]),
    out.finish(),
    Buffer.from([0xff, 0xd9]),
  ]);
}
