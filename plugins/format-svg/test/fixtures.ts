import { XMLParser, XMLValidator } from "fast-xml-parser";
import pixelmatch from "pixelmatch";
import sharp from "sharp";

/**
 * 1280 px wide, 1500 px tall: a gradient header, cards with text, coloured blocks, a list with
 * bullets and a link, a small PNG, a 400×200 element at (40, 600) for `selector`, and text built
 * by script. No shadows or filters: Chromium rasterises blurs into images, which this page must
 * not contain so that any page-sized `<image>` means a raster wrapper.
 */
export const PAGE = `<!doctype html><html><head><title>svg fixture</title><style>
body{margin:0;font-family:"Liberation Sans",sans-serif;background:#f4f6fb;color:#123}
header{height:120px;background:linear-gradient(90deg,#1e3c72,#2a5298 50%,#e96443);color:#fff;padding:24px;box-sizing:border-box}
h1{margin:0;font-size:40px}
.row{display:flex;gap:24px;padding:32px;height:400px;box-sizing:border-box}
.card{flex:1;background:#fff;border-radius:12px;padding:20px;border:2px solid #c5d0e6}
.card h2{margin:0 0 8px;font-size:22px;color:#2a5298}
.block{width:160px;height:90px;background:#e96443;display:inline-block;margin-right:16px}
.block.b{background:#2a9d8f}
#target{position:absolute;left:40px;top:600px;width:400px;height:200px;box-sizing:border-box;padding:24px;background:#fff;border:4px solid #2a9d8f}
footer{position:absolute;top:900px;left:0;right:0;height:600px;padding:32px;box-sizing:border-box;font-size:14px;background:#e9edf5}
</style></head><body>
<header><h1>Quarterly report</h1><div>Generated for renderkit fixtures</div></header>
<div class="row">
 <div class="card"><h2>Revenue</h2><p>Revenue grew by twelve percent compared with last year.</p><ul><li>Subscriptions</li><li><a href="#x">Licensing</a></li></ul></div>
 <div class="card"><h2>Costs</h2><p>Costs stayed flat after the migration.</p><div class="block"></div><div class="block b"></div></div>
 <div class="card"><h2>Outlook</h2><p>We expect steady growth.</p><img src="/logo.png" width="64" height="48" alt="logo"></div>
</div>
<div id="target"><h2>Target element</h2><p>Captured alone with selector.</p></div>
<footer>${"Footer text with several words to wrap across the page. ".repeat(20)}<p id="js"></p></footer>
<script>document.getElementById('js').textContent = 'Built by script at load';</script>
</body></html>`;

/** Document height of `PAGE` (the footer ends at 1500 px). */
export const PAGE_HEIGHT = 1500;
/** The `#target` box of `PAGE`. */
export const TARGET = { x: 40, y: 600, width: 400, height: 200 };

/** The 64×48 PNG `PAGE` shows. */
export function logoPng(): Promise<Buffer> {
  return sharp({ create: { width: 64, height: 48, channels: 3, background: "#7b2cbf" } })
    .png()
    .toBuffer();
}

/** One element of a parsed SVG, with the names of its ancestors. */
export interface SvgNode {
  name: string;
  attributes: Record<string, string>;
  ancestors: string[];
  text: string;
}

type Ordered = Record<string, unknown> & { ":@"?: Record<string, string> };

/** Parses an SVG (failing the test on malformed XML) into a flat list of elements. */
export function parseSvg(svg: string): SvgNode[] {
  const valid = XMLValidator.validate(svg);
  if (valid !== true) throw new Error(`not well-formed XML: ${JSON.stringify(valid.err)}`);
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "", preserveOrder: true, trimValues: false });
  const nodes: SvgNode[] = [];
  const walk = (items: Ordered[], ancestors: string[]): string => {
    let text = "";
    for (const item of items) {
      const name = Object.keys(item).find((k) => k !== ":@")!;
      if (name === "#text") {
        text += String(item[name]);
        continue;
      }
      if (name.startsWith("?") || name === "#comment") continue;
      const node: SvgNode = { name, attributes: item[":@"] ?? {}, ancestors, text: "" };
      nodes.push(node);
      node.text = walk(item[name] as Ordered[], [...ancestors, name]);
      text += node.text;
    }
    return text;
  };
  walk(parser.parse(svg) as Ordered[], []);
  return nodes;
}

/** Share of pixels (0..1) that differ between a PNG and the SVG rasterised by librsvg at the PNG's size. */
export async function differingShare(svg: Uint8Array, png: Uint8Array): Promise<number> {
  const { width, height } = await sharp(png).metadata();
  const reference = await sharp(png).flatten({ background: "#fff" }).ensureAlpha().raw().toBuffer();
  const drawn = await sharp(svg, { density: 72 })
    .resize(width, height, { fit: "fill" })
    .flatten({ background: "#fff" })
    .ensureAlpha()
    .raw()
    .toBuffer();
  // pixelmatch's default threshold (0.1) and anti-aliasing detection: glyph edges rasterised by
  // Skia and by librsvg differ a little everywhere; those are not the differences looked for.
  return pixelmatch(reference, drawn, undefined, width, height, { threshold: 0.1 }) / (width * height);
}

/** A 200×100 box that is green (#00aa00) only when the layout viewport is exactly 1001 px wide, red otherwise. */
export const PROBE = `<!doctype html><style>body{margin:0}#probe{width:200px;height:100px;background:#f00}
@media (min-width:1001px) and (max-width:1001px){#probe{background:#0a0}}</style><div id="probe"></div>`;

/** RGB of one pixel of an SVG rasterised at its own size. */
export async function pixelAt(svg: Uint8Array, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(svg, { density: 72 })
    .flatten({ background: "#fff" })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at]!, data[at + 1]!, data[at + 2]!];
}

/** Markup that would be active content if copied into an SVG served from the render's origin. */
export const ACTIVE = `<!doctype html><body style="margin:0;font:20px sans-serif">
<a id="js-link" href="javascript:alert(1)">script link</a> <a href="https://example.com/">plain link</a>
<svg width="200" height="100" onload="alert(2)"><script>alert(3)</script>
<a href="javascript:alert(4)"><rect width="100" height="50" fill="#36c"/></a>
<set attributeName="fill" to="red" begin="0s"/><animate attributeName="href" values="javascript:alert(5)"/>
<circle cx="150" cy="50" r="40" fill="#c33" onclick="alert(6)"/></svg>
<img src="/logo.png" width="64" height="48" onerror="alert(7)"></body>`;
