import { describe, expect, it } from "vitest";
import { COLOUR } from "../fixtures/pages.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, useE2E } from "../helpers/setup.js";

forEachEngine((engine) => {
  const e2e = useE2E({ engine });
  const SMALL = { width: 400, height: 300 };

  /** Cookie names in a Cookie header. */
  function cookieNames(header: string | undefined): string[] {
    return (header ?? "")
      .split(/;\s*/)
      .filter(Boolean)
      .map((pair) => pair.split("=")[0] ?? "")
      .sort();
  }

  describe("renders share no browser state", () => {
    it("cookies and localStorage of one render are gone in the next render of the same origin", async () => {
      // Render 1: the server sets a cookie, the page sets another and a localStorage item,
      // then fetches /state-probe, which proves both cookies are live inside this render.
      await e2e.render("/set-state", { ...SMALL, wait_for: "#done" });
      expect(cookieNames(e2e.fixture.requestsTo("/state-probe").at(-1)?.headers.cookie)).toEqual(["js_cookie", "server_cookie"]);

      // Render 2, same renderer, same origin: no cookie sent, none visible, no localStorage.
      const image = await decodeRender(await e2e.render("/check-state", SMALL));
      expect(e2e.fixture.requestsTo("/check-state").at(-1)?.headers.cookie).toBeUndefined();
      expectColour(image, 200, 150, COLOUR.green);
    });

    it("cookies given as an option apply to that render only", async () => {
      await e2e.render("/echo", { ...SMALL, cookies: ["only_once=1"] });
      expect(e2e.fixture.requestsTo("/echo").at(-1)?.headers.cookie).toBe("only_once=1");
      await e2e.render("/echo", SMALL);
      expect(e2e.fixture.requestsTo("/echo").at(-1)?.headers.cookie).toBeUndefined();
    });

    it("emulation settings do not carry over (dark mode, then the default)", async () => {
      expectColour(await decodeRender(await e2e.render("/dark", { ...SMALL, dark_mode: true })), 200, 150, COLOUR.black);
      expectColour(await decodeRender(await e2e.render("/dark", SMALL)), 200, 150, COLOUR.white);
    });
  });
});
