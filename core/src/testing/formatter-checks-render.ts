import { expect, vi } from "vitest";
import type { RenderResult } from "../contracts/events.js";
import type { FormatSpec } from "../contracts/formatter.js";
import { expectRenderError } from "./assertions.js";
import type { FakeEngine } from "./fake-engine.js";
import { BUSY_PAGE_JS } from "./formatter-fixture.js";
import type { FormatterHarness } from "./formatter-harness.js";
import { magicFor } from "./formatter-magic.js";

/** The smallest `global_timeout` the core takes, in ms. */
const SHORTEST_GLOBAL_TIMEOUT = 1_000;

/**
 * Renders `spec`'s sample and checks what a client gets: the result names the format and content
 * type, the stored object holds `size` non-empty bytes under the format's extension, and the bytes
 * pass the built-in check for their media type and the sample's own `check`.
 */
async function renderSample(h: FormatterHarness, spec: FormatSpec): Promise<RenderResult> {
  const at = `format ${spec.format}`;
  const result = await h.renderer.render(h.request(spec.format));
  expect(result.format, `${at}: result.format`).toBe(spec.format);
  expect(result.contentType, `${at}: result.contentType`).toBe(spec.contentType);
  expect(result.key.endsWith(`.${spec.extension}`), `${at}: key ${result.key} ends with .${spec.extension}`).toBe(true);
  const { bytes, contentType } = await h.bytes(result);
  expect(bytes.length, `${at}: stored bytes`).toBeGreaterThan(0);
  expect(result.size, `${at}: result.size is the stored size`).toBe(bytes.length);
  expect(contentType, `${at}: stored content type`).toBe(spec.contentType);
  const magic = magicFor(spec.contentType);
  const { check } = h.sample(spec.format);
  if (!magic && !check) {
    throw new Error(`${at}: no built-in check knows ${spec.contentType}; give samples.${spec.format}.check`);
  }
  expect(magic?.(bytes), `${at}: the bytes`).toBeUndefined();
  await check?.(bytes, result);
  return result;
}

/** The budget runs out while the page is busy, just after the page is prepared. */
async function abortBusy(h: FormatterHarness, spec: FormatSpec): Promise<void> {
  const cut = h.renderer.render(h.request(spec.format, { globalTimeout: SHORTEST_GLOBAL_TIMEOUT, js: BUSY_PAGE_JS }));
  const error = await expectRenderError(cut, "RenderTimeoutError");
  expect(error.message, `format ${spec.format}`).toContain("global_timeout");
}

/**
 * On the fake engine, the page stalls (`FakeFault` `stall`) instead of being kept busy by a
 * script, and the clock is a fake one: `global_timeout` runs out at once, not after a second.
 */
async function abortOnFake(h: FormatterHarness, fake: FakeEngine, spec: FormatSpec): Promise<void> {
  const stalled = fake.inject({ kind: "stall" });
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
  try {
    const cut = h.renderer.render(h.request(spec.format, { globalTimeout: SHORTEST_GLOBAL_TIMEOUT }));
    const ended = cut.then(
      () => "it rendered without a call to the page after opening it",
      (error: unknown) => `it failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    const first = await Promise.race([stalled.then(() => undefined), ended]);
    if (first !== undefined) throw new Error(`format ${spec.format}: the page never stalled, ${first}`);
    await vi.advanceTimersByTimeAsync(SHORTEST_GLOBAL_TIMEOUT);
    const error = await expectRenderError(cut, "RenderTimeoutError");
    expect(error.message, `format ${spec.format}`).toContain("global_timeout");
  } finally {
    fake.clearFaults();
    vi.useRealTimers();
  }
}

/** Checks of real renders through the renderer, as a client makes them. */
export function renderChecks(h: FormatterHarness): void {
  h.check("renders the fixture page in every format: stored bytes that look right, result format and content type", async () => {
    for (const { spec } of h.specs) await renderSample(h, spec);
  });

  h.check(
    "a render aborted while the formatter works fails with a RenderError, and the renderer renders afterwards",
    async () => {
      for (const { spec } of h.specs) {
        if (h.fake) await abortOnFake(h, h.fake, spec);
        else await abortBusy(h, spec);
        await expect.poll(() => h.renderer.engine().stats().pages, { timeout: 15_000 }).toBe(0);
        await renderSample(h, spec);
      }
    },
  );
}
