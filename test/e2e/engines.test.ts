import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer, type Renderer } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCKS, COLOUR, centre } from "../fixtures/pages.js";
import { type FixtureServer, startFixtureServer } from "../fixtures/server.js";
import { expectRenderError } from "../helpers/errors.js";
import { decodeRender, expectColour } from "../helpers/image.js";
import { startRenderer, type TestRenderer } from "../helpers/setup.js";

/** The per-request `engine` option: one renderer with both engines, and one with Playwright only. */
const SMALL = { width: 400, height: 300 };
let fixture: FixtureServer;
let both: Renderer;
let dataDir: string;

beforeAll(async () => {
  fixture = await startFixtureServer();
  dataDir = await mkdtemp(join(tmpdir(), "renderkit-e2e-"));
  both = await createRenderer({
    plugins: [playwright(), puppeteer(), imageFormats()],
    dataDir,
    allowPrivateNetworks: [`127.0.0.1:${fixture.port}`],
    logger: new ConsoleLogger("silent"),
  });
});
afterAll(async () => {
  await both?.close();
  await fixture?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("choosing the engine per request", () => {
  it("lists both engines; the first registered is the default", () => {
    expect(both.engines).toEqual(["playwright", "puppeteer"]);
    expect(both.engine().name).toBe("playwright");
  });

  it.each(["puppeteer", "playwright"] as const)("engine: %s renders on that engine only", async (name) => {
    const other = name === "puppeteer" ? "playwright" : "puppeteer";
    const before = { mine: both.engine(name).stats().launches, other: both.engine(other).stats().launches };
    const result = await both.render({ url: fixture.url("/blocks"), engine: name, ...SMALL });
    expectColour(await decodeRender(result), centre(BLOCKS.red).x, centre(BLOCKS.red).y, COLOUR.red);
    // Engines launch lazily: this first render on `name` launches its browser; the other engine is untouched.
    expect(before.mine).toBe(0);
    expect(both.engine(name).stats()).toMatchObject({ launches: 1, browsers: 1, pages: 0 });
    expect(both.engine(other).stats().launches).toBe(before.other);
  });

  it("without the option, the default engine renders", async () => {
    const before = both.engine("puppeteer").stats().launches;
    await both.render({ url: fixture.url("/blocks"), ...SMALL });
    // Playwright's browser is warm from the test above: no new launch anywhere.
    expect(both.engine("playwright").stats().launches).toBe(1);
    expect(both.engine("puppeteer").stats().launches).toBe(before);
  });
});

describe("an engine that is not installed", () => {
  let only: TestRenderer;
  beforeAll(async () => {
    only = await startRenderer([`127.0.0.1:${fixture.port}`], {}, "playwright");
  });
  afterAll(() => only?.close());

  it("is InvalidOptions naming `engine` and the package to install", async () => {
    const error = await expectRenderError(
      only.renderer.render({ url: fixture.url("/blocks"), engine: "puppeteer", ...SMALL }),
      "InvalidOptions",
    );
    expect(error.details?.option).toBe("engine");
    expect(error.message).toContain("@renderkit/engine-puppeteer");
    expect(error.message).toContain("playwright");
    // Refused before any browser work.
    expect(only.renderer.engine().stats().launches).toBe(0);
  });
});
