import type { Screencast, ScreencastFrame, ScreencastSettings } from "../../index.js";

/** `Page.screencastFrame` as far as renderkit reads it. */
export interface ScreencastFrameEvent {
  data: string;
  sessionId: number;
  metadata: { timestamp?: number };
}

/** The DevTools calls a screencast needs; Playwright's and Puppeteer's `CDPSession` both fit. */
export interface ScreencastChannel {
  send(method: "Page.startScreencast", params: ScreencastSettings & { everyNthFrame: number }): Promise<unknown>;
  send(method: "Page.screencastFrameAck", params: { sessionId: number }): Promise<unknown>;
  send(method: "Page.stopScreencast"): Promise<unknown>;
  on(event: "Page.screencastFrame", listener: (event: ScreencastFrameEvent) => void): unknown;
  off(event: "Page.screencastFrame", listener: (event: ScreencastFrameEvent) => void): unknown;
  detach(): Promise<unknown>;
}

/**
 * Chromium's `Page.startScreencast` over a page's own DevTools session: every painted frame (up to
 * the display rate, ~50/s measured here) instead of the ~10/s of the libraries' screencasts.
 * Frames are acknowledged at once so Chromium never throttles waiting for us, and handed on in
 * timestamp order (a stale frame arriving late is dropped). Stopping detaches the session.
 */
export async function startCdpScreencast(
  cdp: ScreencastChannel,
  settings: ScreencastSettings,
  onFrame: (frame: ScreencastFrame) => void,
): Promise<Screencast> {
  let stopped = false;
  let last = Number.NEGATIVE_INFINITY;
  const listener = (event: ScreencastFrameEvent) => {
    cdp.send("Page.screencastFrameAck", { sessionId: event.sessionId }).catch(() => undefined);
    if (stopped) return;
    const timestamp = event.metadata.timestamp ?? Date.now() / 1000;
    // On a busy machine Chromium now and then delivers a paint after a later one: that frame is
    // stale (a later picture was already handed on), and consumers rely on ordered timestamps.
    if (timestamp < last) return;
    last = timestamp;
    onFrame({ data: Buffer.from(event.data, "base64"), timestamp });
  };
  cdp.on("Page.screencastFrame", listener);
  await cdp.send("Page.startScreencast", {
    format: settings.format,
    quality: settings.quality,
    maxWidth: settings.maxWidth,
    maxHeight: settings.maxHeight,
    everyNthFrame: 1,
  });
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      await cdp.send("Page.stopScreencast").catch(() => undefined);
      cdp.off("Page.screencastFrame", listener);
      await cdp.detach().catch(() => undefined);
    },
  };
}
