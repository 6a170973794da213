/**
 * The part of PDF syntax (ISO 32000-1, 7.2 and 7.3) that the blank check reads: tokens, and the
 * values built from them (numbers, names, strings, arrays, dictionaries, indirect references).
 * Strings are skipped, not decoded: the check never needs their text.
 */

/** A PDF name, without its slash (`#xx` escapes left as written). */
export interface PdfName {
  name: string;
}
/** An indirect reference `N G R`. */
export interface PdfRef {
  ref: number;
}
/** A literal or hexadecimal string (its text is not kept). */
export interface PdfString {
  string: true;
}
export type PdfDict = Map<string, PdfValue>;
export type PdfValue = number | boolean | null | PdfName | PdfRef | PdfString | PdfValue[] | PdfDict;

/** A token: a value's first piece, or a keyword (an operator in a content stream, `obj`, `R`...). */
export type PdfToken =
  | { kind: "number"; value: number }
  | { kind: "name"; value: string }
  | { kind: "string" }
  | { kind: "keyword"; value: string }
  | { kind: "[" | "]" | "<<" | ">>" | "{" | "}" };

const WHITESPACE = new Set([0, 9, 10, 12, 13, 32]);
const DELIMITERS = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
const isRegular = (byte: number) => !WHITESPACE.has(byte) && !DELIMITERS.has(byte);

/** Reads tokens from `bytes[pos, end)`. */
export class PdfLexer {
  constructor(
    readonly bytes: Uint8Array,
    public pos = 0,
    readonly end = bytes.length,
  ) {}

  /** The next token, or undefined at the end. Throws at a byte that starts no token and at a string that never closes. */
  next(): PdfToken | undefined {
    const { bytes, end } = this;
    for (;;) {
      while (this.pos < end && WHITESPACE.has(bytes[this.pos] ?? 0)) this.pos++;
      if (bytes[this.pos] !== 0x25) break;
      // A comment runs to the end of its line.
      while (this.pos < end && bytes[this.pos] !== 10 && bytes[this.pos] !== 13) this.pos++;
    }
    if (this.pos >= end) return undefined;
    const byte = bytes[this.pos] ?? 0;
    const twice = bytes[this.pos + 1] === byte;
    if (byte === 0x3c && twice) return this.skip(2, { kind: "<<" });
    if (byte === 0x3e && twice) return this.skip(2, { kind: ">>" });
    if (byte === 0x5b) return this.skip(1, { kind: "[" });
    if (byte === 0x5d) return this.skip(1, { kind: "]" });
    if (byte === 0x7b) return this.skip(1, { kind: "{" });
    if (byte === 0x7d) return this.skip(1, { kind: "}" });
    if (byte === 0x28) return this.literalString();
    if (byte === 0x3c) {
      const close = bytes.indexOf(0x3e, this.pos);
      if (close < 0 || close >= end) throw new SyntaxError("PDF: a hexadecimal string never closes");
      this.pos = close + 1;
      return { kind: "string" };
    }
    if (byte === 0x2f) {
      this.pos++;
      return { kind: "name", value: this.regular() };
    }
    if (!isRegular(byte)) throw new SyntaxError(`PDF: unexpected byte ${byte}`);
    const word = this.regular();
    const number = /^[+-]?(\d+\.?\d*|\.\d+)$/.test(word) ? Number(word) : Number.NaN;
    return Number.isFinite(number) ? { kind: "number", value: number } : { kind: "keyword", value: word };
  }

  private skip(count: number, token: PdfToken): PdfToken {
    this.pos += count;
    return token;
  }

  /** A run of regular characters, as latin1 text. */
  private regular(): string {
    const start = this.pos;
    while (this.pos < this.end && isRegular(this.bytes[this.pos] ?? 0)) this.pos++;
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset + start, this.pos - start).toString("latin1");
  }

  /** `( ... )` with balanced parentheses and backslash escapes. */
  private literalString(): PdfToken {
    let depth = 0;
    for (let i = this.pos; i < this.end; i++) {
      const byte = this.bytes[i];
      if (byte === 0x5c) i++;
      else if (byte === 0x28) depth++;
      else if (byte === 0x29 && --depth === 0) {
        this.pos = i + 1;
        return { kind: "string" };
      }
    }
    throw new SyntaxError("PDF: a string never closes");
  }
}

