import { FIXTURE_BACKGROUND, FIXTURE_TEXT } from "./formatter-fixture.js";
import { decodePng } from "./png.js";

/** What is wrong with the bytes of a render of the fixture page, or undefined when they look right. */
type Inspect = (bytes: Buffer) => string | undefined;

const ascii = (bytes: Buffer, start: number, end: number) => bytes.subarray(start, end).toString("latin1");

function startsWith(magic: number[], what: string): Inspect {
  return (bytes) =>
    bytes.subarray(0, magic.length).equals(Buffer.from(magic)) ? undefined : `does not start with the ${what} signature`;
}

/** An ISO base media file (mp4, avif): a `ftyp` box whose brands include one of `brands`. */
function isoMedia(brands: readonly string[], what: string): Inspect {
  return (bytes) => {
    if (ascii(bytes, 4, 8) !== "ftyp") return `has no ftyp box: not ${what}`;
    const size = Math.min(bytes.readUInt32BE(0), bytes.length);
    const listed = [ascii(bytes, 8, 12)];
    for (let at = 16; at + 4 <= size; at += 4) listed.push(ascii(bytes, at, at + 4));
    return listed.some((b) => brands.includes(b)) ? undefined : `has ftyp brands ${listed.join(",")}: not ${what}`;
  };
}

/** UTF-8 text (the whole of it must decode) passing `test`. */
function text(test: (text: string) => string | undefined): Inspect {
  return (bytes) => {
    let decoded: string;
    try {
      decoded = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    } catch {
      return "is not valid UTF-8";
    }
    return test(decoded);
  };
}

const showsFixture = (t: string) => (t.includes(FIXTURE_TEXT) ? undefined : `does not contain the page's text "${FIXTURE_TEXT}"`);

/** A PNG of the fixture page: its bottom-right corner (away from the text) shows the page's background. */
const png: Inspect = (bytes) => {
  const wrong = startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "PNG")(bytes);
  if (wrong) return wrong;
  const image = decodePng(bytes);
  const [r, g, b] = image.pixel(image.width - 2, image.height - 2);
  const far = [r, g, b].some((c, i) => Math.abs(c - (FIXTURE_BACKGROUND[i] ?? 0)) > 12);
  return far ? `shows rgb(${r},${g},${b}) where the page's background rgb(${FIXTURE_BACKGROUND.join(",")}) is` : undefined;
};

/**
 * Built-in checks by media type (without parameters): the signature a client's tools look for, and
 * for text formats the fixture page's own text. Formats of other types must bring their own `check`.
 */
export const MAGIC: Readonly<Record<string, Inspect>> = {
  "image/png": png,
  "image/jpeg": startsWith([0xff, 0xd8, 0xff], "JPEG"),
  "image/gif": (bytes) => (/^GIF8[79]a$/.test(ascii(bytes, 0, 6)) ? undefined : "does not start with GIF87a/GIF89a"),
  "image/webp": (bytes) =>
    ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 12) === "WEBP" ? undefined : "is not a RIFF WEBP file",
  "image/avif": isoMedia(["avif", "avis"], "AVIF"),
  "image/svg+xml": text((t) =>
    /^(\uFEFF)?(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/.test(t) ? undefined : "has no <svg> root",
  ),
  "application/pdf": (bytes) =>
    ascii(bytes, 0, 5) === "%PDF-" && ascii(bytes, Math.max(0, bytes.length - 1024), bytes.length).includes("%%EOF")
      ? undefined
      : "is not a complete PDF (%PDF- ... %%EOF)",
  "video/mp4": isoMedia(["isom", "iso2", "iso5", "iso6", "mp41", "mp42", "avc1", "dash"], "MP4"),
  "video/webm": startsWith([0x1a, 0x45, 0xdf, 0xa3], "Matroska/WebM (EBML)"),
  "text/html": text((t) => (/<html[\s>]/i.test(t) ? showsFixture(t) : "has no <html> element")),
  "text/plain": text(showsFixture),
  "text/markdown": text(showsFixture),
  "application/json": text((t) => {
    try {
      JSON.parse(t);
      return undefined;
    } catch {
      return "is not JSON";
    }
  }),
  // MHTML: a MIME document; quoted-printable may wrap lines anywhere (`=` + CRLF).
  "multipart/related": text((t) =>
    /^MIME-Version: 1\.0/im.test(t) ? showsFixture(t.replace(/=\r?\n/g, "")) : "has no MIME-Version header: not MHTML",
  ),
};

/** The built-in check for `contentType` (parameters such as `charset` ignored), if there is one. */
export function magicFor(contentType: string): Inspect | undefined {
  return MAGIC[contentType.split(";")[0]?.trim().toLowerCase() ?? ""];
}
