/** The tokens of XPath 1.0 (W3C REC, section 3.7), for the syntax check in xpath-syntax.ts. */

export type TokenKind = "name" | "star" | "number" | "literal" | "variable" | "op" | "end";

export interface Token {
  kind: TokenKind;
  /** The token's text; for `name`, the full QName (`prefix:local` or `prefix:*`). */
  text: string;
  /** Offset in the expression, for messages. */
  at: number;
}

/** Punctuation and operators, longest first. */
const SYMBOLS = ["//", "::", "..", "!=", "<=", ">=", "/", "(", ")", "[", "]", ".", "@", ",", "|", "+", "-", "=", "<", ">"];
const NCNAME = /^[\p{L}_][\p{L}\p{N}\p{M}._\-\u00B7]*/u;
const NUMBER = /^(\d+(\.\d*)?|\.\d+)/;

export class XPathSyntaxError extends Error {}

export function fail(message: string): never {
  throw new XPathSyntaxError(message);
}

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^[ \t\r\n]+/.exec(rest);
    if (space) {
      i += space[0].length;
      continue;
    }
    const quote = rest[0];
    if (quote === '"' || quote === "'") {
      const close = rest.indexOf(quote, 1);
      if (close < 0) fail(`unterminated string at ${i + 1}`);
      tokens.push({ kind: "literal", text: rest.slice(1, close), at: i });
      i += close + 1;
      continue;
    }
    const number = NUMBER.exec(rest);
    if (number) {
      tokens.push({ kind: "number", text: number[0], at: i });
      i += number[0].length;
      continue;
    }
    const name = NCNAME.exec(rest);
    if (name || rest[0] === "$") {
      const variable = rest[0] === "$";
      const start = variable ? 1 : 0;
      const local = NCNAME.exec(rest.slice(start));
      if (!local) fail(`"$" must start a variable name at ${i + 1}`);
      let text = local[0];
      const after = rest.slice(start + text.length);
      // A prefix (`svg:rect`, `svg:*`) but not an axis (`child::`).
      if (after[0] === ":" && after[1] !== ":") {
        const second = after[1] === "*" && !variable ? "*" : NCNAME.exec(after.slice(1))?.[0];
        if (!second) fail(`a name must follow "${text}:" at ${i + 1}`);
        text = `${text}:${second}`;
      }
      tokens.push({ kind: variable ? "variable" : "name", text, at: i });
      i += start + text.length;
      continue;
    }
    if (rest[0] === "*") {
      tokens.push({ kind: "star", text: "*", at: i });
      i += 1;
      continue;
    }
    const symbol = SYMBOLS.find((s) => rest.startsWith(s));
    if (!symbol) fail(`unexpected "${rest[0]}" at ${i + 1}`);
    tokens.push({ kind: "op", text: symbol, at: i });
    i += symbol.length;
  }
  tokens.push({ kind: "end", text: "", at: source.length });
  return tokens;
}
