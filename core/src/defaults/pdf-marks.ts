import { asArray, asDict, asName, asNumber, isToken, type PdfDict, PdfLexer, PdfParser, type PdfValue } from "./pdf-syntax.js";

/**
 * What a page's content draws, as far as the blank check needs it: whether it marks the page, and
 * otherwise the one colour it shows.
 */
export interface PageMarks {
  /** True when something shows: text, an image, a shading, a form, or paint in another colour. */
  marked: boolean;
  /** The colour the page shows when unmarked: the paper's (`WHITE`) or that of a fill covering its area. */
  colour: string;
}

/** The paper's colour, as colour keys spell it. */
export const WHITE = "rgb 1 1 1";

/** Most operators read on one page before it counts as marked (a guard against a hostile stream). */
const MAX_OPERATORS = 1_000_000;
/** How far (points) a fill may fall short of the page's edge and still count as covering it. */
const EDGE = 1;

type Matrix = [number, number, number, number, number, number];
/** Axis-aligned bounds in default user space: x0, y0, x1, y1. */
export type Bounds = [number, number, number, number];

/** How paint is composited (`gs`): only plain opaque paint of one colour can repaint the page. */
interface Compositing {
  fillAlpha: number;
  strokeAlpha: number;
  /** Normal blending and no soft mask: paint of the page's colour leaves it unchanged. */
  plain: boolean;
}

interface GraphicsState {
  ctm: Matrix;
  /** Colour keys (`rgb r g b`, `cmyk ...`, `<space> ...`); undefined: not one colour (a pattern). */
  fill: string | undefined;
  stroke: string | undefined;
  fillSpace: string;
  strokeSpace: string;
  compositing: Compositing;
  /** The clip's bounds; undefined: unbounded. `clipIsRect`: false once a clip is no single rectangle. */
  clip: Bounds | undefined;
  clipIsRect: boolean;
}

/** The path being built: its bounds, and the rectangles it is made of while it is only that. */
interface Path {
  bounds: Bounds | undefined;
  rects: Bounds[];
  onlyRects: boolean;
}

const emptyPath = (): Path => ({ bounds: undefined, rects: [], onlyRects: true });
const multiply = ([a, b, c, d, e, f]: Matrix, [A, B, C, D, E, F]: Matrix): Matrix => [
  a * A + b * C,
  a * B + b * D,
  c * A + d * C,
  c * B + d * D,
  e * A + f * C + E,
  e * B + f * D + F,
];
const apply = ([a, b, c, d, e, f]: Matrix, x: number, y: number): [number, number] => [a * x + c * y + e, b * x + d * y + f];
const grow = (bounds: Bounds | undefined, [x, y]: [number, number]): Bounds =>
  bounds ? [Math.min(bounds[0], x), Math.min(bounds[1], y), Math.max(bounds[2], x), Math.max(bounds[3], y)] : [x, y, x, y];
const intersect = (a: Bounds, b: Bounds | undefined): Bounds =>
  b ? [Math.max(a[0], b[0]), Math.max(a[1], b[1]), Math.min(a[2], b[2]), Math.min(a[3], b[3])] : a;
const covers = (outer: Bounds, inner: Bounds) =>
  outer[0] <= inner[0] + EDGE && outer[1] <= inner[1] + EDGE && outer[2] >= inner[2] - EDGE && outer[3] >= inner[3] - EDGE;
const apart = (a: Bounds, b: Bounds) => a[2] < b[0] || b[2] < a[0] || a[3] < b[1] || b[3] < a[1];

/** A device colour as a key: grey and RGB alike, CMYK white as RGB white. */
function colourKey(space: string, values: PdfValue[]): string | undefined {
  if (values.some((v) => typeof v !== "number")) return undefined;
  const n = values as number[];
  if (space === "DeviceGray" && n.length === 1) return `rgb ${n[0]} ${n[0]} ${n[0]}`;
  if (space === "DeviceRGB" && n.length === 3) return `rgb ${n.join(" ")}`;
  if (space === "DeviceCMYK" && n.length === 4) return n.every((v) => v === 0) ? WHITE : `cmyk ${n.join(" ")}`;
  return space === "Pattern" ? undefined : `${space} ${n.join(" ")}`;
}

