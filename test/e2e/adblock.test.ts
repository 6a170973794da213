import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRenderer, ENGINE, type Engine, type PluginManifest, type Renderer, type RenderResult } from "@renderkit/core";
import { type FixtureServer, RecordingLogger, startFixtureServer } from "@renderkit/core/testing";
import { imageFormats } from "@renderkit/format-image";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  AD_HOST,
  ADBLOCK_ASSET,
  ADBLOCK_LIST,
  ADBLOCK_ROUTES,
  ADBLOCK_VIEWPORT,
  ALLOWED_WORD,
  AREAS,
  areaCentre,
  FRAME_WORD,
  TRACKER_HOST,
} from "../fixtures/adblock-pages.js";
import { COLOUR } from "../fixtures/pages.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { pdfText } from "../helpers/pdf.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/** Sends the ad host names to the fixture server's address; nothing else resolves. */
const lookup = async (host: string) => {
  if (host.endsWith(".example")) return [{ address: "127.0.0.1", family: 4 as const }];
  throw new Error(`${host} does not resolve in this test`);
};

/**
 * An engine plugin lending another renderer's engine: a second renderer (with other settings)
 * renders in the browser already up instead of launching its own, and its `close` leaves that
 * browser to its owner. Launching a browser is most of what a check with its own renderer costs.
 */
function lentEngine(engine: Engine): PluginManifest {
  const lent: Engine = {
    name: engine.name,
    capabilities: engine.capabilities,
    start: () => engine.start(),
    open: (target, settings, signal) => engine.open(target, settings, signal),
    stats: () => engine.stats(),
    close: async () => {},
  };
  return { name: "lent-engine", register: ({ container }) => void container.register(ENGINE, { useValue: lent }) };
}

let listDir: string;
let listFile: string;
beforeAll(async () => {
  listDir = await mkdtemp(join(tmpdir(), "renderkit-adblock-e2e-"));
  listFile = join(listDir, "filters.txt");
  await writeFile(listFile, ADBLOCK_LIST);
});
afterAll(async () => {
  if (listDir) await rm(listDir, { recursive: true, force: true });
});

