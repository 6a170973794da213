import type { Engine, EngineCapability, EngineStats } from "../contracts/engine.js";
import type { PageSession } from "../contracts/page-session.js";
import type { PageSettings, PageTarget } from "../contracts/page-settings.js";
import { definePlugin } from "../plugin.js";
import { ENGINE } from "../tokens.js";
import { browserCrashed, type FakeBrowser, type FakeEvaluate, FakePage, type PageFault } from "./fake-page.js";
import { FIXTURE_BACKGROUND, FIXTURE_PAGE } from "./formatter-fixture.js";

/**
 * A fault the fake engine plays on one `open()` (`FakeEngine.inject`), to test what the core does
 * when an attempt goes wrong:
 * - `error`: `open()` throws `error`; default a retryable `EngineResponseNotOkError`, as an engine
 *   reports a browser that crashed while loading. A `RenderError` without `retryable` is not retried.
 * - `crash`: the page opens, then the browser dies at the page's first call: that call and every
 *   later call of every page of that browser reject with the retryable error; the next `open()`
 *   launches a new browser (`stats().launches`).
 * - `stall`: nothing answers any more, from `open()` itself (`at: "open"`, a navigation that never
 *   ends) or from the page's first call (`at: "page"`, the default: a page whose main thread never
 *   yields), until the attempt is aborted or the page closed. The core's stall guard or
 *   `global_timeout` ends it: use fake timers to get there without waiting.
 */
export type FakeFault = { kind: "error"; error?: unknown } | { kind: "crash" } | { kind: "stall"; at?: "open" | "page" };

export interface FakeEngineOptions {
  /** Registry name, the `engine` option's value (default `fake`). */
  name?: string;
  /** What the engine advertises (default screenshot, pdf, content and snapshot: no screencast). */
  capabilities?: readonly EngineCapability[];
  /** The page every `url` target shows (default the formatter suite's fixture page). An `html` target shows its own. */
  html?: string;
  /** The background of every picture and printed page, `[r, g, b]` (default the fixture's). */
  background?: readonly [number, number, number];
  /** The document's height in CSS pixels (default the viewport's: the page fits it). */
  documentHeight?: number;
  /** Answers the page scripts of the code under test (see `FakeEvaluate`). */
  evaluate?: FakeEvaluate;
}

interface Planned {
  fault: FakeFault;
  struck: () => void;
}

const DEFAULT_CAPABILITIES: readonly EngineCapability[] = ["screenshot", "pdf", "content", "snapshot"];

/**
 * An `Engine` without a browser, for unit tests of what runs around one (formatters, the
 * renderer's retries): `open()` answers at once with a `FakePage` showing the given HTML in a
 * fixed picture, screenshots are real PNG or JPEG bytes of the size asked, `pdf()` a small real
 * PDF, and faults are played on demand (`inject`). Deterministic: it reads no clock and makes no
 * request. It checks `url` targets against the render's address policy, as a real engine must.
 */
export class FakeEngine implements Engine {
  readonly name: string;
  readonly capabilities: ReadonlySet<EngineCapability>;
  /** Every page opened, in order (closed ones included). */
  readonly pages: FakePage[] = [];
  private readonly planned: Planned[] = [];
  private browser: FakeBrowser | undefined;
  private launches = 0;
  private openPages = 0;
  private closed = false;

  constructor(private readonly options: FakeEngineOptions = {}) {
    this.name = options.name ?? "fake";
    this.capabilities = new Set(options.capabilities ?? DEFAULT_CAPABILITIES);
  }

  /**
   * Plays `fault` on a coming `open()`: faults are played in the order injected, one per
   * `open()`. Resolves once it struck (`open()` threw, the browser crashed, the stall began).
   */
  inject(fault: FakeFault): Promise<void> {
    return new Promise((struck) => this.planned.push({ fault, struck: () => struck() }));
  }

  /** Faults injected and not yet played. */
  get pendingFaults(): number {
    return this.planned.length;
  }

  /** Drops the faults not yet played. */
  clearFaults(): void {
    this.planned.length = 0;
  }

  async start(): Promise<void> {
    this.launch();
  }

  private launch(): FakeBrowser {
    if (this.closed) throw new Error("FakeEngine: the engine is closed");
    if (!this.browser?.alive) {
      this.browser = { alive: true };
      this.launches++;
    }
    return this.browser;
  }

  async open(target: PageTarget, settings: PageSettings, signal: AbortSignal): Promise<PageSession> {
    if (signal.aborted) throw signal.reason;
    const browser = this.launch();
    const planned = this.planned.shift();
    const fault = planned?.fault;
    if (planned && fault?.kind === "error") {
      planned.struck();
      throw fault.error ?? browserCrashed();
    }
    if (planned && fault?.kind === "stall" && fault.at === "open") {
      planned.struck();
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
      throw signal.reason;
    }
    if (target.url !== undefined) await settings.policy.resolveUrl(new URL(target.url));
    if (signal.aborted) throw signal.reason;
    const pageFault: PageFault | undefined =
      planned && (fault?.kind === "crash" || fault?.kind === "stall") ? { kind: fault.kind, struck: planned.struck } : undefined;
    this.openPages++;
    const page = new FakePage({
      target,
      settings,
      html: this.options.html ?? FIXTURE_PAGE,
      look: { background: this.options.background ?? FIXTURE_BACKGROUND },
      documentHeight: this.options.documentHeight,
      evaluate: this.options.evaluate,
      browser,
      fault: pageFault,
      onClose: () => this.openPages--,
    });
    this.pages.push(page);
    return page;
  }

  stats(): EngineStats {
    return { browsers: this.browser?.alive ? 1 : 0, pages: this.openPages, launches: this.launches };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const page of this.pages) await page.close();
    if (this.browser) this.browser.alive = false;
  }
}

/**
 * The fake engine as a plugin: `createRenderer({ plugins: [fakeEngine(), ...] })`. Pass a
 * `FakeEngine` to keep hold of it (to inject faults), or its options.
 */
export const fakeEngine = definePlugin((engine: FakeEngine | FakeEngineOptions = {}) => ({
  name: "@renderkit/core/testing fake engine",
  register({ provide }) {
    provide(ENGINE, engine instanceof FakeEngine ? engine : new FakeEngine(engine));
  },
}));
