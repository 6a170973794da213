import { EventEmitter } from "node:events";
import type { ScreencastFrame } from "@renderkit/core";
import { type ScreencastFrameEvent, startCdpScreencast } from "@renderkit/core/chromium";
import { describe, expect, it } from "vitest";

/**
 * The ordering rule alone, on a DevTools channel that replays the frame events a busy Chromium
 * sent (a paint delivered after a later one): the real browser does it too rarely to test on.
 */
function channel() {
  const events = new EventEmitter();
  const sent: string[] = [];
  return {
    sent,
    emit: (timestamp: number, sessionId: number) =>
      events.emit("Page.screencastFrame", {
        data: Buffer.from([0xff, 0xd8, 0xff]).toString("base64"),
        sessionId,
        metadata: { timestamp },
      }),
    cdp: {
      send: async (method: string) => {
        sent.push(method);
      },
      on: (name: string, listener: (event: ScreencastFrameEvent) => void) => events.on(name, listener),
      off: (name: string, listener: (event: ScreencastFrameEvent) => void) => events.off(name, listener),
      detach: async () => undefined,
    },
  };
}

describe("startCdpScreencast", () => {
  it("hands frames on in timestamp order, dropping a stale one that arrives late, and acknowledges every frame", async () => {
    const { cdp, emit, sent } = channel();
    const frames: ScreencastFrame[] = [];
    const cast = await startCdpScreencast(cdp, { format: "jpeg", quality: 60, maxWidth: 400, maxHeight: 300 }, (f) =>
      frames.push(f),
    );
    for (const [i, t] of [10.0, 10.02, 10.04, 10.03, 10.06].entries()) emit(t, i);
    expect(frames.map((f) => f.timestamp)).toEqual([10.0, 10.02, 10.04, 10.06]);
    expect(sent.filter((m) => m === "Page.screencastFrameAck")).toHaveLength(5);
    await cast.stop();
    emit(11, 9);
    expect(frames).toHaveLength(4);
  });
});