forEachEngine((engine) => {
  const once = onOneEngine(engine);
  let fixture: FixtureServer;
  let started: TestRenderer;
  let runs = 0;

  beforeAll(async () => {
    fixture = await startFixtureServer(ADBLOCK_ROUTES);
    started = await startRenderer(
      [`127.0.0.1:${fixture.port}`],
      { lookup, adblock: { lists: [listFile], refreshSeconds: 3600 } },
      engine,
    );
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });

  interface Run {
    result: RenderResult;
    /** Whether the fixture server received a request for `path` on `host` from this render. */
    requested(path: string, host: string): boolean;
  }

  /** Renders the fixture page on `renderer` (the shared one unless named). */
  async function render(options: Record<string, unknown> = {}, renderer: Renderer = started.renderer): Promise<Run> {
    const token = `${engine}-${++runs}`;
    const result = await renderer.render({
      url: `${fixture.url}${ADBLOCK_ASSET.page}?run=${token}`,
      ...ADBLOCK_VIEWPORT,
      ...options,
    });
    const requested = (path: string, host: string) =>
      fixture.requests.some((r) => {
        const [p, query] = r.path.split("?");
        return p === path && new URLSearchParams(query).get("run") === token && r.headers.host === `${host}:${fixture.port}`;
      });
    return { result, requested };
  }

  // Both engines: the request filter and the style injection under it are engine primitives.
  it("block_ads: ad requests never leave the browser and ad elements are hidden; content still renders", async () => {
    const run = await render({ block_ads: true });
    expect(run.requested(ADBLOCK_ASSET.page, "127.0.0.1")).toBe(true);
    expect(run.requested(ADBLOCK_ASSET.adScript, AD_HOST)).toBe(false);
    expect(run.requested(ADBLOCK_ASSET.adFrame, TRACKER_HOST)).toBe(false);
    // The `@@` exception lets this one through.
    expect(run.requested(ADBLOCK_ASSET.allowedScript, AD_HOST)).toBe(true);

    // Where these points show the ads when nothing blocks them: the control below.
    const image = await decodeRender(run.result);
    const at = (area: (typeof AREAS)[keyof typeof AREAS]) => areaCentre(area);
    expectColour(image, at(AREAS.content).x, at(AREAS.content).y, COLOUR.blue);
    // Generic rule (`##.ad-banner`), site rule (`127.0.0.1##.site-promo`), blocked script: page background.
    expectColour(image, at(AREAS.banner).x, at(AREAS.banner).y, COLOUR.white);
    expectColour(image, at(AREAS.promo).x, at(AREAS.promo).y, COLOUR.white);
    expectColour(image, at(AREAS.scripted).x, at(AREAS.scripted).y, COLOUR.white);
  });

  // On one engine each: the filter engine, the option and the formats are the core's, whatever the engine.
  once("control: without block_ads the ads load and are in the output (PDF and png)", async () => {
    const run = await render({ format: "pdf" });
    expect(run.requested(ADBLOCK_ASSET.adScript, AD_HOST)).toBe(true);
    expect(run.requested(ADBLOCK_ASSET.adFrame, TRACKER_HOST)).toBe(true);
    expect(run.requested(ADBLOCK_ASSET.allowedScript, AD_HOST)).toBe(true);
    const text = await pdfText(run.result);
    for (const word of [AREAS.content.word, AREAS.banner.word, AREAS.promo.word, AREAS.scripted.word, ALLOWED_WORD]) {
      expect(text).toContain(word);
    }
    const image = await decodeRender((await render()).result);
    for (const area of Object.values(AREAS)) {
      const { x, y } = areaCentre(area);
      expectColour(image, x, y, area.colour);
    }
  });

  once("block_ads works through other formats: the ads are absent from a PDF", async () => {
    const blocked = await render({ format: "pdf", block_ads: true });
    expect(blocked.requested(ADBLOCK_ASSET.adScript, AD_HOST)).toBe(false);
    const text = await pdfText(blocked.result);
    expect(text).toContain(AREAS.content.word);
    expect(text).toContain(ALLOWED_WORD);
    for (const word of [AREAS.banner.word, AREAS.promo.word, AREAS.scripted.word, FRAME_WORD]) expect(text).not.toContain(word);
  });

  once("a list that cannot be loaded: the render fails with a clear error instead of rendering the ads", async () => {
    // A missing file fails at once (no such file): no download to wait for. This renderer has
    // its own lists (and data directory) but renders in the shared renderer's browser.
    const logger = new RecordingLogger();
    const dataDir = await mkdtemp(join(tmpdir(), "renderkit-adblock-e2e-"));
    const renderer = await createRenderer({
      plugins: [lentEngine(started.renderer.engine()), imageFormats()],
      dataDir,
      allowPrivateNetworks: [`127.0.0.1:${fixture.port}`],
      lookup,
      logger,
      adblock: { lists: [join(listDir, "missing.txt")], refreshSeconds: 3600 },
    });
    try {
      const before = fixture.requests.length;
      const error = await render({ block_ads: true }, renderer).then(
        () => undefined,
        (e: unknown) => e as { code?: string; message?: string },
      );
      expect(error).toMatchObject({ code: "EngineResponseNotOkError" });
      expect(error?.message).toBe(
        "block_ads: no ad filter list could be loaded on this server (see its log); the render was not made without ad blocking",
      );
      // Not a single request of the page was made, and the operator learns why from the log.
      expect(fixture.requests.length).toBe(before);
      const warnings = logger.at("warn").map((e) => `${e.message} ${JSON.stringify(e.fields)}`);
      expect(warnings.some((w) => w.includes("no filter list could be loaded") && w.includes("no such file"))).toBe(true);
    } finally {
      await renderer.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