/** Deepest nesting of arrays and dictionaries read (a guard against a hostile document). */
const MAX_DEPTH = 64;

/**
 * Reads values from a lexer: a token at a time, with the lookahead an indirect reference needs
 * (`12 0 R` where objects are read; content streams have none).
 */
export class PdfParser {
  private pending: PdfToken[] = [];

  constructor(
    readonly lexer: PdfLexer,
    private readonly references = true,
  ) {}

  token(): PdfToken | undefined {
    return this.pending.shift() ?? this.lexer.next();
  }

  private peek(n: number): PdfToken | undefined {
    while (this.pending.length <= n) {
      const token = this.lexer.next();
      if (!token) return undefined;
      this.pending.push(token);
    }
    return this.pending[n];
  }

  /**
   * The value that `first` starts; a keyword is returned as such (an operator, `obj`, `stream`).
   * Throws on what is not a well-formed value.
   */
  value(first: PdfToken | undefined, depth = 0): PdfValue | PdfToken {
    if (!first) throw new SyntaxError("PDF: unexpected end");
    if (depth > MAX_DEPTH) throw new SyntaxError("PDF: nested too deep");
    switch (first.kind) {
      case "number": {
        // Lazily: the second look ahead only after a number, so the lexer never runs past `stream`.
        const generation = this.references ? this.peek(0) : undefined;
        const r = generation?.kind === "number" ? this.peek(1) : undefined;
        if (r?.kind === "keyword" && r.value === "R") {
          this.pending.splice(0, 2);
          return { ref: first.value };
        }
        return first.value;
      }
      case "name":
        return { name: first.value };
      case "string":
        return { string: true };
      case "[": {
        const items: PdfValue[] = [];
        for (let token = this.token(); token?.kind !== "]"; token = this.token()) items.push(this.plain(token, depth + 1));
        return items;
      }
      case "<<": {
        const dict: PdfDict = new Map();
        for (let token = this.token(); token?.kind !== ">>"; token = this.token()) {
          if (token?.kind !== "name") throw new SyntaxError("PDF: a dictionary key is not a name");
          dict.set(token.value, this.plain(this.token(), depth + 1));
        }
        return dict;
      }
      case "keyword":
        if (first.value === "true" || first.value === "false") return first.value === "true";
        if (first.value === "null") return null;
        return first;
      default:
        throw new SyntaxError(`PDF: unexpected ${first.kind}`);
    }
  }

  /** A value that must not be a keyword (an item of an array or dictionary). */
  private plain(token: PdfToken | undefined, depth: number): PdfValue {
    const value = this.value(token, depth);
    if (isToken(value)) throw new SyntaxError(`PDF: unexpected keyword ${"value" in value ? value.value : value.kind}`);
    return value;
  }
}

/** Whether a parsed item is a bare token (a keyword) rather than a value. */
export function isToken(value: PdfValue | PdfToken): value is PdfToken {
  return value !== null && typeof value === "object" && "kind" in value;
}

/** Readers of values of an expected type (undefined when the value is of another). */
export const asNumber = (value: PdfValue | undefined): number | undefined => (typeof value === "number" ? value : undefined);
export const asName = (value: PdfValue | undefined): string | undefined =>
  value !== null && typeof value === "object" && "name" in value ? value.name : undefined;
export const asDict = (value: PdfValue | undefined): PdfDict | undefined => (value instanceof Map ? value : undefined);
export const asArray = (value: PdfValue | undefined): PdfValue[] | undefined => (Array.isArray(value) ? value : undefined);
export const asRef = (value: PdfValue | undefined): number | undefined =>
  value !== null && typeof value === "object" && "ref" in value ? value.ref : undefined;
