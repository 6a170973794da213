import { pageSizePt, pdfPlacement, pdfSvgToArea } from "@renderkit/format-svg";
import { describe, expect, it } from "vitest";
import { parseSvg } from "./fixtures.js";

const POPPLER = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="960pt" height="696pt" viewBox="0 0 960 696" version="1.2">
<defs><clipPath id="clip1"><path d="M 0 0 L 960 0 L 960 696 L 0 696 Z"/></clipPath></defs>
<path style="stroke:none;fill:rgb(100%,0%,0%);" d="M 30 450 L 330 450 L 330 600 L 30 600 Z"/>
</svg>
`;

describe("pdfPlacement", () => {
  it("is 0.75 pt per CSS px, unshifted, on pages Chromium keeps exact", () => {
    expect(pdfPlacement(960, 696)).toEqual({ scale: 0.75, offsetX: 0, offsetY: 0 });
    expect(pdfPlacement(756, 750, 1008 / 1001).scale).toBeCloseTo(0.755245, 6);
  });

  it("reproduces Chromium's shrink-to-fit of rounded pages (measured matrices)", () => {
    // 1280×925 px → 960×694.08 pt, content matrix(0.749007,0,0,0.749007,0.635423,0)
    const tall = pdfPlacement(960, 694.08);
    expect(tall.scale).toBeCloseTo(0.749007, 6);
    expect(tall.offsetX).toBeCloseTo(0.635423, 4);
    expect(tall.offsetY).toBeCloseTo(0, 6);
    // 1366×800 px → 1025.04×600 pt, content matrix(0.749298,0,0,0.749298,0,0.280725)
    const wide = pdfPlacement(1025.04, 600);
    expect(wide.scale).toBeCloseTo(0.749298, 6);
    expect(wide.offsetX).toBeCloseTo(0, 6);
    expect(wide.offsetY).toBeCloseTo(0.280725, 4);
  });
});

describe("pageSizePt", () => {
  it("reads the viewBox, else width and height in points", () => {
    expect(pageSizePt('<svg viewBox="0 0 960 696" width="1pt">')).toEqual({ width: 960, height: 696 });
    expect(pageSizePt('<svg width="750.95996pt" height="600pt">')).toEqual({ width: 750.95996, height: 600 });
    expect(() => pageSizePt("<svg>")).toThrow(/page size/);
  });
});

describe("pdfSvgToArea", () => {
  it("makes one user unit one CSS px of the area, with a white ground", () => {
    const svg = pdfSvgToArea(POPPLER, { x: 40, y: 600, width: 400, height: 200 }, { printScale: 1, transparent: false });
    const nodes = parseSvg(svg);
    expect(nodes[0]).toMatchObject({ name: "svg", attributes: { width: "400", height: "200", viewBox: "0 0 400 200" } });
    expect(nodes[1]).toMatchObject({ name: "rect", attributes: { width: "400", height: "200", fill: "#fff" } });
    // pt → px is ×4/3, then the area's origin moves to 0,0: the red box (40,600 px) lands at 0,0.
    const k = 4 / 3;
    expect(nodes[2]).toMatchObject({
      name: "g",
      attributes: { transform: `matrix(${+k.toFixed(6)} 0 0 ${+k.toFixed(6)} -40 -600)` },
    });
    expect(svg.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    expect(nodes.filter((n) => n.name === "svg")).toHaveLength(1);
  });

  it("leaves the ground out when transparent, and refuses output without an <svg>", () => {
    const nodes = parseSvg(pdfSvgToArea(POPPLER, { x: 0, y: 0, width: 1280, height: 928 }, { printScale: 1, transparent: true }));
    expect(nodes[1]?.name).toBe("g");
    expect(() => pdfSvgToArea("<html/>", { x: 0, y: 0, width: 1, height: 1 }, { printScale: 1, transparent: true })).toThrow();
  });
});
