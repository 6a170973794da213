import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../fixtures/server.js";
import { expectRenderError } from "../helpers/errors.js";
import { forEachEngine, startRenderer, type TestRenderer, useE2E } from "../helpers/setup.js";

forEachEngine((engine) => {
  const e2e = useE2E({ engine });
  const SMALL = { width: 400, height: 300 };

  /** A second loopback server on a port the renderer is NOT allowed to reach; it must stay untouched. */
  let outside: FixtureServer;
  beforeAll(async () => {
    outside = await startFixtureServer();
  });
  afterAll(() => outside.close());

  describe("timeouts", () => {
    it("a page that never finishes loading fails with RenderTimeoutError after `timeout`", async () => {
      const error = await expectRenderError(e2e.render("/hang", { ...SMALL, timeout: 5000 }), "RenderTimeoutError");
      // Cut by the page's own `timeout` (it names it), not by the stall guard or global_timeout;
      // a busy machine makes it later, never different.
      expect(error.message).toMatch(/timed? ?out|kept loading/i);
      expect(error.message).toMatch(/5000 ?ms/);
      expect(error.message).not.toMatch(/stalled|global_timeout/);
      expect(e2e.fixture.requestsTo("/hang").length).toBeGreaterThan(0);
    });
  });

  describe("address policy", () => {
    it("refuses a loopback port that is not in the allowlist", async () => {
      await expectRenderError(e2e.renderer.render({ url: outside.url("/blocks"), ...SMALL }), "InvalidURLError");
      expect(outside.connections).toBe(0);
    });

    it("refuses a redirect to a loopback port that is not in the allowlist", async () => {
      await expectRenderError(e2e.render(`/redirect?to=${outside.port}`, SMALL), "InvalidURLError");
      expect(e2e.fixture.requestsTo("/redirect")).toHaveLength(1);
      expect(outside.connections).toBe(0);
    });

    it("renders a page whose image, fetch, beacon and WebSocket target a refused address, without reaching it", async () => {
      const result = await e2e.render(`/leak?to=${outside.port}`, { ...SMALL, wait_until: "requestsfinished" });
      expect(result.size).toBeGreaterThan(0);
      expect(outside.connections).toBe(0);
      // Control: pointed at the allowed server, the same page does make these requests.
      await e2e.render(`/leak?to=${e2e.fixture.port}`, { ...SMALL, wait_until: "requestsfinished" });
      for (const path of ["/pixel.png", "/api", "/beacon", "/ws"]) expect(e2e.fixture.requestsTo(path), path).toHaveLength(1);
    });

    it("a page sent to a refused name learns nothing from the refusal: not where, nor whether, it resolves", async () => {
      const go = (url: string) => `<script>location.href = ${JSON.stringify(url)}</script>`;
      for (const url of [`http://localhost:${outside.port}/secret`, "http://no-such-host.invalid/"]) {
        const result = await e2e.renderer.render({ html: go(url), format: "html", wait_until: "requestsfinished" });
        const html = await readFile(result.path as string, "utf8");
        expect(html).toContain("renderkit refused this address");
        expect(html).not.toMatch(/127\.0\.0\.1|resolve|non-public/);
      }
      expect(outside.connections).toBe(0);
    });

    it("an iframe in supplied html does not reach a refused address", async () => {
      const frame = (url: string) => `<body><p>frame below</p><iframe src="${url}"></iframe></body>`;
      const result = await e2e.renderer.render({ html: frame(outside.url("/framed")), ...SMALL, wait_until: "requestsfinished" });
      expect(result.size).toBeGreaterThan(0);
      expect(outside.connections).toBe(0);
      // Control: an allowed iframe is loaded.
      await e2e.renderer.render({ html: frame(e2e.fixture.url("/framed")), ...SMALL, wait_until: "requestsfinished" });
      expect(e2e.fixture.requestsTo("/framed")).toHaveLength(1);
    });

    it.each([
      "file:///etc/passwd",
      "FILE:///etc/passwd",
      "chrome://version",
      "javascript:alert(1)",
      "data:text/html,<h1>hi</h1>",
    ])("refuses the non-http address %s", async (url) => {
      await expectRenderError(e2e.renderer.render({ url }), "InvalidURLError");
    });

    it("refuses a redirect to a non-http address with InvalidURLError", async () => {
      const error = await expectRenderError(e2e.render("/redirect-file", SMALL), "InvalidURLError");
      expect(error.message).toContain("not http or https");
    });
  });

  describe("invalid options", () => {
    it.each([
      [{ width: 50 }, "width"],
      [{ height: "tall" }, "height"],
      [{ full_page: "maybe" }, "full_page"],
      [{ wait_until: "whenever" }, "wait_until"],
      [{ format: "gif" }, "format"],
      [{ timeout: 100 }, "timeout"],
      [{ tz: "Mars/Olympus" }, "tz"],
      [{ headers: ["no separator here"] }, "headers"],
      [{ pdf_margin_top: "1 furlong" }, "pdf_margin_top"],
    ] as const)("%o fails with InvalidOptions naming %s", async (options, name) => {
      const error = await expectRenderError(e2e.render("/blocks", { ...options }), "InvalidOptions");
      expect(error.message).toContain(name);
      expect(error.details?.option).toBe(name);
    });

    // A malformed CSS selector is a bad option value (docs/api.md#errors: 400 InvalidOptions naming the option),
    // not an engine failure.
    it.each(["selector", "wait_for", "wait_to_leave", "click"])("a malformed %s is InvalidOptions naming it", async (name) => {
      const error = await expectRenderError(
        e2e.render("/blocks", { ...SMALL, [name]: "###", wait_timeout: 1000 }),
        "InvalidOptions",
      );
      expect(error.details?.option).toBe(name);
    });

    it("url and html together are refused; neither is NoUrlSupplied", async () => {
      await expectRenderError(e2e.renderer.render({ url: e2e.fixture.url("/blocks"), html: "<p>x</p>" }), "InvalidOptions");
      await expectRenderError(e2e.renderer.render({ width: 800 }), "NoUrlSupplied");
    });
  });

  describe("a renderer without an allowlist (the default)", () => {
    let plain: TestRenderer;
    beforeAll(async () => {
      plain = await startRenderer([], {}, engine);
    });
    afterAll(() => plain.close());

    // Spellings of loopback: name, IPv6, IPv4-mapped IPv6, short and decimal IPv4, the unspecified address.
    // A name is refused as a name that does not resolve (URLDoesNotResolveError): callers cannot map internal names.
    it.each(["127.0.0.1", "localhost", "[::1]", "[::ffff:127.0.0.1]", "127.1", "2130706433", "0.0.0.0"])(
      "refuses http://%s:<fixture port>/",
      async (host) => {
        const before = e2e.fixture.connections;
        const code = host === "localhost" ? "URLDoesNotResolveError" : "InvalidURLError";
        await expectRenderError(plain.renderer.render({ url: `http://${host}:${e2e.fixture.port}/blocks` }), code);
        expect(e2e.fixture.connections).toBe(before);
      },
    );

    it.each(["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[fd00::1]/", "http://100.64.0.1/"])(
      "refuses the private or metadata address %s",
      async (url) => {
        await expectRenderError(plain.renderer.render({ url }), "InvalidURLError");
      },
    );
  });
});