/** The compositing an `ExtGState` sets, from the state in force. */
function compositing(state: PdfDict | undefined, current: Compositing): Compositing {
  if (!state) return { fillAlpha: 0.5, strokeAlpha: 0.5, plain: false };
  const blend = state.get("BM");
  const blendName = asName(blend) ?? asName(asArray(blend)?.[0]);
  const mask = state.get("SMask");
  return {
    fillAlpha: asNumber(state.get("ca")) ?? current.fillAlpha,
    strokeAlpha: asNumber(state.get("CA")) ?? current.strokeAlpha,
    plain:
      (blend === undefined ? current.plain : blendName === "Normal" || blendName === "Compatible") &&
      (mask === undefined || asName(mask) === "None"),
  };
}

/** Operators that change nothing the check looks at (text state, line style, marked content...). */
const IGNORED = new Set("w J j M d ri i BT ET Tc Tw Tz TL Tf Tr Ts Td TD Tm T* BMC BDC EMC MP DP BX EX d0 d1".split(" "));
/** Operators that always mark: text, images, forms, shadings. */
const MARKING = new Set(["Tj", "TJ", "'", '"', "Do", "sh", "BI", "ID", "EI"]);
/** Operators that place points, and how many numbers each takes. */
const GEOMETRY = new Map(Object.entries({ cm: 6, m: 2, l: 2, c: 6, v: 4, y: 4, re: 4 }));

/**
 * Reads a page's content (its streams joined) until something marks it. `box` is the page's
 * visible area; `area` the part of it the document lays out in (inside the margins): a fill that
 * covers it is the page's own background, and sets the colour later paint is compared with.
 * `resolve` follows indirect references (for `ExtGState` entries). Throws on content it cannot read.
 */
