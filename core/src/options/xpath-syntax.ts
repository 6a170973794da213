/**
 * A syntax check of XPath 1.0 expressions (the language of `document.evaluate` in Chromium), so
 * that `click_x`, `click_all_x` and `scroll_to_x` refuse a malformed expression with a 400 before
 * the render is queued. It follows the grammar and lexical rules of XPath 1.0 (W3C REC, section
 * 3.7) and Chromium's extra limits: only the core function library, and no namespace prefixes or
 * variables (renderkit passes no resolver). What it accepts may still fail in the page (a
 * predicate on a number, a result that is not a node-set); the render then fails with the
 * browser's message.
 */

import { fail, type Token, tokenize, XPathSyntaxError } from "./xpath-lexer.js";

/** The core function library: name → [least, most] arguments. */
const FUNCTIONS: Readonly<Record<string, readonly [number, number]>> = Object.fromEntries(
  Object.entries({
    "last position true false": [0, 0],
    "local-name namespace-uri name string string-length normalize-space number": [0, 1],
    "count id boolean not lang sum floor ceiling round": [1, 1],
    "starts-with contains substring-before substring-after": [2, 2],
    substring: [2, 3],
    translate: [3, 3],
    concat: [2, Number.POSITIVE_INFINITY],
  }).flatMap(([names, arity]) => names.split(" ").map((name) => [name, arity as [number, number]])),
);

const AXES = new Set(
  [
    "ancestor ancestor-or-self attribute child descendant descendant-or-self following following-sibling",
    "namespace parent preceding preceding-sibling self",
  ]
    .join(" ")
    .split(" "),
);

