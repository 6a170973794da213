import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CORE_VERSION,
  createRenderer,
  definePlugin,
  ENGINE,
  type Engine,
  FORMATTER,
  LOGGER,
  type Logger,
  type PluginManifest,
  type Renderer,
  type RendererSettings,
  SETTINGS,
} from "@renderkit/core";
import { inject, injectable, Lifecycle } from "tsyringe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { used, valuePlugin } from "./fixtures/value-plugin.js";

/**
 * How a plugin registers (`PluginContext.provide` for ready-made objects, the container for
 * classes) and the core version range a manifest may name (`PluginManifest.core`).
 */

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A class the container builds, as the engine plugins' are: `@inject(TOKEN)` on every parameter. */
@injectable()
class InjectedEngine implements Engine {
  readonly name = "injected";
  readonly capabilities = new Set(["pdf"] as const);

  constructor(
    @inject(SETTINGS) readonly settings: RendererSettings,
    @inject(LOGGER) readonly logger: Logger,
  ) {}

  async start(): Promise<void> {}
  async open(): Promise<never> {
    throw new Error("not used");
  }
  stats() {
    return { browsers: 0, pages: 0, launches: 0 };
  }
  async close(): Promise<void> {
    used.push(`engine ${this.name} closed, data in ${this.settings.dataDir}`);
  }
}

const classPlugin = definePlugin(() => ({
  name: "classes",
  register({ container }) {
    container.register(ENGINE, { useClass: InjectedEngine }, { lifecycle: Lifecycle.ContainerScoped });
  },
}));

/** A plugin that names the cores it works with. */
const ranged = (core: unknown): PluginManifest => ({ name: "@acme/ranged", core: core as string, register() {} });

describe("registering a plugin", () => {
  let dataDir: string;
  const renderers: Renderer[] = [];
  const make = async (plugins: PluginManifest[]) => {
    const renderer = await createRenderer({ dataDir, logger: silent, plugins });
    renderers.push(renderer);
    return renderer;
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "renderkit-plugin-registration-"));
  });
  afterAll(async () => {
    await Promise.all(renderers.map((r) => r.close(1_000)));
    await rm(dataDir, { recursive: true, force: true });
  });

  it("provide: a plugin of values fills every extension point, importing @renderkit/core alone", async () => {
    const source = readFileSync(new URL("./fixtures/value-plugin.ts", import.meta.url), "utf8");
    expect([...source.matchAll(/\bfrom "([^"]+)"/g)].map((m) => m[1])).toEqual(["@renderkit/core"]);
    used.length = 0;
    const renderer = await make([valuePlugin()]);
    expect(renderer.engines).toEqual(["handmade"]);
    expect(renderer.formats).toEqual(["dots", "pdf", "html", "mhtml"]);
    expect(await renderer.queueCounts()).toEqual({ waiting: 7, active: 1 });
    expect((await renderer.read("a.txt"))?.body).toBe("stored a.txt");
    expect(used).toEqual(["queue started"]);
    await renderer.close(1_000);
    expect(used).toEqual(["queue started", "queue closed", "engine handmade closed", "notifier closed"]);
  });

  it("provide: a value that is missing is refused, naming the plugin and the token", async () => {
    const empty = { name: "@acme/empty", register: ({ provide }) => provide(FORMATTER, undefined as never) } as PluginManifest;
    await expect(make([empty])).rejects.toThrow(
      expect.objectContaining({
        name: "TypeError",
        message: expect.stringMatching(/@acme\/empty.*undefined.*renderkit\.formatter/),
      }),
    );
  });

  it("the container: a class with @inject parameters is built by the renderer's container, beside provided values", async () => {
    used.length = 0;
    const renderer = await make([classPlugin(), valuePlugin()]);
    expect(renderer.engines).toEqual(["injected", "handmade"]);
    await renderer.close(1_000);
    expect(used).toContain(`engine injected closed, data in ${dataDir}`);
  });
});

describe("the core version range of a manifest", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "renderkit-plugin-core-range-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });
  const start = async (plugins: PluginManifest[]) => {
    const renderer = await createRenderer({ dataDir, logger: silent, plugins });
    await renderer.close(1_000);
    return renderer;
  };

  it("CORE_VERSION is core/package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(CORE_VERSION).toBe(pkg.version);
  });

  it("a range that leaves this core out is refused, naming the plugin, its range and the core's version", async () => {
    const range = ">99.0.0";
    const registered: string[] = [];
    const before: PluginManifest = { name: "@acme/first", register: () => void registered.push("first") };
    const error = await start([before, ranged(range)]).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(
      `Plugin @acme/ranged supports @renderkit/core ${range}, but this is @renderkit/core ${CORE_VERSION}: ` +
        `install a version of the plugin made for this core, or a core within ${range}`,
    );
    // Refused before any plugin registered: nothing was started for a renderer that will not exist.
    expect(registered).toEqual([]);
  });

  it("a range that includes this core is accepted: caret, tilde, comparators, exact, unions", async () => {
    const [major, minor] = CORE_VERSION.split(".");
    for (const range of [
      `^${CORE_VERSION}`,
      `~${CORE_VERSION}`,
      `>=${major}.${minor}.0 <${Number(major) + 1}.0.0`,
      CORE_VERSION,
      `${major}.${minor}.x`,
      `<0.0.1 || ${CORE_VERSION}`,
      "*",
    ]) {
      await expect(start([ranged(range)]), range).resolves.toBeDefined();
    }
  });

  it("no range means no check", async () => {
    const renderer = await start([{ name: "@acme/unranged", register() {} }]);
    expect(renderer.engines).toEqual([]);
  });

  it("a range that is not a range is refused as a TypeError naming the plugin", async () => {
    for (const bad of ["version one", 1, { major: 0 }]) {
      await expect(start([ranged(bad)]), String(bad)).rejects.toThrow(
        expect.objectContaining({ name: "TypeError", message: expect.stringContaining("Plugin @acme/ranged: core must be") }),
      );
    }
  });
});
