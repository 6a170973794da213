import { AddressPolicy, ConsoleLogger, type ScreencastFrame } from "@renderkit/core";
import { makePageSettings } from "@renderkit/core/testing";
import { PuppeteerEngine } from "@renderkit/engine-puppeteer";
import { afterAll, describe, expect, it } from "vitest";

/** The contract suite has no screencast check; this one covers what format plugins rely on. */
const engine = new PuppeteerEngine({}, new ConsoleLogger("silent"));
afterAll(() => engine.close());

const ANIMATED = `<!doctype html><style>body{margin:0}div{width:100px;height:100px;background:red;animation:m 1s linear infinite}
@keyframes m{from{transform:translateX(0)}to{transform:translateX(300px)}}</style><div></div>`;

describe("PuppeteerEngine screencast", () => {
  it("streams ordered JPEG frames until stopped, then none", async () => {
    const session = await engine.open(
      { html: ANIMATED },
      makePageSettings(new AddressPolicy(), { width: 400, height: 300 }),
      new AbortController().signal,
    );
    try {
      const frames: ScreencastFrame[] = [];
      const cast = await session.screencast?.({ format: "jpeg", quality: 60, maxWidth: 400, maxHeight: 300 }, (f) =>
        frames.push(f),
      );
      expect(cast).toBeDefined();
      await new Promise((r) => setTimeout(r, 800));
      await cast?.stop();
      const count = frames.length;
      expect(count).toBeGreaterThan(3);
      for (const frame of frames) expect([...frame.data.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
      const times = frames.map((f) => f.timestamp);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      await new Promise((r) => setTimeout(r, 300));
      expect(frames.length).toBe(count);
      await cast?.stop();
    } finally {
      await session.close();
    }
    expect(engine.stats().pages).toBe(0);
  });
});
