import { execFile } from "node:child_process";
import sharp from "sharp";

function run(binary: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(binary, args, { encoding: "buffer", maxBuffer: 256 * 1024 * 1024, timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${binary} ${args.join(" ")}: ${stderr.toString()}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

/** What ffprobe says about a video's first stream, counting decoded frames. */
export interface Probe {
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
  frames: number;
  duration: number;
}

export async function probe(file: string): Promise<Probe> {
  const out = await run("ffprobe", [
    "-v",
    "error",
    "-count_frames",
    "-select_streams",
    "v:0",
    "-show_entries",
    "stream=codec_name,pix_fmt,width,height,nb_read_frames:format=duration",
    "-of",
    "json",
    file,
  ]);
  const json = JSON.parse(out.toString()) as {
    streams: { codec_name: string; pix_fmt: string; width: number; height: number; nb_read_frames: string }[];
    format: { duration: string };
  };
  const stream = json.streams[0]!;
  return {
    codec: stream.codec_name,
    pixFmt: stream.pix_fmt,
    width: stream.width,
    height: stream.height,
    frames: Number(stream.nb_read_frames),
    duration: Number(json.format.duration),
  };
}

/** The frame shown at `seconds` (or the last one with `seconds < 0`, counted from the end), as an RGB reader. */
export async function frameAt(file: string, seconds: number): Promise<(x: number, y: number) => number[]> {
  const seek = seconds < 0 ? ["-sseof", String(seconds)] : ["-ss", String(seconds)];
  const png = await run("ffmpeg", [
    "-v",
    "error",
    ...seek,
    "-i",
    file,
    "-frames:v",
    "1",
    "-f",
    "image2",
    "-c:v",
    "png",
    "pipe:1",
  ]);
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return (x, y) => {
    const at = (y * info.width + x) * 3;
    return [data[at]!, data[at + 1]!, data[at + 2]!];
  };
}

/** Largest per-channel difference between two colours. */
export function distance(a: readonly number[], b: readonly number[]): number {
  return Math.max(...a.map((v, i) => Math.abs(v - b[i]!)));
}

/**
 * Output frames that differ visibly from the frame before (the first counts): decoded to 160×90
 * grey, a frame is new when its mean absolute difference exceeds 0.5 grey levels. A held frame
 * re-encoded by a codec differs by far less than that.
 */
export async function distinctFrames(file: string): Promise<number> {
  const w = 160;
  const h = 90;
  const raw = await run("ffmpeg", ["-v", "error", "-i", file, "-vf", `scale=${w}:${h},format=gray`, "-f", "rawvideo", "pipe:1"]);
  const size = w * h;
  let distinct = 0;
  for (let f = 0; f * size < raw.length; f++) {
    if (f === 0) {
      distinct++;
      continue;
    }
    let sum = 0;
    for (let i = 0; i < size; i++) sum += Math.abs(raw[f * size + i]! - raw[(f - 1) * size + i]!);
    if (sum / size > 0.5) distinct++;
  }
  return distinct;
}

/** Every decoded frame of a video as RGB, at its own size. */
export async function allFrames(file: string): Promise<{ width: number; height: number; frames: Buffer[] }> {
  const info = await probe(file);
  const raw = await run("ffmpeg", ["-v", "error", "-i", file, "-f", "rawvideo", "-pix_fmt", "rgb24", "pipe:1"]);
  const size = info.width * info.height * 3;
  const frames: Buffer[] = [];
  for (let at = 0; at + size <= raw.length; at += size) frames.push(raw.subarray(at, at + size));
  return { width: info.width, height: info.height, frames };
}

/**
 * Pixels of an RGB frame (`width` wide) farther than `tolerance` from `colour`, looking at the
 * rectangle `inset` pixels inside the frame's edges.
 */
export function offColour(frame: Buffer, width: number, colour: readonly number[], tolerance: number, inset = 0): number {
  const height = frame.length / 3 / width;
  let off = 0;
  for (let y = inset; y < height - inset; y++) {
    for (let x = inset; x < width - inset; x++) {
      const at = (y * width + x) * 3;
      if (distance([frame[at]!, frame[at + 1]!, frame[at + 2]!], colour) > tolerance) off++;
    }
  }
  return off;
}

/** BT.709 luma of an RGB colour. */
export const luma = (c: readonly number[]) => 0.2126 * c[0]! + 0.7152 * c[1]! + 0.0722 * c[2]!;

/**
 * Pixels of an RGB frame whose luma is farther than `tolerance` from `colour`'s. At an element's
 * edge the chroma blends with its neighbour (JPEG frames and yuv420p keep one colour per 2×2
 * pixels) but the luma is the element's own: a crop one pixel off shows in luma.
 */
export function offLuma(frame: Buffer, colour: readonly number[], tolerance: number): number {
  const target = luma(colour);
  let off = 0;
  for (let at = 0; at + 2 < frame.length; at += 3) {
    if (Math.abs(luma([frame[at]!, frame[at + 1]!, frame[at + 2]!]) - target) > tolerance) off++;
  }
  return off;
}
