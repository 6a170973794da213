import type { RenderResult } from "@renderkit/core";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CLICK_ALL,
  DIALOG,
  HOVER,
  INTERACTION_ROUTES,
  INTERACTION_VIEWPORT,
  SCROLL_BANDS,
} from "../fixtures/interaction-pages.js";
import { COLOUR } from "../fixtures/pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

type Rgb = readonly [number, number, number];
const MID = { x: INTERACTION_VIEWPORT.width / 2, y: INTERACTION_VIEWPORT.height / 2 };
/** The smallest `wait_timeout`: bounds how long a step looks for an element that never comes. */
const QUICK = { wait_timeout: 1000 } as const;

/*
 * Each option's engine-dependent effect (a click, a hover, a key press, a scroll, a wait) is checked
 * on both engines with one render; the core's logic around it (skipping or failing on a missing
 * element, several selectors, option errors, controls) is checked once, on one engine
 * (`onOneEngine`). The engine primitives are also covered per engine by the engine contract.
 */
forEachEngine((engine) => {
  const once = onOneEngine(engine);
  let fixture: FixtureServer;
  let started: TestRenderer;

  beforeAll(async () => {
    fixture = await startFixtureServer(INTERACTION_ROUTES);
    started = await startRenderer([`127.0.0.1:${fixture.port}`], {}, engine);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  const render = (path: string, options: Record<string, unknown> = {}): Promise<RenderResult> =>
    started.renderer.render({ url: `${fixture.url}${path}`, ...INTERACTION_VIEWPORT, ...options });

  /** Renders and checks the colour at each point. */
  async function expectPoints(path: string, options: Record<string, unknown>, points: [{ x: number; y: number }, Rgb][]) {
    const image = await decodeRender(await render(path, options));
    for (const [{ x, y }, colour] of points) expectColour(image, x, y, colour);
  }

  /** The render fails with `code`; its message names `option`. */
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

  describe("click_all", () => {
    it("clicks every match of the selector and nothing else", async () => {
      // `#other` looks like the boxes but does not match: it is the unclicked control.
      const [a, b, c] = CLICK_ALL.boxes;
      await expectPoints("/click-all", { click_all: ".box" }, [
        [a, COLOUR.green],
        [b, COLOUR.green],
        [c, COLOUR.green],
        [CLICK_ALL.other, COLOUR.red],
      ]);
    });

    once(
      "several selectors are clicked in turn; one matching nothing is skipped, or fails with fail_if_selector_missing",
      async () => {
        const [a, b, c] = CLICK_ALL.boxes;
        await expectPoints("/click-all", { click_all: ["#nothing", ".box", "#other"] }, [
          [a, COLOUR.green],
          [b, COLOUR.green],
          [c, COLOUR.green],
          [CLICK_ALL.other, COLOUR.green],
        ]);
        await expectFailure(
          "/click-all",
          { click_all: "#nothing", fail_if_selector_missing: true },
          "EngineResponseNotOkError",
          "click_all",
        );
      },
    );
  });

  describe("press_escape", () => {
    it("closes a dialog that listens for Escape", async () => {
      // The panel beside it, painted the same but never closed, is the control.
      await expectPoints("/dialog", { press_escape: true }, [
        [DIALOG.dialog, COLOUR.green],
        [DIALOG.control, COLOUR.magenta],
      ]);
    });
  });

  describe("scroll_to", () => {
    it("a selector scrolls its element to the top of the viewport capture", async () => {
      await expectPoints("/scroll", { scroll_to: "#target" }, [
        [{ x: MID.x, y: 2 }, SCROLL_BANDS.bottom],
        [MID, SCROLL_BANDS.bottom],
      ]);
    });

    once("a missing element leaves the page at the top, or fails with fail_if_selector_missing", async () => {
      // Also the control of the other checks: unscrolled, the viewport shows the top band.
      await expectPoints("/scroll", { scroll_to: "#missing" }, [
        [{ x: MID.x, y: 2 }, SCROLL_BANDS.top],
        [MID, SCROLL_BANDS.top],
      ]);
      await expectFailure(
        "/scroll",
        { scroll_to: "#missing", fail_if_selector_missing: true },
        "EngineResponseNotOkError",
        "scroll_to",
      );
    });

    once(
      "digits scroll the window to exactly that offset, also with disable_js (the page's timers and frames never fire then)",
      async () => {
        // 50 px above the middle band: the top band's last 50 px, then the middle band. Without
        // JavaScript the capture must still paint the scrolled frame (the selector check runs with it).
        await expectPoints("/scroll", { disable_js: true, scroll_to: String(SCROLL_BANDS.middleOffset - 50) }, [
          [{ x: MID.x, y: 25 }, SCROLL_BANDS.top],
          [{ x: MID.x, y: 75 }, SCROLL_BANDS.middle],
          [MID, SCROLL_BANDS.middle],
        ]);
      },
    );

    once("full_page still captures the whole document", async () => {
      const image = await decodeRender(await render("/scroll", { scroll_to: "#target", full_page: true }));
      expect(image.height).toBe(3000);
      expectColour(image, MID.x, 10, SCROLL_BANDS.top);
      expectColour(image, MID.x, 2500, SCROLL_BANDS.bottom);
    });
  });

  describe("hover", () => {
    it("applies :hover styles to the hovered element only", async () => {
      await expectPoints("/hover", { hover: "#first" }, [
        [HOVER.first, HOVER.first.hovered],
        [HOVER.second, HOVER.second.colour],
      ]);
    });

    once(
      "with several selectors the last one stays hovered; one matching nothing is skipped, or fails with fail_if_selector_missing",
      async () => {
        // wait_timeout also bounds how long hover looks for a visible match, and each hover: 2 s
        // leaves the present cells room on a loaded machine; the lone missing one needs none.
        await expectPoints("/hover", { wait_timeout: 2000, hover: ["#first", "#missing", "#second"] }, [
          [HOVER.first, HOVER.first.colour],
          [HOVER.second, HOVER.second.hovered],
        ]);
        await expectFailure(
          "/hover",
          { ...QUICK, hover: "#missing", fail_if_selector_missing: true },
          "EngineResponseNotOkError",
          "hover",
        );
      },
    );
  });

  describe("wait_for", () => {
    it("captures an element that appears 500 ms after load", async () => {
      await expectPoints("/late", { wait_for: "#late" }, [[MID, COLOUR.green]]);
    });

    once(
      "an element that never comes: capture goes on after wait_timeout (also with fail_if_selector_present), or fails with fail_if_selector_missing",
      async () => {
        await expectPoints("/static", { ...QUICK, wait_for: "#never", fail_if_selector_present: true }, [
          [{ x: 50, y: 50 }, COLOUR.red],
          [MID, COLOUR.white],
        ]);
        await expectFailure(
          "/static",
          { ...QUICK, wait_for: "#never", fail_if_selector_missing: true },
          "EngineResponseNotOkError",
          "wait_for",
        );
      },
    );

    once("fail_if_selector_present fails when the element is there", async () => {
      await expectFailure(
        "/static",
        { wait_for: "#present", fail_if_selector_present: true },
        "EngineResponseNotOkError",
        "wait_for",
      );
    });
  });

  once("a malformed selector is InvalidOptions naming its option (click_all, scroll_to, hover, wait_for)", async () => {
    for (const option of ["click_all", "scroll_to", "hover", "wait_for"]) {
      await expectFailure("/static", { [option]: "##bad[" }, "InvalidOptions", option);
    }
  });
});