const NODE_TYPES = new Set(["comment", "text", "processing-instruction", "node"]);
const OPERATOR_NAMES = new Set(["and", "or", "div", "mod"]);
/** Recursive descent over the XPath 1.0 grammar; operand and operator positions settle `*` and `div`. */
class Parser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  private get peek(): Token {
    return this.tokens[this.pos] as Token;
  }

  private ahead(n: number): Token {
    return this.tokens[Math.min(this.pos + n, this.tokens.length - 1)] as Token;
  }

  private next(): Token {
    const token = this.peek;
    if (token.kind !== "end") this.pos++;
    return token;
  }

  private atEnd(): boolean {
    return this.peek.kind === "end";
  }

  private isOp(text: string, token = this.peek): boolean {
    return token.kind === "op" && token.text === text;
  }

  private expect(text: string): void {
    if (!this.isOp(text)) this.unexpected(`"${text}"`);
    this.next();
  }

  private unexpected(wanted: string): never {
    const token = this.peek;
    const found = token.kind === "end" ? "the end" : `"${token.kind === "literal" ? "string" : token.text}"`;
    return fail(`expected ${wanted} but found ${found} at ${token.at + 1}`);
  }

  parse(): void {
    if (this.atEnd()) fail("the expression is empty");
    this.expr();
    if (!this.atEnd()) this.unexpected("an operator or the end");
  }

  private expr(): void {
    this.binary(0);
  }

  /** Operator levels, loosest first: or, and, equality, relational, additive, multiplicative. */
  private static readonly LEVELS: readonly (readonly string[])[] = [
    ["or"],
    ["and"],
    ["=", "!="],
    ["<", "<=", ">", ">="],
    ["+", "-"],
    ["*", "div", "mod"],
  ];

  private binary(level: number): void {
    const operators = Parser.LEVELS[level];
    if (!operators) {
      this.unary();
      return;
    }
    this.binary(level + 1);
    while (this.isOperator(operators)) {
      this.next();
      this.binary(level + 1);
    }
  }

  /** In operator position `*` multiplies and `and`/`or`/`div`/`mod` are operators. */
  private isOperator(operators: readonly string[]): boolean {
    const token = this.peek;
    if (token.kind === "op" || token.kind === "star") return operators.includes(token.text);
    return token.kind === "name" && OPERATOR_NAMES.has(token.text) && operators.includes(token.text);
  }

  private unary(): void {
    while (this.isOp("-")) this.next();
    this.path();
    while (this.isOp("|")) {
      this.next();
      this.path();
    }
  }

  private path(): void {
    const token = this.peek;
    if (this.isOp("/")) {
      this.next();
      if (this.startsStep()) this.relativePath();
      return;
    }
    if (this.isOp("//") || !this.startsFilter()) {
      if (this.isOp("//")) this.next();
      this.relativePath();
      return;
    }
    this.primary(token);
    this.predicates();
    if (this.isOp("/") || this.isOp("//")) {
      this.next();
      this.relativePath();
    }
  }

  private startsFilter(): boolean {
    const token = this.peek;
    if (token.kind === "variable" || token.kind === "literal" || token.kind === "number" || this.isOp("(")) return true;
    return token.kind === "name" && this.isOp("(", this.ahead(1)) && !NODE_TYPES.has(token.text);
  }

  private startsStep(): boolean {
    const token = this.peek;
    return token.kind === "name" || token.kind === "star" || this.isOp(".") || this.isOp("..") || this.isOp("@");
  }

  private primary(token: Token): void {
    if (token.kind === "variable") fail(`variables are not supported ($${token.text} at ${token.at + 1})`);
    if (token.kind === "literal" || token.kind === "number") {
      this.next();
      return;
    }
    if (this.isOp("(")) {
      this.next();
      this.expr();
      this.expect(")");
      return;
    }
    this.functionCall();
  }

  private functionCall(): void {
    const name = this.next();
    const arity = FUNCTIONS[name.text];
    if (!arity) fail(`unknown function ${name.text}() at ${name.at + 1} (XPath 1.0 core functions only)`);
    this.expect("(");
    let count = 0;
    if (!this.isOp(")")) {
      this.expr();
      count++;
      while (this.isOp(",")) {
        this.next();
        this.expr();
        count++;
      }
    }
    this.expect(")");
    if (count < arity[0] || count > arity[1]) {
      const wanted =
        arity[0] === arity[1]
          ? `${arity[0]}`
          : arity[1] === Number.POSITIVE_INFINITY
            ? `at least ${arity[0]}`
            : `${arity[0]} to ${arity[1]}`;
      fail(`${name.text}() takes ${wanted} argument${wanted === "1" ? "" : "s"}, not ${count} (at ${name.at + 1})`);
    }
  }

  private relativePath(): void {
    this.step();
    while (this.isOp("/") || this.isOp("//")) {
      this.next();
      this.step();
    }
  }

  private step(): void {
    if (this.isOp(".") || this.isOp("..")) {
      this.next();
      return;
    }
    if (this.isOp("@")) {
      this.next();
    } else if (this.peek.kind === "name" && this.isOp("::", this.ahead(1))) {
      const axis = this.next();
      if (!AXES.has(axis.text)) fail(`unknown axis ${axis.text}:: at ${axis.at + 1}`);
      this.next();
    }
    this.nodeTest();
    this.predicates();
  }

  private nodeTest(): void {
    const token = this.peek;
    if (token.kind === "star") {
      this.next();
      return;
    }
    if (token.kind !== "name") this.unexpected("a step (a name, *, ., .. or @)");
    if (token.text.includes(":")) fail(`namespace prefixes are not supported (${token.text} at ${token.at + 1})`);
    this.next();
    if (!this.isOp("(")) return;
    if (!NODE_TYPES.has(token.text)) fail(`unknown node type ${token.text}() at ${token.at + 1}`);
    this.next();
    if (token.text === "processing-instruction" && this.peek.kind === "literal") this.next();
    this.expect(")");
  }

  private predicates(): void {
    while (this.isOp("[")) {
      this.next();
      this.expr();
      this.expect("]");
    }
  }
}

/** Why `expression` is not an XPath 1.0 expression Chromium can evaluate, or undefined when it is. */
export function xpathSyntaxError(expression: string): string | undefined {
  try {
    new Parser(tokenize(expression)).parse();
    return undefined;
  } catch (error) {
    if (error instanceof XPathSyntaxError) return error.message;
    throw error;
  }
}
