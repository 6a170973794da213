import { Readable } from "node:stream";
import type { ByteRange } from "@renderkit/core";

/** The span an answer's body covers and the object's total size. */
export interface ServedSpan {
  start: number;
  end: number;
  total: number;
}

/** Parses `Content-Range: bytes a-b/total`; a 200 answer without it covers the whole object. */
export function servedSpan(contentRange: string | undefined, contentLength: number | undefined): ServedSpan {
  const match = contentRange?.match(/^bytes (\d+)-(\d+)\/(\d+)$/);
  if (match) return { start: Number(match[1]), end: Number(match[2]), total: Number(match[3]) };
  const total = contentLength ?? 0;
  return { start: 0, end: total - 1, total };
}

async function* slice(source: Readable, skip: number, take: number): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of source) {
      let bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
      if (skip >= bytes.length) {
        skip -= bytes.length;
        continue;
      }
      bytes = bytes.subarray(skip, skip + take);
      skip = 0;
      take -= bytes.length;
      yield bytes;
      if (take <= 0) return;
    }
  } finally {
    // The rest of the answer is not needed: drop the connection instead of downloading it.
    source.destroy();
  }
}

/**
 * The bytes of `range` from a body that covers `served`. HTTP lets a server ignore `Range`
 * (a 200 with the whole object), and some S3-compatible servers answer a wider span than
 * asked (s3rver turns `bytes=0-0` into the whole object); the body is cut to what was asked.
 */
export function cutToRange(body: Readable, served: ServedSpan, range: ByteRange): Readable {
  if (served.start === range.start && served.end === range.end) return body;
  if (served.start > range.start) {
    body.destroy();
    throw new Error(`S3Storage: asked for bytes ${range.start}-${range.end}, the store sent ${served.start}-${served.end}`);
  }
  return Readable.from(slice(body, range.start - served.start, range.end - range.start + 1), { objectMode: false });
}
