import { readdir, readFile } from "node:fs/promises";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import { useLaunchedChromium } from "../helpers/launched-chromium.js";

/**
 * Chromium 156 loads the omnibox's WebUI popups for every window, so each browser context (one per
 * project and page) started a renderer process for an address bar a headless render never shows.
 * The browser renderkit launches opens none: its contexts hold their pages and nothing else. And
 * its screenshots draw a new surface rather than wait for the next frame: still the page as it is.
 * It opens no window at its start either.
 */

const launched = useLaunchedChromium();

/** Renderer processes in the browser's process group (its pid is the group id). */
async function renderers(): Promise<number> {
  const out: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    const group = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
    if (group !== launched.proc.pid) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "");
    if (cmdline.includes("--type=renderer")) out.push(Number(name));
  }
  return out.length;
}

describe("the launched Chromium", () => {
  it("opens no window at its start: pages are the renders' own", async () => {
    // An idle startup tab cost every render ~13 ms of the browser process's CPU.
    const session = await launched.browser.newBrowserCDPSession();
    const { targetInfos } = await session.send("Target.getTargets");
    expect(targetInfos.filter((target) => target.type === "page").map((target) => target.url)).toEqual([]);
    expect(await renderers()).toBe(0);
    await session.detach();
  }, 60_000);

  it("opens no browser UI for a new context: a renderer process per page, no more", async () => {
    const contexts = await Promise.all([1, 2, 3].map(() => launched.browser.newContext()));
    for (const [i, context] of contexts.entries()) {
      const page = await context.newPage();
      await page.goto(`data:text/html,<p>context ${i}</p>`);
    }
    const session = await launched.browser.newBrowserCDPSession();
    const { targetInfos } = await session.send("Target.getTargets");
    // Every target is one of the three pages, each in its own renderer.
    expect(targetInfos.map((target) => `${target.type} ${target.url.slice(0, 5)}`)).toEqual(Array(3).fill("page data:"));
    expect(await renderers()).toBe(3);
    await Promise.all(contexts.map((context) => context.close()));
  }, 60_000);

  it("captures what the page shows at that moment, each time (screenshots draw a new surface)", async () => {
    const context = await launched.browser.newContext({ viewport: { width: 200, height: 100 } });
    const page = await context.newPage();
    const session = await context.newCDPSession(page);
    await page.goto("data:text/html,<body style='margin:0;background:rgb(255,0,0)'>");
    for (const [r, g, b] of [
      [0, 128, 0],
      [0, 0, 255],
      [255, 255, 0],
    ]) {
      // The change and the capture back to back, with no frame waited for in between.
      await page.evaluate((colour) => {
        document.body.style.background = colour;
      }, `rgb(${r},${g},${b})`);
      const { data } = (await session.send("Page.captureScreenshot", { format: "png" })) as { data: string };
      const { data: pixels, info } = await sharp(Buffer.from(data, "base64")).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([200, 100]);
      const centre = (50 * 200 + 100) * info.channels;
      expect([...pixels.subarray(centre, centre + 3)]).toEqual([r, g, b]);
    }
    await context.close();
  }, 60_000);
});
