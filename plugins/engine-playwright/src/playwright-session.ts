import type {
  Box,
  ElementQuery,
  PageCookie,
  PageSession,
  PdfSettings,
  RenderError,
  Screencast,
  ScreencastFrame,
  ScreencastSettings,
  ScreenshotSettings,
} from "@renderkit/core";
import { withTimeout } from "@renderkit/core";
import {
  ChromiumSessionBase,
  captureMhtml,
  captureOrRetry,
  type DevtoolsSession,
  type LoadedParts,
  NEXT_FRAME,
  type ScreencastChannel,
  startCdpScreencast,
} from "@renderkit/core/chromium";
import { pageCookie } from "@renderkit/core/page";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { devtoolsLinkOf } from "./connection.js";
import { driverTimeout } from "./driver.js";
import { translateError } from "./errors.js";
import type { LoadedPage } from "./load-page.js";

type DirectArea = { clip?: Box & { scale: number }; captureBeyondViewport?: boolean };

/**
 * What a direct capture (`Page.captureScreenshot` on the page's own DevTools session) takes: the
 * viewport as it is, or a clip of the document (`fullPage` with `clip`: document coordinates, laid
 * out beyond the viewport as Puppeteer does), with or without a background; undefined for the
 * other modes. Chromium resets the capturing session's emulation after a capture beyond the
 * viewport: at scale 1, the only one captured this way, the page's viewport, screen and scale stay
 * as Playwright set them (checked).
 */
function directArea(settings: ScreenshotSettings): DirectArea | undefined {
  if (!settings.fullPage && !settings.clip) return {};
  if (settings.fullPage && settings.clip) return { clip: { ...settings.clip, scale: 1 }, captureBeyondViewport: true };
  return undefined;
}

/** A loaded page in its own browser context; closing it closes the context and the proxy session. */
export class PlaywrightSession extends ChromiumSessionBase implements PageSession {
  readonly page: Page;
  readonly context: BrowserContext;
  /** The page's own DevTools session for direct screenshots (`directArea`), when it has one (URL renders, reusable pages). */
  private readonly devtools: DevtoolsSession | undefined;

  /**
   * `deviceScaleFactor`: the context's; at 1 a viewport or clip screenshot is taken straight from
   * Chromium (a DevTools session of our own sees the page at CSS scale, not Playwright's emulated one).
   */
  constructor(loaded: LoadedPage & Pick<LoadedParts, "recycle">, timeoutMs: number, onClose: () => void, deviceScaleFactor = 1) {
    super(loaded, timeoutMs, onClose);
    this.page = loaded.page;
    this.context = loaded.context;
    this.devtools = deviceScaleFactor === 1 ? (loaded.devtools as DevtoolsSession | undefined) : undefined;
  }

  protected translate(error: unknown, what: string): RenderError {
    return translateError(error, what);
  }

  protected inPage<R>(fn: (arg: string) => R, arg: string): Promise<R> {
    return this.page.evaluate(fn, arg);
  }

  protected async documentLoaded(timeoutMs: number): Promise<void> {
    await this.page.waitForLoadState("load", { timeout: timeoutMs }).catch(() => undefined);
  }

  protected closeContext(): Promise<void> {
    return this.context.close();
  }

  evaluate<R = unknown>(source: string, arg?: unknown): Promise<R> {
    // A string expression runs through the DevTools protocol, so page CSP cannot block it.
    const expression = `(${source})(${arg === undefined ? "" : JSON.stringify(arg)})`;
    return this.onSettledDocument(() => this.page.evaluate(expression) as Promise<R>);
  }

  waitForSelector(
    selector: string,
    options: { state: "attached" | "visible" | "detached" | "hidden"; timeoutMs: number },
  ): Promise<boolean> {
    return this.unlessTimeout(
      `waiting for ${selector}`,
      async () => {
        await this.page.waitForSelector(selector, { state: options.state, timeout: options.timeoutMs });
        return true;
      },
      false,
    );
  }

  click(selector: ElementQuery, options: { all: boolean; timeoutMs: number }): Promise<number> {
    // Playwright's `xpath=` engine takes the rest of the selector as the expression.
    const locator = this.page.locator(typeof selector === "string" ? selector : `xpath=${selector.xpath}`);
    return this.unlessTimeout(
      `clicking ${typeof selector === "string" ? selector : selector.xpath}`,
      async () => {
        if ((await locator.count()) === 0) return 0;
        if (!options.all) {
          await locator.first().click({ timeout: options.timeoutMs });
          return 1;
        }
        // Every visible match, each waited on until it can be clicked; hidden ones are skipped.
        const all = await locator.filter({ visible: true }).all();
        let clicked = 0;
        for (const item of all) {
          if (
            await item.click({ timeout: options.timeoutMs }).then(
              () => true,
              () => false,
            )
          )
            clicked++;
        }
        return clicked;
      },
      0,
    );
  }

