import { describe, expect, it } from "vitest";
import { BLOCKS, COLOUR, centre } from "../fixtures/pages.js";
import { expectRenderError } from "../helpers/errors.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, onOneEngine, useE2E } from "../helpers/setup.js";

forEachEngine((engine) => {
  const e2e = useE2E({ engine });
  const once = onOneEngine(engine);
  /** Small viewport: these tests look at one pixel, not at the image size. */
  const SMALL = { width: 400, height: 300 };
  const MID = { x: 200, y: 150 };

  /** Renders `path` at a small viewport and checks the colour in its middle. */
  async function middle(path: string, options: Record<string, unknown>, colour: readonly [number, number, number]) {
    const image = await decodeRender(await e2e.render(path, { ...SMALL, ...options }));
    expectColour(image, MID.x, MID.y, colour);
  }

  /** The last request the fixture server received for `path`. */
  function lastRequest(path: string) {
    const request = e2e.fixture.requestsTo(path).at(-1);
    if (!request) throw new Error(`the fixture server received no request for ${path}`);
    return request;
  }

  describe("waiting", () => {
    it("captures right after load without delay, and after the page changed with delay", async () => {
      // The page turns green 2 s after load.
      await middle("/delayed", {}, COLOUR.red);
      await middle("/delayed", { delay: 2300 }, COLOUR.green);
    });

    it("wait_for waits for an element added after 1 s", async () => {
      await middle("/late", { wait_for: "#late" }, COLOUR.green);
    });

    it("wait_to_leave waits for a spinner removed after 1 s", async () => {
      await middle("/spinner", { wait_to_leave: "#spinner" }, COLOUR.white);
    });

    it.each(["domloaded", "loaded", "requestsfinished", "mostrequestsfinished"])(
      "wait_until %s renders a normal page",
      async (w) => {
        const image = await decodeRender(await e2e.render("/blocks", { wait_until: w }));
        expectColour(image, centre(BLOCKS.red).x, centre(BLOCKS.red).y, COLOUR.red);
      },
    );

    it("wait_until requestsfinished waits for a fetch started after load", async () => {
      await middle("/late-fetch", { wait_until: "requestsfinished" }, COLOUR.green);
    });
  });

  describe("page changes", () => {
    it("hide_selector hides the matching elements", async () => {
      const image = await decodeRender(await e2e.render("/blocks", { hide_selector: ".red, #nothing" }));
      expectColour(image, centre(BLOCKS.red).x, centre(BLOCKS.red).y, COLOUR.white);
      expectColour(image, centre(BLOCKS.green).x, centre(BLOCKS.green).y, COLOUR.green);
    });

    it("click clicks before capture", async () => {
      await middle("/click", {}, COLOUR.white);
      await middle("/click", { click: "#go" }, COLOUR.green);
    });

    it("css is injected", async () => {
      await middle("/echo", { css: "body { background: rgb(0, 0, 255) !important; }" }, COLOUR.blue);
    });

    it("js runs with top-level await", async () => {
      const js = `await new Promise((r) => setTimeout(r, 50));
document.body.style.background = "rgb(0, 255, 0)";`;
      await middle("/echo", { js }, COLOUR.green);
    });

    it("js that throws fails the render with the error", async () => {
      const error = await expectRenderError(
        e2e.render("/echo", { js: "throw new Error('boom in page')" }),
        "EngineResponseNotOkError",
      );
      expect(error.message).toContain("boom in page");
    });
  });

  describe("request to the site", () => {
    it("user_agent, headers and cookies reach the server", async () => {
      await e2e.render("/echo", {
        ...SMALL,
        user_agent: "renderkit-e2e/1.0",
        headers: ["X-Test-One=alpha", "X-Test-Two: beta"],
        cookies: ["session=abc123", "theme=dark; Path=/"],
      });
      const { headers } = lastRequest("/echo");
      expect(headers["user-agent"]).toBe("renderkit-e2e/1.0");
      expect(headers["x-test-one"]).toBe("alpha");
      expect(headers["x-test-two"]).toBe("beta");
      const cookies = (headers.cookie ?? "").split(/;\s*/).sort();
      expect(cookies).toEqual(["session=abc123", "theme=dark"]);
    });

    it("accept_lang sets the Accept-Language header and navigator.language", async () => {
      await middle("/probe?what=lang&want=de-DE", { accept_lang: "de-DE" }, COLOUR.green);
      expect(lastRequest("/probe").headers["accept-language"]).toMatch(/^de-DE/);
    });

    it("accept_lang defaults to en-US", async () => {
      await middle("/probe?what=lang&want=en-US", {}, COLOUR.green);
      expect(lastRequest("/probe").headers["accept-language"]).toMatch(/^en-US/);
    });

    it("tz sets the page's time zone (default UTC)", async () => {
      await middle("/probe?what=tz&want=Asia/Tokyo", { tz: "Asia/Tokyo" }, COLOUR.green);
      await middle("/probe?what=tz&want=UTC", {}, COLOUR.green);
    });

    once("user_agent presets mobile and desktop send a Chrome user agent of that kind", async () => {
      await e2e.render("/echo", { ...SMALL, user_agent: "mobile" });
      expect(lastRequest("/echo").headers["user-agent"]).toMatch(/^Mozilla\/5\.0 \(Linux; Android.*Chrome\/.* Mobile Safari/);
      await e2e.render("/echo", { ...SMALL, user_agent: "desktop" });
      expect(lastRequest("/echo").headers["user-agent"]).toMatch(/^Mozilla\/5\.0 \(Windows NT.*Chrome\/[\d.]+ Safari/);
    });

    once("bad free-text options are refused when the request is parsed, before anything is queued", () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ tz: "Mars/Base" }, "tz"],
        [{ accept_lang: "!!" }, "accept_lang"],
        [{ headers: "nocolon" }, "headers"],
        [{ headers: ["Host=evil.example"] }, "headers"],
        [{ cookies: "=x" }, "cookies"],
        [{ cookies: "a=b;Domain=.." }, "cookies"],
        [{ cookies: "a=b\u0001" }, "cookies"],
        [{ cookies: "a b=c" }, "cookies"],
        [{ user_agent: "a\nb" }, "user_agent"],
        [{ format: "pdf", pdf_margin_left: "3000px", pdf_margin_right: "3000px" }, "pdf_margin_left"],
        [{ format: "pdf", pdf_margin_top: "99999999cm" }, "pdf_margin_top"],
        [{ format: "pdf", pdf_page_range: "first" }, "pdf_page_range"],
      ];
      for (const [options, option] of cases) {
        let error: { code?: string; details?: { option?: string } } | undefined;
        try {
          e2e.renderer.parse({ url: e2e.fixture.url("/echo"), ...options });
        } catch (thrown) {
          error = thrown as typeof error;
        }
        expect(error, JSON.stringify(options)).toMatchObject({ code: "InvalidOptions", details: { option } });
      }
      // A cookie without a Domain cannot be set for supplied HTML.
      expect(() => e2e.renderer.parse({ html: "<p>x</p>", cookies: "a=1" })).toThrow(/Domain/);
    });
  });

  describe("emulation", () => {
    it("dark_mode switches prefers-color-scheme", async () => {
      await middle("/dark", {}, COLOUR.white);
      await middle("/dark", { dark_mode: true }, COLOUR.black);
    });

    it("reduced_motion switches prefers-reduced-motion", async () => {
      await middle("/motion", {}, COLOUR.red);
      await middle("/motion", { reduced_motion: true }, COLOUR.green);
    });
  });

  describe("fail_on_4xx / fail_on_5xx", () => {
    it("a 404 page renders unless fail_on_4xx", async () => {
      const result = await e2e.render("/status?code=404", SMALL);
      expect(result.size).toBeGreaterThan(0);
      const error = await expectRenderError(
        e2e.render("/status?code=404", { ...SMALL, fail_on_4xx: true }),
        "EngineResponseNotOkError",
      );
      expect(error.message).toContain("404");
    });

    it("a 500 page renders unless fail_on_5xx; fail_on_4xx does not refuse it", async () => {
      await e2e.render("/status?code=500", SMALL);
      await e2e.render("/status?code=500", { ...SMALL, fail_on_4xx: true });
      const error = await expectRenderError(
        e2e.render("/status?code=500", { ...SMALL, fail_on_5xx: true }),
        "EngineResponseNotOkError",
      );
      expect(error.message).toContain("500");
    });
  });
});
