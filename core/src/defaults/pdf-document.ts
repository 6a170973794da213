import { inflateSync } from "node:zlib";
import {
  asArray,
  asDict,
  asName,
  asNumber,
  asRef,
  isToken,
  type PdfDict,
  PdfLexer,
  PdfParser,
  type PdfToken,
  type PdfValue,
} from "./pdf-syntax.js";

/** Largest decoded stream read; a page whose content is larger has content, whatever it is. */
const MAX_STREAM_BYTES = 64 * 1024 * 1024;
/** Deepest page tree walked, and most references followed in a row (guards against loops). */
const MAX_TREE_DEPTH = 32;
const MAX_HOPS = 16;

/** One page as its content is drawn: streams, resources and visible box (inherited ones resolved). */
export interface PdfPage {
  /** Object numbers of the content streams, drawn in this order as one. */
  contents: number[];
  resources: PdfDict | undefined;
  /** The page's visible area in default user space: `CropBox`, else `MediaBox` (x0, y0, x1, y1). */
  box: [number, number, number, number];
  /** `Annots`, resolved. */
  annotations: PdfDict[];
}

/** One subsection of the cross-reference table: objects `first` to `first + count - 1`, entries from byte `at`. */
interface XrefSection {
  first: number;
  count: number;
  at: number;
}

/** Bytes of one entry of the cross-reference table, end of line included. */
const XREF_ENTRY = 20;

/** A stream object: its dictionary and where its data starts in the file. */
interface StreamObject {
  dict: PdfDict;
  start: number;
}

/**
 * A PDF read the way Chromium's printer (Skia) writes it: one classic cross-reference table
 * (`xref`, no update sections), objects read where the table places them, streams without a
 * filter or with `FlateDecode` (zlib, which Node has). Anything else (a cross-reference stream,
 * encryption, another filter) is refused: `open` or the reader answers undefined, and the caller
 * treats the document as one it cannot vouch for.
 */
export class PdfDocument {
  private readonly objects = new Map<number, PdfValue | undefined>();
  private readonly streams = new Map<number, StreamObject>();

  private constructor(
    private readonly bytes: Uint8Array,
    private readonly sections: XrefSection[],
    readonly trailer: PdfDict,
  ) {}

