import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRenderer, type Renderer } from "@renderkit/core";
import { checkColour, imageFormats } from "@renderkit/format-image";
import sharp from "sharp";
import { afterEach, describe, expect, it } from "vitest";

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function renderer(plugin: ReturnType<typeof imageFormats>): Promise<Renderer> {
  const dataDir = await mkdtemp(join(tmpdir(), "rk-format-image-"));
  const made = await createRenderer({ plugins: [plugin], dataDir, logger: silent });
  cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
  cleanup.push(() => made.close());
  return made;
}

describe("imageFormats", () => {
  it("registers png, jpg, webp and avif in the renderer's own container", async () => {
    const a = await renderer(imageFormats());
    const b = await renderer(imageFormats());
    for (const r of [a, b]) expect(r.formats).toEqual(expect.arrayContaining(["png", "jpg", "webp", "avif", "pdf"]));
  });

  it("configures sharp when registered: its concurrency, no operation cache, from its first use on", async () => {
    await renderer(imageFormats({ concurrency: 3 }));
    // sharp is loaded by the first call that needs it (here a colour check), configured as registered.
    checkColour("bg_color", "#336699");
    expect(sharp.concurrency()).toBe(3);
    expect(sharp.cache().memory.max).toBe(0);
    // Once loaded, a later registration applies at once.
    await renderer(imageFormats({ concurrency: 2 }));
    expect(sharp.concurrency()).toBe(2);
  });

  it("refuses bad options when the factory is called", () => {
    expect(() => imageFormats({ avifEffort: 10 })).toThrow(/avifEffort/);
    expect(() => imageFormats({ webpEffort: 1.5 })).toThrow(/webpEffort/);
    expect(() => imageFormats({ concurrency: 0 })).toThrow(/concurrency/);
  });
});
