import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "vitest";
import type { RenderResult } from "../contracts/events.js";
import type { FormatSpec, Formatter } from "../contracts/formatter.js";
import { createRenderer } from "../create-renderer.js";
import { ConsoleLogger } from "../defaults/console-logger.js";
import type { PluginManifest } from "../plugin.js";
import type { Renderer } from "../renderer.js";
import { FORMATTER } from "../tokens.js";
import { readAll } from "./assertions.js";
import { FakeEngine } from "./fake-engine.js";
import { type FixtureServer, startFixtureServer } from "./fixture-server.js";
import { FIXTURE_PAGE } from "./formatter-fixture.js";

/** What the suite does with one format the plugin declares. */
export interface FormatterSample {
  /** Extra request options for this format's sample render (keep it small: a 1 s video). */
  options?: Record<string, unknown>;
  /**
   * Format-specific assertion on the stored bytes (pixels, parsed structure). Required for a
   * content type the suite has no built-in check for; runs after the built-in one otherwise.
   */
  check?: (bytes: Buffer, result: RenderResult) => void | Promise<void>;
  /**
   * Requests (on top of the sample's options) that the formatter's own `validate` must refuse with
   * `InvalidOptions`, and the option it must name (snake_case): e.g. a codec the container cannot hold.
   */
  invalid?: readonly { options: Record<string, unknown>; option: string }[];
}

export interface FormatterContractOptions {
  /** Title of the `describe` block. */
  name: string;
  /** The formatter plugin under test (a fresh manifest). */
  plugin: () => PluginManifest;
  /**
   * The engine plugin to render with: a real one (`playwright()`), or `fakeEngine()` of this module
   * for a fast run without a browser, where the fake's `evaluate` option answers the formatter's
   * own page scripts (the fake has no screencast: a video format needs a real engine).
   */
  engine: () => PluginManifest;
  /** Per format the plugin declares; formats left out render with the defaults and the built-in checks. */
  samples?: Readonly<Record<string, FormatterSample>>;
  /** Titles of checks to skip (document why next to the call). */
  skip?: readonly string[];
  /** Timeout of each check in ms (default 60 000). */
  testTimeoutMs?: number;
}

/** Wraps the plugin so the suite gets hold of the formatters it registers (the renderer keeps them private). */
function capturing(plugin: PluginManifest, found: Formatter[]): PluginManifest {
  return {
    name: plugin.name,
    async register(context) {
      const { container } = context;
      const before = container.isRegistered(FORMATTER) ? container.resolveAll(FORMATTER) : [];
      await plugin.register(context);
      const after = container.isRegistered(FORMATTER) ? container.resolveAll(FORMATTER) : [];
      found.push(...after.filter((f) => !before.includes(f)));
    },
  };
}

/**
 * Shared state of the formatter suite: a renderer made of the engine and the plugin under test,
 * its data directory, and a loopback fixture page it is allowed to reach (and nothing else private).
 */
export class FormatterHarness {
  renderer!: Renderer;
  fixture!: FixtureServer;
  /** The formatters the plugin registered. */
  readonly formatters: Formatter[] = [];
  /** The renderer's engine when it is the fake one. */
  fake: FakeEngine | undefined;
  private dataDir: string | undefined;

  constructor(readonly options: FormatterContractOptions) {}

  async start(): Promise<void> {
    this.fixture = await startFixtureServer({ "/": FIXTURE_PAGE });
    this.dataDir = await mkdtemp(join(tmpdir(), "renderkit-formatter-contract-"));
    this.renderer = await createRenderer({
      plugins: [this.options.engine(), capturing(this.options.plugin(), this.formatters)],
      dataDir: this.dataDir,
      allowPrivateNetworks: [`127.0.0.1:${this.fixture.port}`],
      logger: new ConsoleLogger("silent"),
    });
    const engine = this.renderer.engine();
    this.fake = engine instanceof FakeEngine ? engine : undefined;
  }

  async stop(): Promise<void> {
    await this.renderer?.close();
    await this.fixture?.close();
    if (this.dataDir) await rm(this.dataDir, { recursive: true, force: true });
  }

  /** Every format the plugin declares, with its formatter. */
  get specs(): { formatter: Formatter; spec: FormatSpec }[] {
    return this.formatters.flatMap((formatter) => formatter.formats.map((spec) => ({ formatter, spec })));
  }

  sample(format: string): FormatterSample {
    return this.options.samples?.[format] ?? {};
  }

  /** The sample request of `format`: the fixture page, the format, the sample's options, then `extra`. */
  request(format: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return this.bare(format, { ...this.sample(format).options, ...extra });
  }

  /** A request of `format` for the fixture page with `extra` alone (no sample options). */
  bare(format: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { url: `${this.fixture.url}/`, format, ...extra };
  }

  /** The stored bytes of a render, read back through the renderer as a client would. */
  async bytes(result: RenderResult): Promise<{ bytes: Buffer; contentType: string }> {
    const stored = await this.renderer.read(result.key);
    if (!stored) throw new Error(`render ${result.renderId} stored nothing under ${result.key}`);
    return { bytes: await readAll(stored.body), contentType: stored.contentType };
  }

  /** Registers one check; skipped when listed in `options.skip`, or when `body` calls `skip` (nothing to check). */
  check(title: string, body: (skip: (why: string) => never) => Promise<void> | void): void {
    it(
      title,
      async (ctx) => {
        if (this.options.skip?.includes(title)) return ctx.skip("skipped by the caller");
        await body((why) => ctx.skip(why) as never);
      },
      this.options.testTimeoutMs ?? 60_000,
    );
  }
}