  /** Reads the cross-reference table and the trailer; undefined when the file is not of that kind. */
  static open(bytes: Uint8Array): PdfDocument | undefined {
    const tailStart = Math.max(0, bytes.length - 1024);
    const tail = Buffer.from(bytes.buffer, bytes.byteOffset + tailStart, bytes.length - tailStart).toString("latin1");
    const start = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail)?.[1];
    if (start === undefined || Number(start) >= bytes.length) return undefined;
    try {
      return PdfDocument.readTable(bytes, Number(start));
    } catch {
      return undefined;
    }
  }

  /**
   * The table at `start` and the trailer after it. The entries are not read here: each is 20 bytes
   * (ISO 32000-1, 7.5.4), so an object's is found by its number when it is needed, and a document
   * of many objects (a tagged PDF has one per structure element) costs nothing to open.
   * Throws on what is not PDF syntax.
   */
  private static readTable(bytes: Uint8Array, start: number): PdfDocument | undefined {
    const lexer = new PdfLexer(bytes, start);
    const parser = new PdfParser(lexer, false);
    if (!isKeyword(parser.token(), "xref")) return undefined;
    const sections: XrefSection[] = [];
    for (let token = parser.token(); !isKeyword(token, "trailer"); token = parser.token()) {
      const first = number(token);
      const count = number(parser.token());
      if (first === undefined || count === undefined || !Number.isInteger(first) || !Number.isInteger(count)) return undefined;
      // The entries start on the next line.
      let at = lexer.pos;
      while (at < bytes.length && (bytes[at] === 32 || bytes[at] === 13 || bytes[at] === 10)) at++;
      if (at + count * XREF_ENTRY > bytes.length) return undefined;
      sections.push({ first, count, at });
      lexer.pos = at + count * XREF_ENTRY;
    }
    const trailer = new PdfParser(lexer).value(parser.token());
    if (!(trailer instanceof Map) || trailer.has("Prev") || trailer.has("Encrypt")) return undefined;
    return new PdfDocument(bytes, sections, trailer);
  }

  /** Where object `num` starts, from its table entry (`oooooooooo ggggg n`); undefined when free or absent. */
  private offset(num: number): number | undefined {
    const section = this.sections.find((s) => num >= s.first && num < s.first + s.count);
    if (!section) return undefined;
    const at = section.at + (num - section.first) * XREF_ENTRY;
    const entry = Buffer.from(this.bytes.buffer, this.bytes.byteOffset + at, XREF_ENTRY).toString("latin1");
    const match = /^(\d{10}) (\d{5}) n[ \r\n]{2}$/.exec(entry);
    return match ? Number(match[1]) : undefined;
  }

  /** Object `num` (its dictionary, for a stream), or undefined when it cannot be read. */
  object(num: number): PdfValue | undefined {
    if (!this.objects.has(num)) this.objects.set(num, this.read(num));
    return this.objects.get(num);
  }

  /** `value`, with indirect references followed. */
  resolve(value: PdfValue | undefined): PdfValue | undefined {
    let current = value;
    for (let hops = 0; hops < MAX_HOPS; hops++) {
      const ref = asRef(current);
      if (ref === undefined) return current;
      current = this.object(ref);
    }
    return undefined;
  }

  /** The decoded data of stream object `num`; undefined when it is no stream or its filter is not read here. */
  stream(num: number): Uint8Array | undefined {
    this.object(num);
    const stream = this.streams.get(num);
    if (!stream) return undefined;
    const length = asNumber(this.resolve(stream.dict.get("Length")));
    if (length === undefined || length < 0 || stream.start + length > this.bytes.length) return undefined;
    const data = this.bytes.subarray(stream.start, stream.start + length);
    const filter = this.resolve(stream.dict.get("Filter"));
    const filters = (asArray(filter) ?? (filter === undefined ? [] : [filter])).map((f) => asName(this.resolve(f)));
    if (filters.length === 0) return data;
    if (filters.length > 1 || filters[0] !== "FlateDecode" || stream.dict.has("DecodeParms")) return undefined;
    try {
      return inflateSync(data, { maxOutputLength: MAX_STREAM_BYTES });
    } catch {
      return undefined;
    }
  }

  /** Every page in order, or undefined when the page tree cannot be read or its count is not kept. */
  pages(): PdfPage[] | undefined {
    const root = asDict(this.resolve(this.trailer.get("Root")));
    const tree = asDict(this.resolve(root?.get("Pages")));
    if (!tree) return undefined;
    const pages: PdfPage[] = [];
    if (!this.walk(tree, new Map(), pages, 0)) return undefined;
    return pages.length === asNumber(this.resolve(tree.get("Count"))) ? pages : undefined;
  }

  /** Adds the pages under `node` to `pages`; false when something cannot be read. */
  private walk(node: PdfDict, inherited: Map<string, PdfValue>, pages: PdfPage[], depth: number): boolean {
    if (depth > MAX_TREE_DEPTH) return false;
    const attributes = new Map(inherited);
    for (const key of ["Resources", "MediaBox", "CropBox"]) {
      const value = node.get(key);
      if (value !== undefined) attributes.set(key, value);
    }
    if (asName(node.get("Type")) === "Page") {
      const page = this.page(node, attributes);
      if (page) pages.push(page);
      return page !== undefined;
    }
    const kids = asArray(this.resolve(node.get("Kids")));
    if (!kids) return false;
    return kids.every((kid) => {
      const dict = asDict(this.resolve(kid));
      return dict !== undefined && this.walk(dict, attributes, pages, depth + 1);
    });
  }

  private page(node: PdfDict, attributes: Map<string, PdfValue>): PdfPage | undefined {
    const rect = asArray(this.resolve(attributes.get("CropBox") ?? attributes.get("MediaBox")))?.map((v) =>
      asNumber(this.resolve(v)),
    );
    if (rect?.length !== 4 || rect.some((v) => v === undefined)) return undefined;
    const [x0, y0, x1, y1] = rect as number[];
    const box: PdfPage["box"] = [Math.min(x0!, x1!), Math.min(y0!, y1!), Math.max(x0!, x1!), Math.max(y0!, y1!)];
    const contents = node.get("Contents");
    const refs = contents === undefined ? [] : (asArray(this.resolve(contents)) ?? [contents]).map(asRef);
    if (refs.some((ref) => ref === undefined)) return undefined;
    const annots = asArray(this.resolve(node.get("Annots"))) ?? [];
    const annotations = annots.map((a) => asDict(this.resolve(a)));
    if (annotations.some((a) => a === undefined)) return undefined;
    return {
      contents: refs as number[],
      resources: asDict(this.resolve(attributes.get("Resources"))),
      box,
      annotations: annotations as PdfDict[],
    };
  }

  /** Reads `num 0 obj <value> [stream ...] endobj` at the table's offset. */
  private read(num: number): PdfValue | undefined {
    const offset = this.offset(num);
    if (offset === undefined || offset >= this.bytes.length) return undefined;
    const lexer = new PdfLexer(this.bytes, offset);
    const parser = new PdfParser(lexer);
    try {
      if (number(parser.token()) !== num || number(parser.token()) === undefined || !isKeyword(parser.token(), "obj")) {
        return undefined;
      }
      const value = parser.value(parser.token());
      if (isToken(value)) return undefined;
      const after = parser.token();
      if (isKeyword(after, "stream") && value instanceof Map) {
        // The data starts after the end of line that follows the keyword (CR LF or LF).
        let start = lexer.pos;
        if (this.bytes[start] === 13) start++;
        if (this.bytes[start] === 10) start++;
        this.streams.set(num, { dict: value, start });
      } else if (!isKeyword(after, "endobj")) {
        return undefined;
      }
      return value;
    } catch {
      return undefined;
    }
  }
}

function isKeyword(token: PdfToken | undefined, word: string): boolean {
  return token?.kind === "keyword" && token.value === word;
}

function number(token: PdfToken | undefined): number | undefined {
  return token?.kind === "number" ? token.value : undefined;
}
