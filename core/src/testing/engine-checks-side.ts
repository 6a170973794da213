import { expect } from "vitest";
import type { EngineHarness } from "./engine-harness.js";

/**
 * The optional primitives side renders use: the MHTML snapshot (`snapshot` capability), the
 * context's cookies, the main document's response headers and the request log. An engine that
 * offers a method must answer as its contract says; one that lacks it is skipped here (the core
 * refuses the options that need it).
 */
export function sideChecks(h: EngineHarness): void {
  h.check(
    "snapshot is an MHTML document of the live DOM",
    async () => {
      await h.withPage({ url: h.url("/") }, {}, async (s) => {
        const mhtml = await s.snapshot?.();
        expect(mhtml).toMatch(/^From: <Saved by Blink>/);
        expect(mhtml).toMatch(/Content-Type: multipart\/related/i);
        // Quoted-printable: soft line breaks join lines.
        expect(mhtml?.replaceAll("=\r\n", "")).toContain("built by script");
      });
    },
    "snapshot",
  );

  h.check("cookies lists the context's cookies: the request's own and those the page set", async () => {
    const cookies = [{ name: "sent", value: "by-request", domain: "127.0.0.1", path: "/" }];
    await h.withPage({ url: h.url("/storage") }, { cookies }, async (s) => {
      if (!s.cookies) return;
      await s.evaluate("() => { document.cookie = 'made=by-script; path=/'; }");
      const seen = await s.cookies();
      const byName = Object.fromEntries(seen.map((c) => [c.name, c]));
      expect(byName.sent).toMatchObject({ value: "by-request", domain: "127.0.0.1", path: "/", expires: -1 });
      expect(byName.made).toMatchObject({ value: "by-script", path: "/" });
    });
  });

  h.check("response carries the main document's headers in lower case; supplied html has none", async () => {
    await h.withPage({ url: h.url("/to-home") }, {}, async (s) => {
      if (s.response.headers === undefined) return;
      expect(s.response.status).toBe(200);
      expect(s.response.headers["content-type"]).toBe("text/html; charset=utf-8");
    });
    await h.withPage({ html: "<p>supplied</p>" }, {}, async (s) => {
      expect(s.response.headers).toBeUndefined();
    });
  });

  h.check("resources lists the page's requests only when recording was asked for", async () => {
    await h.withPage({ url: h.url("/echo") }, { recordResources: true }, async (s) => {
      if (!s.resources) return;
      const report = s.resources();
      const paths = (report?.requests ?? []).map((r) => new URL(r.url).pathname);
      expect(paths).toEqual(expect.arrayContaining(["/echo", "/pixel"]));
      const page = report?.requests.find((r) => new URL(r.url).pathname === "/echo");
      expect(page).toMatchObject({ type: "document", method: "GET", status: 200, failed: false, blocked: false });
    });
    await h.withPage({ url: h.url("/echo") }, {}, async (s) => {
      expect(s.resources?.()).toBeUndefined();
    });
  });
}
