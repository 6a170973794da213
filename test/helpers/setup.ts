import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConsoleLogger,
  type CreateRendererOptions,
  createRenderer,
  type Engine,
  type PluginManifest,
  type Renderer,
  type RenderResult,
} from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { afterAll, beforeAll, describe, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../fixtures/server.js";

/** The first-party engines; the whole e2e suite runs once per engine (parity). */
export const ENGINES = ["playwright", "puppeteer"] as const;
export type EngineName = (typeof ENGINES)[number];

const ENGINE_PLUGINS: Record<EngineName, () => PluginManifest> = { playwright, puppeteer };

/** Both first-party engines expose their browsers' process ids (leak and crash tests). */
export type BrowserEngine = Engine & { browserPids(): number[] };

/** The renderer's default engine, with its browser process ids. */
export function browserEngine(renderer: Renderer): BrowserEngine {
  return renderer.engine() as BrowserEngine;
}

/**
 * Registers `body` once per engine, in a describe block named after it: every check of the suite
 * runs against Playwright and Puppeteer alike. The blocks run one after the other, so only one
 * engine's browser is up at a time per file.
 */
export function forEachEngine(body: (engine: EngineName) => void): void {
  describe.each(ENGINES)("%s", body);
}

/** Which engine runs a check that `onOneEngine` registers: picked from its name, so such checks spread over both. */
function engineFor(name: string): EngineName {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return ENGINES[hash % ENGINES.length] as EngineName;
}

/**
 * `it` for use inside `forEachEngine` when the check exercises engine-independent code (option
 * errors, the core's preparation logic, how a formatter stitches or encodes) and the engine
 * primitives under it are already covered per engine (the engine contract and the suite's
 * per-engine checks): the check is registered under one engine only, the same one on every run,
 * chosen from its name so that both engines carry a share. Keeps the suite's run time in bounds.
 */
export function onOneEngine(engine: EngineName): (name: string, fn: () => Promise<void> | void, timeout?: number) => void {
  return (name, fn, timeout) => {
    if (engineFor(name) === engine) it(name, fn, timeout);
  };
}

/** A renderer with an engine and the image formats, storing under a fresh temporary data directory. */
export interface TestRenderer {
  renderer: Renderer;
  dataDir: string;
  /** Closes the renderer and removes its data directory. */
  close(): Promise<void>;
}

/**
 * Creates a renderer as a user would: one engine (Playwright unless named), image formats, silent
 * logger. `allow` is the private-network allowlist (none by default, as in production).
 */
export async function startRenderer(
  allow: readonly string[] = [],
  extra: Omit<CreateRendererOptions, "plugins" | "dataDir" | "allowPrivateNetworks"> = {},
  engine: EngineName = "playwright",
  more: readonly PluginManifest[] = [],
): Promise<TestRenderer> {
  const dataDir = await mkdtemp(join(tmpdir(), "renderkit-e2e-"));
  const renderer = await createRenderer({
    plugins: [ENGINE_PLUGINS[engine](), imageFormats(), ...more],
    dataDir,
    ...(allow.length > 0 ? { allowPrivateNetworks: allow } : {}),
    logger: new ConsoleLogger("silent"),
    ...extra,
  });
  return {
    renderer,
    dataDir,
    async close() {
      await renderer.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** What a test file shares: the fixture server and one renderer allowed to reach it. */
export interface E2E {
  /** The engine the renderer uses. */
  readonly engine: EngineName;
  readonly fixture: FixtureServer;
  readonly renderer: Renderer;
  /** Renders `path` of the fixture server with `options`. */
  render(path: string, options?: Record<string, unknown>): Promise<RenderResult>;
}

/**
 * Registers `beforeAll`/`afterAll` hooks that start the fixture server and one renderer on `engine`
 * for the enclosing block (a browser launch per test would dominate the suite's time), and stop both.
 */
export function useE2E({
  engine = "playwright",
  ...extra
}: Parameters<typeof startRenderer>[1] & { engine?: EngineName } = {}): E2E {
  let fixture: FixtureServer | undefined;
  let started: TestRenderer | undefined;
  beforeAll(async () => {
    fixture = await startFixtureServer();
    started = await startRenderer([`127.0.0.1:${fixture.port}`], extra, engine);
  });
  afterAll(async () => {
    await started?.close();
    await fixture?.close();
  });
  const ctx: E2E = {
    engine,
    get fixture() {
      if (!fixture) throw new Error("the fixture server is not started (use inside tests)");
      return fixture;
    },
    get renderer() {
      if (!started) throw new Error("the renderer is not started (use inside tests)");
      return started.renderer;
    },
    render: (path, options = {}) => ctx.renderer.render({ url: ctx.fixture.url(path), ...options }),
  };
  return ctx;
}
