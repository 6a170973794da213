import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
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
 * How a plugin registers: `PluginContext.provide` for ready-made objects, the container for
 * classes.
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
