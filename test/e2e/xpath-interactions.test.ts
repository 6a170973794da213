import type { RenderResult } from "@renderkit/core";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COLOUR } from "../fixtures/pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/*
 * click_x, click_all_x and scroll_to_x (the XPath variants of click, click_all and scroll_to),
 * rendered on both engines and checked in the output's pixels. XPath-only matches (by text, by a
 * child) are used so that a CSS fallback could not pass. The core's logic around them (missing
 * elements, option errors) is checked once (`onOneEngine`).
 */

type Rgb = readonly [number, number, number];
const VIEWPORT = { width: 400, height: 300 } as const;
const rgb = (c: Rgb) => `rgb(${c.join(",")})`;
const page = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>xpath fixture</title><style>body{margin:0;background:#fff}
.cell{position:absolute;width:100px;height:100px;background:${rgb(COLOUR.red)};color:transparent;font-size:10px}</style></head><body>${body}</body></html>`;

/** A red cell at (left, top) with `text`, turning green when clicked. */
const cell = (id: string, left: number, top: number, text: string) =>
  `<div id="${id}" class="cell" style="left:${left}px;top:${top}px" onclick="this.style.background='${rgb(COLOUR.green)}'">${text}</div>`;

/** `/cells`: `go` cells a, b, c and a `stop` cell on the first row (a hidden `go` between them); a quoted one below. */
const CELLS = {
  go: [
    { x: 50, y: 50 },
    { x: 150, y: 50 },
    { x: 250, y: 50 },
  ],
  stop: { x: 350, y: 50 },
  quoted: { x: 50, y: 150 },
} as const;

/**
 * `/order`: four steps; each click appends its number, and the panel turns green when the
 * sequence is 1,2,3,4 (blue for any other sequence, red before any click).
 */
const ORDER_PANEL = { x: 200, y: 250 } as const;

/** `/bands`: three 1000 px bands (red, green, blue); the blue one holds the "Chapter three" heading. */
const BANDS = { top: COLOUR.red, middle: COLOUR.green, bottom: COLOUR.blue } as const;

/** `/tick`: a checkbox; a panel beside it turns green while it is checked (CSS only: no page script needed). */
const TICK_PANEL = { x: 300, y: 150 } as const;

const step = (n: number, left: number) =>
  `<div class="cell step" style="left:${left}px;top:0" onclick="record(${n})">step ${n}</div>`;

const ROUTES = {
  "/cells": page(
    `${cell("a", 0, 0, "go")}${cell("b", 100, 0, "go")}<div style="display:none">go</div>${cell("c", 200, 0, "go")}${cell("other", 300, 0, "stop")}
${cell("quoted", 0, 100, `it's "here"`)}`,
  ),
  "/order": page(
    `${step(1, 0)}${step(2, 100)}${step(3, 200)}${step(4, 300)}
<div id="panel" style="position:absolute;left:0;top:200px;width:400px;height:100px;background:${rgb(COLOUR.red)}"></div>
<script>const seen = []; function record(n) { seen.push(n);
  document.getElementById("panel").style.background = seen.join() === "1,2,3,4" ? "${rgb(COLOUR.green)}" : "${rgb(COLOUR.blue)}"; }</script>`,
  ),
  "/bands": page(
    `<div style="height:1000px;background:${rgb(BANDS.top)}"></div><div style="height:1000px;background:${rgb(BANDS.middle)}"></div>
<div style="height:1000px;background:${rgb(BANDS.bottom)}"><p style="margin:0;color:transparent">Chapter three</p></div>`,
  ),
  "/tick": page(
    `<style>#tick{position:absolute;left:0;top:0;width:100px;height:100px;margin:0}
#state{position:absolute;left:200px;top:0;width:200px;height:300px;background:${rgb(COLOUR.red)}}
#tick:checked ~ #state{background:${rgb(COLOUR.green)}}</style><input type="checkbox" id="tick" title="agree"><div id="state"></div>`,
  ),
};

