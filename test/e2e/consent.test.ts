import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AddressPolicy, ConsoleLogger, createRenderer, type PageTarget, type Renderer, type RenderResult } from "@renderkit/core";
import { type FixtureServer, makePageSettings, RecordingLogger, startFixtureServer } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type ConsentMode, type ConsentReport, consentInitScript, settleConsent } from "../../core/dist/prepare/consent/index.js";
import {
  BANNER_POINT,
  CONSENT_COLOUR,
  CONSENT_VIEW,
  consentRoutes,
  HEURISTICS_HTML,
  HEURISTICS_POINTS,
  PAGE_POINT,
} from "../fixtures/consent-pages.js";
import { type Decoded, decodeRender, expectColour } from "../helpers/image.js";
import { forEachEngine, onOneEngine } from "../helpers/setup.js";

type Point = { readonly x: number; readonly y: number };
type Rgb = readonly [number, number, number];

forEachEngine((engine) => {
  // Checks of what the core does in the page (its fallback heuristics, what it reports) run on
  // one engine each; what rests on the engine's init scripts, frames and clicks runs on both.
  const once = onOneEngine(engine);
  /** Serves the pages. */
  let site: FixtureServer;
  /** Another origin (and site: `localhost`), serving the framed banner. */
  let other: FixtureServer;
  let renderer: Renderer;
  let dataDir: string;
  const logger = new RecordingLogger();
  /** The consent report the renderer logged (debug, "consent banners") for a finished render; undefined without a consent step. */
  const reportOf = (result: RenderResult) =>
    logger.at("debug", "consent banners").find((e) => e.fields.renderId === result.renderId)?.fields;

  beforeAll(async () => {
    site = await startFixtureServer(consentRoutes());
    other = await startFixtureServer(consentRoutes());
    dataDir = await mkdtemp(join(tmpdir(), "renderkit-consent-e2e-"));
    renderer = await createRenderer({
      plugins: [engine === "playwright" ? playwright() : puppeteer(), imageFormats()],
      dataDir,
      allowPrivateNetworks: [`127.0.0.1:${site.port}`, `127.0.0.1:${other.port}`],
      logger,
    });
  });
  afterAll(async () => {
    await renderer?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await site?.close();
    await other?.close();
  });
  beforeEach(() => {
    site.requests.splice(0);
    other.requests.splice(0);
  });

  const FRAMED = () => `/framed?src=${encodeURIComponent(`http://localhost:${other.port}/piano-frame`)}`;

  function render(target: string | { html: string }, options: Record<string, unknown> = {}): Promise<RenderResult> {
    const page = typeof target === "string" ? { url: `${site.url}${target}` } : target;
    return renderer.render({ ...page, ...CONSENT_VIEW, ...options });
  }

  function expectAt(image: Decoded, point: Point, colour: Rgb): void {
    expectColour(image, point.x, point.y, colour);
  }

  /** Choices the banner buttons of `banner` reported to `server` (`/consent?banner=..&choice=..`). */
  function choices(server: FixtureServer, banner: string): (string | null)[] {
    return server
      .requestsTo("/consent")
      .map((r) => new URL(r.path, server.url).searchParams)
      .filter((q) => q.get("banner") === banner)
      .map((q) => q.get("choice"));
  }

  /** The click handler reports asynchronously (fetch): wait for its request to arrive. */
  async function expectChoices(server: FixtureServer, banner: string, expected: string[]): Promise<void> {
    await vi.waitFor(() => expect(choices(server, banner)).toEqual(expected), { timeout: 5_000 });
  }

  once("without the options: known, unknown and framed banners stay on the page", async () => {
    for (const target of ["/hubspot", "/custom", FRAMED()]) {
      const result = await render(target);
      expectAt(await decodeRender(result), BANNER_POINT, CONSENT_COLOUR.banner);
      expect(reportOf(result)).toBeUndefined();
    }
    expect(site.requestsTo("/consent")).toHaveLength(0);
    expect(other.requestsTo("/consent")).toHaveLength(0);
  });

  describe("a consent manager autoconsent knows (HubSpot)", () => {
    // The strict CSP page: what works under it works without it (the policy only takes away).
    it("hide_cookie_banners clicks Decline, under a strict CSP too (no inline script, no eval); the report names the rule", async () => {
      const result = await render("/hubspot-csp", { hide_cookie_banners: true });
      const image = await decodeRender(result);
      expectAt(image, BANNER_POINT, CONSENT_COLOUR.decline);
      expectAt(image, PAGE_POINT, CONSENT_COLOUR.decline);
      await expectChoices(site, "hubspot", ["decline"]);
      // The rule did it all: the fallback found nothing left.
      expect(reportOf(result)).toMatchObject({ mode: "hide", cmp: "hubspot", autoconsent: "done", fallback: 0 });
    });

    it("click_accept clicks Accept", async () => {
      const image = await decodeRender(await render("/hubspot", { click_accept: true }));
      expectAt(image, BANNER_POINT, CONSENT_COLOUR.accept);
      await expectChoices(site, "hubspot", ["accept"]);
    });
  });

  describe("a banner inside a cross-origin frame (Piano)", () => {
    it("hide_cookie_banners closes it inside the frame", async () => {
      const image = await decodeRender(await render(FRAMED(), { hide_cookie_banners: true }));
      expectAt(image, BANNER_POINT, CONSENT_COLOUR.decline);
      await expectChoices(other, "piano", ["decline"]);
    });

    once("click_accept accepts it inside the frame; the report names the frame's rule", async () => {
      const result = await render(FRAMED(), { click_accept: true });
      expectAt(await decodeRender(result), BANNER_POINT, CONSENT_COLOUR.accept);
      await expectChoices(other, "piano", ["accept"]);
      expect(reportOf(result)).toMatchObject({ mode: "accept", cmp: "piano.io", autoconsent: "done", fallback: 0 });
    });
  });

  describe("the generic fallback (a banner no rule knows)", () => {
    it("hide_cookie_banners hides it without clicking anything; the report counts it", async () => {
      const result = await render("/custom", { hide_cookie_banners: true });
      const image = await decodeRender(result);
      expectAt(image, BANNER_POINT, CONSENT_COLOUR.page);
      expectAt(image, PAGE_POINT, CONSENT_COLOUR.page);
      expect(site.requestsTo("/consent")).toHaveLength(0);
      // autoconsent said "nothing" (no rule knows it) before its budget ran out; the fallback handled one banner.
      const report = reportOf(result);
      expect(report).toMatchObject({ mode: "hide", autoconsent: "nothing", fallback: 1 });
      expect(report?.cmp).toBeUndefined();
    });

    once("click_accept clicks 'Accept all', not 'Reject all' or 'Settings'", async () => {
      const result = await render("/custom", { click_accept: true });
      expectAt(await decodeRender(result), BANNER_POINT, CONSENT_COLOUR.accept);
      await expectChoices(site, "custom", ["accept"]);
      expect(reportOf(result)).toMatchObject({ mode: "accept", autoconsent: "nothing", fallback: 1 });
    });

    once("restores the scrolling the banner locked", async () => {
      const result = await render("/custom", {
        hide_cookie_banners: true,
        format: "html",
        js: "document.body.dataset.overflow = getComputedStyle(document.documentElement).overflowY;",
      });
      const html = await readFile(fileURLToPath(result.renderUrl), "utf8");
      expect(html).toContain('data-overflow="visible"');
      expect(html).not.toContain("data-renderkit-consent");
    });

    once("hides only the consent bar: a chat button, a sticky header and text about cookies stay", async () => {
      const result = await render({ html: HEURISTICS_HTML }, { hide_cookie_banners: true });
      const image = await decodeRender(result);
      expectAt(image, HEURISTICS_POINTS.bar, CONSENT_COLOUR.page);
      expectAt(image, HEURISTICS_POINTS.chat, CONSENT_COLOUR.chat);
      expectAt(image, HEURISTICS_POINTS.header, [0, 0, 0]);
      expectAt(image, HEURISTICS_POINTS.page, CONSENT_COLOUR.page);
      // One banner counted: the chat button and the header are not.
      expect(reportOf(result)).toMatchObject({ mode: "hide", autoconsent: "nothing", fallback: 1 });
    });

    once("with disable_js the fallback alone hides the bar, without waiting for autoconsent", async () => {
      const result = await render({ html: HEURISTICS_HTML }, { hide_cookie_banners: true, disable_js: true });
      const image = await decodeRender(result);
      expectAt(image, HEURISTICS_POINTS.bar, CONSENT_COLOUR.page);
      expectAt(image, HEURISTICS_POINTS.chat, CONSENT_COLOUR.chat);
      expect(reportOf(result)).toMatchObject({ mode: "hide", autoconsent: "unavailable", polls: 0, fallback: 1 });
    });

    once("accepts a German banner ('Alle akzeptieren') and leaves the chat button alone", async () => {
      const image = await decodeRender(await render({ html: HEURISTICS_HTML }, { click_accept: true }));
      expectAt(image, HEURISTICS_POINTS.bar, CONSENT_COLOUR.accept);
      expectAt(image, HEURISTICS_POINTS.chat, CONSENT_COLOUR.chat);
    });
  });

  /** Opens `target` on the renderer's engine with the consent init script and settles consent. */
  async function settle(target: PageTarget, mode: ConsentMode, budgetMs: number): Promise<ConsentReport> {
    const policy = new AddressPolicy({ allowPrivate: [`127.0.0.1:${site.port}`, `127.0.0.1:${other.port}`] });
    const signal = new AbortController().signal;
    const settings = makePageSettings(policy, { ...CONSENT_VIEW, initScripts: [consentInitScript(mode)] });
    const session = await renderer.engine().open(target, settings, signal);
    try {
      return await settleConsent(session, mode, { budgetMs, signal, logger: new ConsoleLogger("silent") });
    } finally {
      await session.close();
    }
  }

  once("settleConsent: a page without banner ends when detection found nothing, long before the budget", async () => {
    // With a one-minute budget, only a detection that can say "nothing" ends inside the test timeout.
    const report = await settle({ url: `${site.url}/plain` }, "hide", 60_000);
    expect(report).toMatchObject({ autoconsent: "nothing", fallback: 0 });
    expect(report.cmp).toBeUndefined();
  });
});