export function pageMarks(
  content: Uint8Array,
  resources: PdfDict | undefined,
  { box, area }: { box: Bounds; area: Bounds },
  resolve: (value: PdfValue | undefined) => PdfValue | undefined,
): PageMarks {
  const states = asDict(resolve(resources?.get("ExtGState")));
  let colour = WHITE;
  let state: GraphicsState = {
    ctm: [1, 0, 0, 1, 0, 0],
    fill: "rgb 0 0 0",
    stroke: "rgb 0 0 0",
    fillSpace: "DeviceGray",
    strokeSpace: "DeviceGray",
    compositing: { fillAlpha: 1, strokeAlpha: 1, plain: true },
    clip: undefined,
    clipIsRect: true,
  };
  const saved: GraphicsState[] = [];
  let path = emptyPath();
  let clipping = false;
  const marked = (): PageMarks => ({ marked: true, colour });

  /** Paints the path; true when that marks the page. */
  const paint = (fill: boolean, stroke: boolean): boolean => {
    const visible = path.bounds && !apart(path.bounds, intersect(box, state.clip));
    if (!visible) return false;
    const { compositing: c } = state;
    if (stroke && !(state.stroke === colour && c.plain)) return true;
    if (!fill || (state.fill === colour && c.plain)) return false;
    const clipCovers = state.clip === undefined || (state.clipIsRect && covers(state.clip, area));
    const repaints = clipCovers && path.onlyRects && path.rects.some((r) => covers(r, area));
    if (repaints && state.fill !== undefined && c.plain && c.fillAlpha === 1) {
      // The page's area is painted over in one colour: what follows is compared with that colour.
      colour = state.fill;
      return false;
    }
    return true;
  };

  const parser = new PdfParser(new PdfLexer(content), false);
  const operands: PdfValue[] = [];
  for (let count = 0; count < MAX_OPERATORS; ) {
    const token = parser.token();
    if (!token) return { marked: false, colour };
    const item = parser.value(token);
    if (!isToken(item)) {
      operands.push(item);
      continue;
    }
    if (item.kind !== "keyword") throw new SyntaxError(`PDF content: unexpected ${item.kind}`);
    const op = item.value;
    count++;
    if (MARKING.has(op)) return marked();
    const n = operands.map((v) => asNumber(v) ?? Number.NaN);
    const arity = GEOMETRY.get(op);
    if (arity !== undefined && (n.length !== arity || n.some(Number.isNaN))) {
      throw new SyntaxError(`PDF content: ${op} takes ${arity} numbers`);
    }
    switch (op) {
      case "q":
        saved.push(state);
        state = { ...state };
        break;
      case "Q":
        state = saved.pop() ?? state;
        break;
      case "cm":
        state.ctm = multiply(n as Matrix, state.ctm);
        break;
      case "m":
      case "l":
        path.onlyRects = false;
        path.bounds = grow(path.bounds, apply(state.ctm, n[0]!, n[1]!));
        break;
      case "c":
      case "v":
      case "y":
        path.onlyRects = false;
        for (let i = 0; i + 1 < n.length; i += 2) path.bounds = grow(path.bounds, apply(state.ctm, n[i]!, n[i + 1]!));
        break;
      case "h":
        break;
      case "re": {
        const [x, y, w, h] = n as [number, number, number, number];
        const [a, b, c, d] = state.ctm;
        let rect: Bounds | undefined;
        for (const [px, py] of [
          [x, y],
          [x + w, y],
          [x, y + h],
          [x + w, y + h],
        ] as const) {
          rect = grow(rect, apply(state.ctm, px, py));
        }
        path.bounds = grow(grow(path.bounds, [rect![0], rect![1]]), [rect![2], rect![3]]);
        // Only an axis-aligned rectangle fills its bounds.
        if ((Math.abs(b) < 1e-9 && Math.abs(c) < 1e-9) || (Math.abs(a) < 1e-9 && Math.abs(d) < 1e-9)) path.rects.push(rect!);
        else path.onlyRects = false;
        break;
      }
      case "W":
      case "W*":
        clipping = true;
        break;
      case "S":
      case "s":
      case "f":
      case "F":
      case "f*":
      case "B":
      case "B*":
      case "b":
      case "b*":
      case "n": {
        const fill = op !== "S" && op !== "s" && op !== "n";
        const stroke = op === "S" || op === "s" || op.toLowerCase().startsWith("b");
        if (op !== "n" && paint(fill, stroke)) return marked();
        if (clipping) {
          const single = path.onlyRects && path.rects.length === 1;
          state.clip = intersect(path.bounds ?? [0, 0, 0, 0], state.clip);
          state.clipIsRect &&= single;
        }
        clipping = false;
        path = emptyPath();
        break;
      }
      case "g":
      case "rg":
      case "k":
        state.fillSpace = { g: "DeviceGray", rg: "DeviceRGB", k: "DeviceCMYK" }[op];
        state.fill = colourKey(state.fillSpace, operands);
        break;
      case "G":
      case "RG":
      case "K":
        state.strokeSpace = { G: "DeviceGray", RG: "DeviceRGB", K: "DeviceCMYK" }[op];
        state.stroke = colourKey(state.strokeSpace, operands);
        break;
      case "cs":
      case "CS": {
        const space = asName(operands[0]) ?? "";
        // A new colour space starts at its initial colour: black in the device spaces.
        const initial = space === "DeviceCMYK" ? [0, 0, 0, 1] : space === "DeviceRGB" ? [0, 0, 0] : [0];
        if (op === "cs") [state.fillSpace, state.fill] = [space, colourKey(space, initial)];
        else [state.strokeSpace, state.stroke] = [space, colourKey(space, initial)];
        break;
      }
      case "sc":
      case "scn":
        state.fill = colourKey(state.fillSpace, operands);
        break;
      case "SC":
      case "SCN":
        state.stroke = colourKey(state.strokeSpace, operands);
        break;
      case "gs":
        state.compositing = compositing(asDict(resolve(states?.get(asName(operands[0]) ?? ""))), state.compositing);
        break;
      default:
        if (!IGNORED.has(op)) throw new SyntaxError(`PDF content: operator ${op} is not read here`);
    }
    operands.length = 0;
  }
  return marked();
}