forEachEngine((engine) => {
  const once = onOneEngine(engine);
  let fixture: FixtureServer;
  let started: TestRenderer;

  beforeAll(async () => {
    fixture = await startFixtureServer(ROUTES);
    started = await startRenderer([`127.0.0.1:${fixture.port}`], {}, engine);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  const render = (path: string, options: Record<string, unknown> = {}): Promise<RenderResult> =>
    started.renderer.render({ url: `${fixture.url}${path}`, ...VIEWPORT, ...options });

  async function expectPoints(path: string, options: Record<string, unknown>, points: [{ x: number; y: number }, Rgb][]) {
    const image = await decodeRender(await render(path, options));
    expect({ width: image.width, height: image.height }).toEqual(VIEWPORT);
    for (const [{ x, y }, colour] of points) expectColour(image, x, y, colour);
  }

  /** The render fails with `code`, naming `option`. */
  async function expectFailure(
    path: string,
    options: Record<string, unknown>,
    code: "InvalidOptions" | "EngineResponseNotOkError",
    option: string,
  ) {
    const error = await expectRenderError(render(path, options), code);
    expect(error.message).toContain(option);
    if (code === "InvalidOptions") expect(error.details).toMatchObject({ option });
    return error;
  }

  describe("click_x", () => {
    it("clicks the first element each expression selects, in order; quotes and line breaks pass through", async () => {
      const [a, b, c] = CELLS.go;
      await expectPoints("/cells", { click_x: ["//div[text()='go']", `//div[contains(., "it's")]\n[contains(., '"here"')]`] }, [
        [a, COLOUR.green],
        [b, COLOUR.red],
        [c, COLOUR.red],
        [CELLS.stop, COLOUR.red],
        [CELLS.quoted, COLOUR.green],
      ]);
    });

    it("clicks without page scripts (disable_js): the browser toggles a checkbox itself", async () => {
      await expectPoints("/tick", { disable_js: true, click_x: "//input[@title='agree']" }, [[TICK_PANEL, COLOUR.green]]);
    });

    once("control: without it nothing is clicked", async () => {
      await expectPoints("/tick", { disable_js: true }, [[TICK_PANEL, COLOUR.red]]);
      await expectPoints("/cells", {}, [
        [CELLS.go[0], COLOUR.red],
        [CELLS.quoted, COLOUR.red],
      ]);
    });
  });

  describe("click_all_x", () => {
    it("clicks every visible element the expression selects and nothing else", async () => {
      const [a, b, c] = CELLS.go;
      await expectPoints("/cells", { click_all_x: "//div[normalize-space()='go']" }, [
        [a, COLOUR.green],
        [b, COLOUR.green],
        [c, COLOUR.green],
        [CELLS.stop, COLOUR.red],
        [CELLS.quoted, COLOUR.red],
      ]);
    });
  });

  once("the order is click, click_x, click_all, click_all_x", async () => {
    await expectPoints(
      "/order",
      {
        click_all_x: "//div[text()='step 4']",
        click_all: ".step:nth-child(3)",
        click_x: "//div[contains(@class, 'step')][2]",
        click: ".step:first-child",
      },
      [[ORDER_PANEL, COLOUR.green]],
    );
    // Control: the same steps in another order paint the panel blue.
    await expectPoints("/order", { click_x: "//div[text()='step 2']", click: ".step:nth-child(3)" }, [
      [ORDER_PANEL, COLOUR.blue],
    ]);
  });

  describe("scroll_to_x", () => {
    it("scrolls the first element it selects to the top of the viewport", async () => {
      await expectPoints("/bands", { scroll_to_x: "//div[p[text()='Chapter three']]" }, [
        [{ x: 200, y: 2 }, BANDS.bottom],
        [{ x: 200, y: 298 }, BANDS.bottom],
      ]);
    });

    once("digits scroll the window to that offset, as scroll_to does", async () => {
      await expectPoints("/bands", { scroll_to_x: "950" }, [
        [{ x: 200, y: 25 }, BANDS.top],
        [{ x: 200, y: 75 }, BANDS.middle],
      ]);
    });

    once("full_page still captures the whole document", async () => {
      const image = await decodeRender(await render("/bands", { scroll_to_x: "//p", full_page: true }));
      expect(image.height).toBe(3000);
      expectColour(image, 200, 10, BANDS.top);
      expectColour(image, 200, 2500, BANDS.bottom);
    });

    once("cannot be combined with scroll_to", async () => {
      const error = await expectFailure("/bands", { scroll_to: "p", scroll_to_x: "//p" }, "InvalidOptions", "scroll_to_x");
      expect(error.message).toBe(
        "Option scroll_to_x cannot be used with scroll_to: the page scrolls to one place (give one of them)",
      );
    });
  });

  once("nothing matching is skipped, or fails the render with fail_if_selector_missing", async () => {
    const missing = "//div[@id='nowhere']";
    await expectPoints("/bands", { scroll_to_x: missing }, [[{ x: 200, y: 150 }, BANDS.top]]);
    await expectPoints("/cells", { click_x: [missing, "//div[text()='stop']"], click_all_x: missing }, [
      [CELLS.go[0], COLOUR.red],
      [CELLS.stop, COLOUR.green],
    ]);
    for (const option of ["click_x", "click_all_x", "scroll_to_x"]) {
      const error = await expectFailure(
        "/cells",
        { [option]: missing, fail_if_selector_missing: true },
        "EngineResponseNotOkError",
        option,
      );
      expect(error.message).toContain(`nothing`);
      expect(error.message).toContain(missing);
    }
  });

  once("a malformed expression is refused before the page is loaded, naming the option", async () => {
    const cases: [string, string, string][] = [
      ["click_x", "//div[", 'Option click_x "//div[" is not an XPath 1.0 expression: expected'],
      ["click_all_x", "//div[lower-case(.)='go']", "unknown function lower-case()"],
      ["scroll_to_x", "//svg:rect", "namespace prefixes are not supported"],
      ["click_x", "//div[@id=$id]", "variables are not supported"],
    ];
    for (const [option, expression, message] of cases) {
      const before = fixture.requests.length;
      const error = await expectFailure("/cells", { [option]: expression }, "InvalidOptions", option);
      expect(error.message).toContain(message);
      expect(fixture.requests.length).toBe(before);
    }
  });

  once("an expression that selects no elements (text, a number) is refused in the page, naming the option", async () => {
    const text = await expectFailure("/cells", { click_x: "//div/text()" }, "InvalidOptions", "click_x");
    expect(text.message).toBe(
      'Option click_x "//div/text()" is not an XPath expression selecting elements (it selects nodes that are not elements (text or attributes))',
    );
    const number = await expectFailure("/bands", { scroll_to_x: "count(//p)" }, "InvalidOptions", "scroll_to_x");
    expect(number.message).toMatch(/^Option scroll_to_x "count\(\/\/p\)" is not an XPath expression selecting elements \(/);
  });
});
