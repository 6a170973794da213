// The PDF blank check on small PDFs written here, one feature at a time. Chromium's own PDFs
// (empty pages, a word, pages that hide their body) are checked in test/e2e/blank.test.ts.
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { isBlankPdf } from "../dist/defaults/pdf-blank.js";
import { PdfLexer, PdfParser } from "../dist/defaults/pdf-syntax.js";

/** Letter in points, as the pages below are unless they say otherwise. */
const BOX = [0, 0, 612, 792];

/** A stream object's body: its dictionary, then the data (latin1), compressed with zlib when `flate`. */
function stream(data: string, { flate = false, dict = "" } = {}): string {
  const bytes = flate ? deflateSync(Buffer.from(data, "latin1")).toString("latin1") : data;
  const filter = flate ? " /Filter /FlateDecode" : "";
  return `<< /Length ${Buffer.byteLength(bytes, "latin1")}${filter}${dict} >>\nstream\n${bytes}\nendstream`;
}

/** A PDF of `objects` (object 1 first) with a classic cross-reference table, as Chromium writes one. */
function buildPdf(objects: string[], trailer = ""): Buffer {
  let pdf = "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(pdf, "latin1"));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf, "latin1");
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, "0")} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailer} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, "latin1");
}

interface PageSpec {
  content?: string;
  flate?: boolean;
  /** Inline resource dictionary text. */
  resources?: string;
  annots?: string;
  box?: number[];
  /** A filter other than zlib's, named on the content stream. */
  filter?: string;
}

