import { expect } from "vitest";
import type { ScreencastFrame } from "../contracts/capture-settings.js";
import type { EngineHarness } from "./engine-harness.js";

/** Width and height of a baseline or progressive JPEG, from its start-of-frame segment. */
function jpegSize(data: Buffer): { width: number; height: number } | undefined {
  if (data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  for (let at = 2; at + 9 < data.length; at += 2 + data.readUInt16BE(at + 2)) {
    if (data[at] !== 0xff) return undefined;
    const marker = data[at + 1] ?? 0;
    if (marker >= 0xc0 && marker <= 0xc2) return { height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
  }
  return undefined;
}

/** In the page: a box moved every animation frame, so every frame paints something new. */
const ANIMATE = `() => {
  const box = document.body.appendChild(document.createElement("div"));
  box.style.cssText = "position:fixed;left:0;top:0;width:40px;height:40px;background:#c00";
  (function move(t) { box.style.transform = "translateX(" + (t / 5) % 300 + "px)"; requestAnimationFrame(move); })(0);
}`;

/** In the page: resolves after `n` animation frames. */
const FRAMES =
  "(n) => new Promise((done) => { const next = () => (n-- > 0 ? requestAnimationFrame(next) : done(true)); next(); })";

/**
 * The optional primitives side renders use: the MHTML snapshot (`snapshot` capability), the
 * context's cookies, the main document's response headers and the request log. An engine that
 * offers a method must answer as its contract says; one that lacks it is skipped here (the core
 * refuses the options that need it).
 */
export function sideChecks(h: EngineHarness): void {
  h.check(
    "snapshot is an MHTML document of the live DOM",
    async () => {
      await h.withPage({ url: h.url("/") }, {}, async (s) => {
        const mhtml = await s.snapshot?.();
        expect(mhtml).toMatch(/^From: <Saved by Blink>/);
        expect(mhtml).toMatch(/Content-Type: multipart\/related/i);
        // Quoted-printable: soft line breaks join lines.
        expect(mhtml?.replaceAll("=\r\n", "")).toContain("built by script");
      });
    },
    "snapshot",
  );

  h.check("cookies lists the context's cookies: the request's own and those the page set", async () => {
    const cookies = [{ name: "sent", value: "by-request", domain: "127.0.0.1", path: "/" }];
    await h.withPage({ url: h.url("/storage") }, { cookies }, async (s) => {
      if (!s.cookies) return;
      await s.evaluate("() => { document.cookie = 'made=by-script; path=/'; }");
      const seen = await s.cookies();
      const byName = Object.fromEntries(seen.map((c) => [c.name, c]));
      expect(byName.sent).toMatchObject({ value: "by-request", domain: "127.0.0.1", path: "/", expires: -1 });
      expect(byName.made).toMatchObject({ value: "by-script", path: "/" });
    });
  });

  h.check("response carries the main document's headers in lower case; supplied html has none", async () => {
    await h.withPage({ url: h.url("/to-home") }, {}, async (s) => {
      if (s.response.headers === undefined) return;
      expect(s.response.status).toBe(200);
      expect(s.response.headers["content-type"]).toBe("text/html; charset=utf-8");
    });
    await h.withPage({ html: "<p>supplied</p>" }, {}, async (s) => {
      expect(s.response.headers).toBeUndefined();
    });
  });

  h.check("resources lists the page's requests only when recording was asked for", async () => {
    await h.withPage({ url: h.url("/echo") }, { recordResources: true }, async (s) => {
      if (!s.resources) return;
      const report = s.resources();
      const paths = (report?.requests ?? []).map((r) => new URL(r.url).pathname);
      expect(paths).toEqual(expect.arrayContaining(["/echo", "/pixel"]));
      const page = report?.requests.find((r) => new URL(r.url).pathname === "/echo");
      expect(page).toMatchObject({ type: "document", method: "GET", status: 200, failed: false, blocked: false });
    });
    await h.withPage({ url: h.url("/echo") }, {}, async (s) => {
      expect(s.resources?.()).toBeUndefined();
    });
  });

  h.check(
    "screencast streams the page's paints as JPEG frames in order, within the size asked, until stopped",
    async () => {
      await h.withPage({ url: h.url("/") }, {}, async (s) => {
        await s.evaluate(ANIMATE);
        const frames: ScreencastFrame[] = [];
        let enough: () => void = () => undefined;
        const five = new Promise<void>((resolve) => {
          enough = resolve;
        });
        const settings = { format: "jpeg" as const, quality: 80, maxWidth: 400, maxHeight: 300 };
        const cast = await s.screencast?.(settings, (frame) => {
          frames.push(frame);
          if (frames.length >= 5) enough();
        });
        if (!cast) throw new Error("an engine with the screencast capability has screencast()");
        await five;
        await cast.stop();
        const count = frames.length;
        for (const frame of frames) {
          expect([...frame.data.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
          const size = jpegSize(frame.data);
          expect(size, "each frame is a JPEG").toBeDefined();
          expect(size?.width).toBeLessThanOrEqual(400);
          expect(size?.height).toBeLessThanOrEqual(300);
        }
        // Handed on in capture order (paint timestamps never go back), even when Chromium's encoder
        // threads finish a later paint first.
        const times = frames.map((f) => f.timestamp);
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(new Set(frames.map((f) => f.data.toString("base64"))).size, "the box moved between frames").toBeGreaterThan(1);
        // The page paints on; the stopped screencast sends nothing more, and the page still answers.
        await s.evaluate(FRAMES, 10);
        expect(frames).toHaveLength(count);
        const shot = await s.screenshot({ type: "png", fullPage: false, omitBackground: false });
        expect(Buffer.from(shot).subarray(1, 4).toString()).toBe("PNG");
        // Stopping again is harmless.
        await cast.stop();
        expect(frames).toHaveLength(count);
      });
      // The page, and whatever the screencast held of it, closed with the session.
      expect(h.engine.stats().pages).toBe(0);
    },
    "screencast",
  );
}
