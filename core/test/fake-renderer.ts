import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CreateRendererOptions,
  createRenderer,
  definePlugin,
  type FinalRenderEvent,
  NOTIFIER,
  type PluginManifest,
  type RenderEvent,
  type Renderer,
} from "@renderkit/core";
import { FakeEngine, type FakeEngineOptions, fakeEngine } from "@renderkit/core/testing";
import { expect, vi } from "vitest";

// A renderer on the fake engine, for unit tests of what the Renderer does around an attempt:
// retries, the stall guard, `global_timeout`, redelivered jobs. Its listeners' events and what a
// notifier was told are kept per render.

export interface FakeRenderer {
  renderer: Renderer;
  engine: FakeEngine;
  /** Every event the renderer's listeners heard. */
  events: RenderEvent[];
  /** Every final event a notifier was handed. */
  notified: FinalRenderEvent[];
  close(): Promise<void>;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

const isFinal = (event: RenderEvent): event is FinalRenderEvent =>
  event.type === "render.succeeded" || event.type === "render.failed";

/** What else the renderer is made of: more plugins (a queue), the fake engine's options. */
export interface FakeRendererParts {
  plugins?: PluginManifest[];
  engine?: FakeEngineOptions;
}

export async function fakeRenderer(settings: CreateRendererOptions = {}, parts: FakeRendererParts = {}): Promise<FakeRenderer> {
  const dataDir = await mkdtemp(join(tmpdir(), "renderkit-fake-renderer-"));
  const engine = new FakeEngine(parts.engine);
  const notified: FinalRenderEvent[] = [];
  const recording = definePlugin(() => ({
    name: "test/recording-notifier",
    register({ provide }) {
      provide(NOTIFIER, {
        name: "recording",
        notify: async (event: FinalRenderEvent) => {
          notified.push(event);
        },
      });
    },
  }));
  const renderer = await createRenderer({
    dataDir,
    logger: silent,
    concurrency: 1,
    ...settings,
    plugins: [fakeEngine(engine), recording(), ...(parts.plugins ?? [])],
  });
  const events: RenderEvent[] = [];
  renderer.on((event) => {
    events.push(event);
  });
  return {
    renderer,
    engine,
    events,
    notified,
    async close() {
      await renderer.close(1_000);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** One render's events as `[type, attempt]` (attempt only on `started` and `retrying`). */
export function steps(rk: FakeRenderer, renderId: string): (string | number)[][] {
  return rk.events.filter((e) => e.renderId === renderId).map((e) => ("attempt" in e ? [e.type, e.attempt] : [e.type]));
}

/** The render ended once: one final event heard, one handed to the notifier, the same. */
export function expectOneEnd(rk: FakeRenderer, renderId: string): FinalRenderEvent {
  const heard = rk.events.filter((e) => e.renderId === renderId && isFinal(e));
  const notified = rk.notified.filter((e) => e.renderId === renderId);
  expect(heard, "final events heard").toHaveLength(1);
  expect(notified, "final events notified").toHaveLength(1);
  expect(notified[0]?.type).toBe(heard[0]?.type);
  return notified[0] as FinalRenderEvent;
}

/** Fake timers for what the renderer schedules (timeouts and `Date`); the queue's `setImmediate` stays real. */
export function useFakeClock(): void {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
}

/** The real `setTimeout`, kept before any test fakes it. */
const realSetTimeout = globalThis.setTimeout;

/**
 * Waits, in real time (the fake clock stands still), until `done()` holds: for work that no timer
 * drives, such as files being written. Fails after `maxMs` of real time.
 */
export async function until(done: () => boolean, maxMs = 10_000): Promise<void> {
  for (const end = performance.now() + maxMs; !done(); ) {
    if (performance.now() > end) throw new Error(`still waiting after ${maxMs} ms`);
    await new Promise((resolve) => realSetTimeout(resolve, 5));
  }
}

/**
 * Moves the fake clock on in steps until `done()` holds, at most `maxMs` of fake time (a stalled
 * attempt waits for its budget, tens of seconds).
 */
export async function advanceUntil(done: () => boolean, maxMs = 600_000, stepMs = 1_000): Promise<void> {
  for (let spent = 0; !done(); spent += stepMs) {
    if (spent >= maxMs) throw new Error(`still waiting after ${maxMs} ms of fake time`);
    await vi.advanceTimersByTimeAsync(stepMs);
  }
}