/** A PDF of `pages`: catalog, page tree, then each page and its content stream; `extra` objects after them. */
function pdf(pages: PageSpec[], { extra = [] as string[], count = pages.length, trailer = "" } = {}): Buffer {
  const objects = ["<< /Type /Catalog /Pages 2 0 R >>", ""];
  const kids: string[] = [];
  const firstExtra = 3 + 2 * pages.length;
  for (const page of pages) {
    const num = objects.length + 1;
    kids.push(`${num} 0 R`);
    const resources = page.resources ? ` /Resources ${page.resources}` : "";
    const annots = page.annots ? ` /Annots ${page.annots}` : "";
    const contents = page.content === undefined && !page.filter ? "" : ` /Contents ${num + 1} 0 R`;
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [${(page.box ?? BOX).join(" ")}]${resources}${annots}${contents} >>`);
    const dict = page.filter ? ` /Filter /${page.filter}` : "";
    objects.push(
      page.filter ? `<< /Length 2${dict} >>\nstream\nxx\nendstream` : stream(page.content ?? "", { flate: page.flate }),
    );
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count ${count} >>`;
  expect(objects.length + 1).toBe(firstExtra);
  return buildPdf([...objects, ...extra], trailer);
}

const blank = (pages: PageSpec[] | Buffer, margins?: Parameters<typeof isBlankPdf>[1]) =>
  isBlankPdf(Buffer.isBuffer(pages) ? pages : pdf(pages), margins);

describe("isBlankPdf", () => {
  it("a page with nothing drawn, or with no content at all, is blank; so are several such pages", () => {
    expect(blank([{ content: "" }])).toBe(true);
    expect(blank([{}])).toBe(true);
    expect(blank([{ content: "q 1 0 0 1 10 10 cm Q" }, { content: "" }, {}])).toBe(true);
  });

  it("text is never blank, whatever its colour: it can be selected and searched", () => {
    for (const show of ["(x) Tj", "[(x) 120 (y)] TJ", "(x) '", '1 2 (x) "']) {
      expect(blank([{ content: `1 1 1 rg BT /F1 12 Tf 10 10 Td ${show} ET` }]), show).toBe(false);
    }
    // On the last of several pages too.
    expect(blank([{ content: "" }, { content: "BT (late) Tj ET" }])).toBe(false);
  });

  it("images, forms, shadings and inline images mark the page", () => {
    for (const content of ["q 10 0 0 10 0 0 cm /Im1 Do Q", "/Sh1 sh", "BI /W 1 /H 1 /CS /G /BPC 8 ID \x00 EI"]) {
      expect(blank([{ content }]), content).toBe(false);
    }
  });

  it("paint in the paper's white shows nothing; in any other colour it marks the page", () => {
    // What Chromium prints for backgrounds when printBackground is off: white boxes.
    expect(blank([{ content: "1 1 1 rg 10 10 50 50 re f" }])).toBe(true);
    expect(blank([{ content: "1 g 10 10 50 50 re f 1 G 10 10 m 50 50 l S" }])).toBe(true);
    expect(blank([{ content: "0 0 0 0 k 10 10 50 50 re f" }])).toBe(true);
    expect(blank([{ content: "/DeviceRGB cs 1 1 1 sc 10 10 50 50 re f" }])).toBe(true);
    // A thin grey border, a light box, a black line: little content, but content.
    expect(blank([{ content: ".8 .8 .8 RG 10 10 50 50 re S" }])).toBe(false);
    expect(blank([{ content: ".98 g 10 10 50 50 re f" }])).toBe(false);
    expect(blank([{ content: "10 10 m 50 10 l S" }])).toBe(false);
    expect(blank([{ content: "/Pattern cs /P1 scn 10 10 50 50 re f" }])).toBe(false);
  });

  it("a fill that covers the page is its colour: the page stays blank until something of another colour shows", () => {
    const red = "1 0 0 rg 0 0 612 792 re f";
    expect(blank([{ content: red }])).toBe(true);
    expect(blank([{ content: `${red} 1 0 0 rg 10 10 5 5 re f 1 0 0 RG 10 10 m 50 50 l S` }])).toBe(true);
    expect(blank([{ content: `${red} 0 0 1 rg 10 10 5 5 re f` }])).toBe(false);
    // White was the paper's colour; on a red page it shows.
    expect(blank([{ content: `${red} 1 g 10 10 5 5 re f` }])).toBe(false);
    // Through Chromium's flipped and scaled coordinates, a little short of the edge.
    expect(blank([{ content: ".24 0 0 -.24 0 792 cm q 1 0 0 rg 0 0 2549 3299 re f Q" }])).toBe(true);
    // Two pages of the same colour are one colour; of two colours they are not.
    expect(blank([{ content: red }, { content: red }])).toBe(true);
    expect(blank([{ content: red }, { content: "" }])).toBe(false);
  });

  it("with margins, a fill of the area inside them is the page's background; without them it is paint", () => {
    const inside = "1 0 0 rg 36 36 540 720 re f";
    const margins = { top: 36, right: 36, bottom: 36, left: 36 };
    expect(blank([{ content: inside }], margins)).toBe(true);
    expect(blank([{ content: inside }])).toBe(false);
    expect(blank([{ content: `${inside} 0 g 40 40 5 5 re f` }], margins)).toBe(false);
  });

  it("a rotated fill, or one under a clip smaller than the page, does not cover it", () => {
    expect(blank([{ content: "q .7 .7 -.7 .7 300 0 cm 1 0 0 rg -2000 -2000 4000 4000 re f Q" }])).toBe(false);
    expect(blank([{ content: "q 100 100 50 50 re W n 1 0 0 rg 0 0 612 792 re f Q" }])).toBe(false);
    expect(blank([{ content: "q 0 0 m 612 0 l 612 792 l h W n 1 0 0 rg 0 0 612 792 re f Q" }])).toBe(false);
  });

  it("paint outside the page, or outside the clip, shows nothing", () => {
    expect(blank([{ content: "0 g 700 800 10 10 re f" }])).toBe(true);
    expect(blank([{ content: "q 0 0 100 100 re W n 0 g 200 200 10 10 re f Q" }])).toBe(true);
    // After the clip is restored, the same fill shows.
    expect(blank([{ content: "q 0 0 100 100 re W n Q 0 g 200 200 10 10 re f" }])).toBe(false);
  });

  it("translucent or blended paint: of another colour it marks, of the page's it does not; a translucent cover is no background", () => {
    const states = "<< /ExtGState << /Half << /ca .5 >> /Mul << /BM /Multiply >> /Off 5 0 R >> >>";
    const page = (content: string) => pdf([{ content, resources: states }], { extra: ["<< /BM /Normal /ca 1 >>"] });
    expect(blank(page("/Half gs 1 1 1 rg 10 10 50 50 re f"))).toBe(true);
    expect(blank(page("/Half gs 0 g 10 10 50 50 re f"))).toBe(false);
    expect(blank(page("/Half gs 1 0 0 rg 0 0 612 792 re f"))).toBe(false);
    // A blend mode is not assumed harmless, even in the page's colour.
    expect(blank(page("/Mul gs 1 1 1 rg 10 10 50 50 re f"))).toBe(false);
    // An ExtGState given by reference is read; back to plain opaque paint, a cover is a background again.
    expect(blank(page("/Mul gs /Off gs 1 0 0 rg 0 0 612 792 re f"))).toBe(true);
    // A state the resources do not have is not guessed.
    expect(blank(page("/Missing gs 1 1 1 rg 10 10 50 50 re f"))).toBe(false);
  });

  it("links show nothing; other annotations do", () => {
    expect(blank([{ content: "", annots: "[<< /Type /Annot /Subtype /Link /Rect [0 0 10 10] >>]" }])).toBe(true);
    expect(blank([{ content: "", annots: "[<< /Type /Annot /Subtype /Widget /Rect [0 0 10 10] >>]" }])).toBe(false);
  });

  it("reads zlib-compressed content, comments, strings, arrays and marked content", () => {
    expect(blank([{ content: "1 1 1 rg 10 10 50 50 re f", flate: true }])).toBe(true);
    expect(blank([{ content: "0 g 10 10 50 50 re f", flate: true }])).toBe(false);
    expect(blank([{ content: "/Artifact BMC % (x) Tj in a comment\nEMC /P << /MCID 0 /Alt (a \\) Tj) >> BDC EMC" }])).toBe(true);
    expect(blank([{ content: "[3 1] 0 d 2 w 1 J 1 G 10 10 m 50 50 l S" }])).toBe(true);
  });

  it("vouches for nothing it cannot read: other filters, cross-reference streams, encryption, broken files, unknown operators", () => {
    expect(blank([{ filter: "LZWDecode" }])).toBe(false);
    expect(blank(pdf([{ content: "" }], { trailer: " /Encrypt 9 0 R" }))).toBe(false);
    expect(blank(pdf([{ content: "" }], { count: 2 }))).toBe(false);
    expect(blank([{ content: "10 10 frobnicate" }])).toBe(false);
    expect(blank([{ content: "10 10 re f" }])).toBe(false);
    expect(blank([{ content: "(never closed Tj" }])).toBe(false);
    const whole = pdf([{ content: "" }]);
    expect(blank(whole)).toBe(true);
    expect(blank(whole.subarray(0, whole.length - 30))).toBe(false);
    expect(blank(Buffer.from(whole.toString("latin1").replace("xref", "xrefs"), "latin1"))).toBe(false);
    expect(blank(Buffer.alloc(0))).toBe(false);
    expect(blank(Buffer.from("%PDF-1.7\nnot a pdf\n%%EOF\n"))).toBe(false);
  });

  it("finds objects through a table in several subsections; a damaged entry is not guessed", () => {
    const whole = pdf([{ content: "1 1 1 rg 10 10 50 50 re f" }, { content: "" }]).toString("latin1");
    const table = /xref\n0 (\d+)\n/.exec(whole);
    const size = Number(table?.[1]);
    const entries = (table?.index ?? 0) + (table?.[0].length ?? 0);
    // Objects 0-2, then 3 onward in a second subsection.
    const split = `${whole.slice(0, table?.index)}xref\n0 3\n${whole.slice(entries, entries + 60)}3 ${size - 3}\n${whole.slice(entries + 60)}`;
    const startxref = split.indexOf("xref\n0 3");
    const fixed = split.replace(/startxref\n\d+/, `startxref\n${startxref}`);
    expect(blank(Buffer.from(fixed, "latin1"))).toBe(true);
    // The first page's entry loses a digit: the page cannot be read, so the PDF is not called blank.
    const damaged = `${whole.slice(0, entries + 60)}${whole.slice(entries + 61, entries + 79)} ${whole.slice(entries + 79)}`;
    expect(blank(Buffer.from(damaged, "latin1"))).toBe(false);
  });

  it("a document whose Info strings hold PDF keywords is read as well", () => {
    const info = "<< /Title (a stream endobj \\( trailer) /Subject <73747265616d> >>";
    const bytes = pdf([{ content: "" }], { extra: [info], trailer: ` /Info ${5} 0 R` });
    expect(blank(bytes)).toBe(true);
  });
});

describe("PDF values", () => {
  it("reads references, nested arrays and dictionaries, strings, names, booleans and null", () => {
    const text = "<< /A 12 0 R /B [1 -2.5 .5 (x(y)\\)) <0a0b> /N#20x] /C << /D true /E null >> >>";
    const parser = new PdfParser(new PdfLexer(Buffer.from(text, "latin1")));
    const value = parser.value(parser.token()) as Map<string, unknown>;
    expect(value.get("A")).toEqual({ ref: 12 });
    expect(value.get("B")).toEqual([1, -2.5, 0.5, { string: true }, { string: true }, { name: "N#20x" }]);
    expect(value.get("C")).toEqual(
      new Map<string, unknown>([
        ["D", true],
        ["E", null],
      ]),
    );
    // `3 4` without `R` is no reference: the dictionary's value is 3, and 4 is left over, an error.
    const odd = new PdfParser(new PdfLexer(Buffer.from("<< /F 3 4 >>")));
    expect(() => odd.value(odd.token())).toThrow(SyntaxError);
  });
});
