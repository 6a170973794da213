import { AddressPolicy, ConsoleLogger, type ScreencastFrame } from "@renderkit/core";
import { makePageSettings } from "@renderkit/core/testing";
import { PuppeteerEngine } from "@renderkit/engine-puppeteer";
import { afterAll, describe, expect, it } from "vitest";

/** The contract suite has no screencast check; this one covers what format plugins rely on. */
const engine = new PuppeteerEngine({}, new ConsoleLogger("silent"));
afterAll(() => engine.close());

const ANIMATED = `<!doctype html><style>body{margin:0}div{width:100px;height:100px;background:red;animation:m 1s linear infinite}
@keyframes m{from{transform:translateX(0)}to{transform:translateX(300px)}}</style><div></div>`;

/** Frames to collect: enough for order to mean something, whatever the machine's speed. */
const WANTED = 12;

describe("PuppeteerEngine screencast", () => {
  // Waits for frames rather than a time: a busy machine paints fewer frames per second, not fewer in all.
  it("streams JPEG frames in capture order until stopped, then none", async () => {
    const session = await engine.open(
      { html: ANIMATED },
      makePageSettings(new AddressPolicy(), { width: 400, height: 300 }),
      new AbortController().signal,
    );
    try {
      const frames: ScreencastFrame[] = [];
      let enough: () => void = () => undefined;
      const collected = new Promise<void>((resolve) => {
        enough = resolve;
      });
      const cast = await session.screencast?.({ format: "jpeg", quality: 60, maxWidth: 400, maxHeight: 300 }, (f) => {
        frames.push(f);
        if (frames.length >= WANTED) enough();
      });
      expect(cast).toBeDefined();
      await collected;
      await cast?.stop();
      const count = frames.length;
      for (const frame of frames) expect([...frame.data.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      // Handed on in capture order (paint timestamps never go back), even when Chromium's encoder
      // threads finish a later paint first.
      const times = frames.map((f) => f.timestamp);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      // A frame delivered after stop() resolved would be a bug at any speed; waiting on a page that
      // keeps animating gives one the chance to show up.
      await new Promise((r) => setTimeout(r, 300));
      expect(frames.length).toBe(count);
      await cast?.stop();
    } finally {
      await session.close();
    }
    expect(engine.stats().pages).toBe(0);
  });
});