  hover(selector: string, options: { timeoutMs: number }): Promise<boolean> {
    const target = this.page.locator(selector).filter({ visible: true }).first();
    const deadline = Date.now() + options.timeoutMs;
    return this.unlessTimeout(
      `hovering ${selector}`,
      async () => {
        await target.waitFor({ state: "attached", timeout: options.timeoutMs });
        // `force`: an overlay over the element must not turn the hover into a timeout; the mouse
        // goes to the element's centre (after scrolling it into view) whatever is on top.
        await target.hover({ force: true, timeout: Math.max(1, deadline - Date.now()) });
        return true;
      },
      false,
    );
  }

  press(key: string): Promise<void> {
    return this.run(`pressing ${key}`, () => this.page.keyboard.press(key));
  }

  addStyle(css: string): Promise<void> {
    // Not `addStyleTag`: it waits for the tag's load event, which never fires with page scripts disabled.
    return this.run("adding CSS", () =>
      this.page.evaluate((text) => {
        const style = document.createElement("style");
        style.textContent = text;
        (document.head ?? document.documentElement).appendChild(style);
      }, css),
    );
  }

  screenshot(settings: ScreenshotSettings): Promise<Uint8Array> {
    const devtools = this.devtools;
    const area = directArea(settings);
    if (devtools && area) return this.run("taking the screenshot", () => this.directScreenshot(devtools, settings, area));
    // Playwright's own screenshot has no `optimizeForSpeed`: these captures (a full page without a
    // clip, a clip within the viewport) ignore the hint.
    return this.run("taking the screenshot", () =>
      this.page.screenshot({
        type: settings.type,
        quality: settings.type === "jpeg" ? settings.quality : undefined,
        fullPage: settings.fullPage,
        clip: settings.clip,
        omitBackground: settings.omitBackground,
        animations: "allow",
        caret: "initial",
        scale: "device",
        timeout: this.timeoutMs,
      }),
    );
  }

  /**
   * A capture straight from Chromium on the page's own session (`directArea`): Playwright's
   * screenshot adds steps around the same capture (~12 ms a render measured), which only its other
   * modes need, and cannot ask for `optimizeForSpeed`. With `omitBackground`, the page has no
   * default background while the capture runs, as Playwright's does on its own session.
   */
  private async directScreenshot(devtools: DevtoolsSession, settings: ScreenshotSettings, area: DirectArea): Promise<Uint8Array> {
    const params = {
      format: settings.type,
      quality: settings.type === "jpeg" ? settings.quality : undefined,
      optimizeForSpeed: settings.optimizeForSpeed,
      ...area,
    };
    const captureOnce = () =>
      withTimeout(devtools.send("Page.captureScreenshot", params), this.timeoutMs, () =>
        driverTimeout(`the screenshot took longer than ${this.timeoutMs} ms`),
      );
    const nextFrame = () => devtools.send("Runtime.evaluate", { expression: NEXT_FRAME, awaitPromise: true });
    const capture = () => captureOrRetry(captureOnce, nextFrame);
    if (!settings.omitBackground) return Buffer.from((await capture()).data, "base64");
    // Bounded as the capture is: the page's renderer answers these.
    const background = (params?: Record<string, unknown>) =>
      withTimeout(devtools.send("Emulation.setDefaultBackgroundColorOverride", params), this.timeoutMs, () =>
        driverTimeout(`clearing the background took longer than ${this.timeoutMs} ms`),
      );
    await background({ color: { r: 0, g: 0, b: 0, a: 0 } });
    try {
      return Buffer.from((await capture()).data, "base64");
    } finally {
      // Without a colour: the page's own default background again (a reused page's next render).
      await background().catch(() => undefined);
    }
  }

  pdf(settings: PdfSettings): Promise<Uint8Array> {
    return this.printPdf(() => this.page.pdf({ ...settings }));
  }

  content(): Promise<string> {
    return this.run("reading the DOM", () => this.page.content());
  }

  screencast(settings: ScreencastSettings, onFrame: (frame: ScreencastFrame) => void): Promise<Screencast> {
    return this.run("starting the screencast", async () => startCdpScreencast(await this.screencastChannel(), settings, onFrame));
  }

  /**
   * A DevTools session of the screencast's own (it detaches when the screencast stops): over the
   * browser's DevTools link at scale 1, where 30–50 frames a second of 100–200 KB each cost Node
   * less than through Playwright's `CDPSession`; else Playwright's, which frames the page at its
   * emulated scale.
   */
  private async screencastChannel(): Promise<ScreencastChannel> {
    const link = this.devtools && devtoolsLinkOf(this.context.browser() as Browser);
    if (!this.devtools || !link) return this.context.newCDPSession(this.page);
    const { targetInfo } = (await this.devtools.send("Target.getTargetInfo")) as { targetInfo: { targetId: string } };
    return (await link.attach(targetInfo.targetId)) as ScreencastChannel;
  }

  snapshot(): Promise<string> {
    return this.run("taking the MHTML snapshot", async () => {
      const cdp = await this.context.newCDPSession(this.page);
      try {
        return await captureMhtml(cdp);
      } finally {
        await cdp.detach().catch(() => undefined);
      }
    });
  }

  /** The context's cookies: every render has its own context, so these are the page's. */
  cookies(): Promise<PageCookie[]> {
    return this.run("reading the cookies", async () => (await this.context.cookies()).map(pageCookie));
  }
}
