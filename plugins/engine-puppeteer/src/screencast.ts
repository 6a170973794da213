import type { Screencast, ScreencastFrame, ScreencastSettings } from "@renderkit/core";
import type { Page } from "puppeteer-core";

interface FrameEvent {
  data: string;
  sessionId: number;
  metadata: { timestamp?: number };
}

/**
 * Chromium's `Page.startScreencast` over a DevTools session: every painted frame (up to the
 * display rate, ~50/s measured here). Puppeteer's own `page.screencast()` pipes ~10 frames/s to
 * its own ffmpeg and hangs on mp4 with Debian's ffmpeg 5.1 (environment.md), so it is not used.
 * Frames are acknowledged at once so Chromium never throttles waiting for us.
 */
export async function startScreencast(
  page: Page,
  settings: ScreencastSettings,
  onFrame: (frame: ScreencastFrame) => void,
): Promise<Screencast> {
  const cdp = await page.createCDPSession();
  let stopped = false;
  const listener = (event: FrameEvent) => {
    cdp.send("Page.screencastFrameAck", { sessionId: event.sessionId }).catch(() => undefined);
    if (stopped) return;
    onFrame({ data: Buffer.from(event.data, "base64"), timestamp: event.metadata.timestamp ?? Date.now() / 1000 });
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
