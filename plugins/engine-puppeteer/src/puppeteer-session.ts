import {
  type ElementQuery,
  type PageCookie,
  type PageSession,
  type PdfSettings,
  type RenderError,
  type Screencast,
  type ScreencastFrame,
  type ScreencastSettings,
  type ScreenshotSettings,
  withTimeout,
} from "@renderkit/core";
import {
  ChromiumSessionBase,
  captureMhtml,
  captureOrRetry,
  type LoadedParts,
  NEXT_FRAME,
  startCdpScreencast,
} from "@renderkit/core/chromium";
import { pageCookie } from "@renderkit/core/page";
import type { BrowserContext, CDPSession, ElementHandle, KeyInput, Page, Protocol } from "puppeteer-core";
import { driverTimeout } from "./driver.js";
import { isGone, translateError } from "./errors.js";
import type { LoadedPage } from "./load-page.js";

type SelectorState = "attached" | "visible" | "detached" | "hidden";

/** The first match with a non-empty box and not `visibility: hidden` (what Playwright calls visible), else null. */
const FIRST_VISIBLE = (selector: string): Element | null => {
  const matches = document.querySelectorAll(selector);
  for (let i = 0; i < matches.length; i++) {
    const el = matches[i] as Element;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== "hidden") return el;
  }
  return null;
};

/** A loaded page in its own browser context; closing it closes the context and the proxy session. */
export class PuppeteerSession extends ChromiumSessionBase implements PageSession {
  readonly page: Page;
  readonly context: BrowserContext;
  /** The page's own DevTools session; attached while the page lives, since its overrides (locale, media) end with it. */
  readonly cdp: CDPSession;

  constructor(loaded: LoadedPage & Pick<LoadedParts, "recycle">, timeoutMs: number, onClose: () => void) {
    super(loaded, timeoutMs, onClose);
    this.page = loaded.page;
    this.context = loaded.context;
    this.cdp = loaded.cdp;
    // The main frame's navigations (Page domain on in `setUpPage`): a call waits while one loads,
    // and fails, to be made again, when a new document replaces the one it reads.
    // The main frame's id, from the protocol (Puppeteer keeps its own private).
    let mainFrameId: string | undefined;
    this.cdp
      .send("Page.getFrameTree")
      .then(({ frameTree }) => {
        mainFrameId ??= frameTree.frame.id;
      })
      .catch(() => undefined);
    const main = () => mainFrameId;
    const navigated = (event: Protocol.Page.FrameNavigatedEvent) => {
      if (event.frame.parentId) return;
      mainFrameId = event.frame.id;
      this.documentReplaced();
    };
    const started = (event: Protocol.Page.FrameStartedLoadingEvent) => {
      if (event.frameId !== main() || this.loading) return;
      let done = () => {};
      const promise = new Promise<void>((resolve) => {
        done = resolve;
      });
      this.loading = { promise, resolve: done };
    };
    const stopped = (event: Protocol.Page.FrameStoppedLoadingEvent) => {
      if (event.frameId !== main()) return;
      this.loading?.resolve();
      this.loading = undefined;
    };
    this.cdp.on("Page.frameNavigated", navigated);
    this.cdp.on("Page.frameStartedLoading", started);
    this.cdp.on("Page.frameStoppedLoading", stopped);
    // The page may serve another render (its session stays): stop listening when this one ends.
    this.unlisten = () => {
      this.cdp.off("Page.frameNavigated", navigated);
      this.cdp.off("Page.frameStartedLoading", started);
      this.cdp.off("Page.frameStoppedLoading", stopped);
    };
  }

  private readonly unlisten: () => void;

  protected override detach(): void {
    this.unlisten();
  }

  /** While the main frame loads a document the page navigated to itself. */
  private loading: { promise: Promise<void>; resolve: () => void } | undefined;

  protected override async documentSettled(): Promise<void> {
    if (this.loading) await withTimeout(this.loading.promise, this.timeoutMs).catch(() => undefined);
  }

  protected translate(error: unknown, what: string): RenderError {
    return translateError(error, what);
  }

  protected inPage<R>(fn: (arg: string) => R, arg: string): Promise<R> {
    return this.page.evaluate(fn, arg) as Promise<R>;
  }

  protected async documentLoaded(timeoutMs: number): Promise<void> {
    // Puppeteer's function waits carry over to the page's next document.
    await this.page
      .waitForFunction(() => document.readyState === "complete", { timeout: timeoutMs, polling: 100 })
      .then((handle) => handle.dispose())
      .catch(() => undefined);
  }

  /** Closing the context ends its pages and their DevTools sessions (`cdp` included). */
  protected closeContext(): Promise<void> {
    return this.context.close();
  }

  async evaluate<R = unknown>(source: string, arg?: unknown): Promise<R> {
    // A string expression runs through the DevTools protocol, so page CSP cannot block it.
    const expression = `(${source})(${arg === undefined ? "" : JSON.stringify(arg)})`;
    try {
      return (await this.onSettledDocument(() => this.page.evaluate(expression))) as R;
    } catch (error) {
      // The page's own exception stays as it is (the caller reports its message); a lost browser is retryable.
      if (isGone(error)) throw translateError(error, "running a script");
      throw error;
    }
  }

  private async waitFor(selector: string, state: SelectorState, timeout: number): Promise<unknown> {
    // Puppeteer's waits swallow a malformed selector and time out; one query first lets it throw.
    await (await this.page.$(selector))?.dispose();
    if (state === "detached") {
      // Puppeteer's `hidden` also accepts a present but invisible element; detached means absent.
      return this.page.waitForFunction((s: string) => !document.querySelector(s), { timeout, polling: "mutation" }, selector);
    }
    return this.page.waitForSelector(selector, { visible: state === "visible", hidden: state === "hidden", timeout });
  }

  waitForSelector(selector: string, options: { state: SelectorState; timeoutMs: number }): Promise<boolean> {
    return this.unlessTimeout(
      `waiting for ${selector}`,
      async () => {
        await this.waitFor(selector, options.state, options.timeoutMs);
        return true;
      },
      false,
    );
  }

  click(query: ElementQuery, options: { all: boolean; timeoutMs: number }): Promise<number> {
    // `xpath/` hands the rest to Puppeteer's XPath handler verbatim (`::-p-xpath()` would need CSS quoting).
    const selector = typeof query === "string" ? query : `xpath/${query.xpath}`;
    return this.unlessTimeout(
      `clicking ${typeof query === "string" ? query : query.xpath}`,
      async () => {
        const matches = await this.page.$$(selector);
        try {
          if (matches.length === 0) return 0;
          if (!options.all && this.page.isJavaScriptEnabled()) {
            // A locator waits until the element is visible, stable and enabled, as Playwright's click does.
            await this.page.locator(selector).setTimeout(options.timeoutMs).click();
            return 1;
          }
          if (!options.all) {
            // Without page scripts a locator's stability check (animation frames) never ends; the
            // handle's click scrolls the element into view and clicks its centre over DevTools.
            await withTimeout((matches[0] as ElementHandle).click(), options.timeoutMs);
            return 1;
          }
          // A hidden match fails at once ("not visible"); only real clicks are counted.
          let clicked = 0;
          for (const handle of matches) {
            if (
              await withTimeout(handle.click(), options.timeoutMs).then(
                () => true,
                () => false,
              )
            )
              clicked++;
          }
          return clicked;
        } finally {
          await Promise.all(matches.map((m) => m.dispose().catch(() => undefined)));
        }
      },
      0,
    );
  }

  hover(selector: string, options: { timeoutMs: number }): Promise<boolean> {
    const deadline = Date.now() + options.timeoutMs;
    return this.unlessTimeout(`hovering ${selector}`, () => this.hoverFirstVisible(selector, deadline), false);
  }

  /** Hovers the first visible match, looking again until `deadline`; false when none shows up. */
  private async hoverFirstVisible(selector: string, deadline: number): Promise<boolean> {
    for (;;) {
      const handle = (await this.page.evaluateHandle(FIRST_VISIBLE, selector)).asElement() as ElementHandle<Element> | null;
      if (handle) {
        try {
          // Scrolls it into view and moves the mouse to its centre (Puppeteer gives it no timeout).
          const left = Math.max(1_000, deadline - Date.now());
          await withTimeout(handle.hover(), left, () => driverTimeout(`hovering took longer than ${left} ms`));
          return true;
        } catch (error) {
          // Detached or hidden since it was found: look again until the deadline.
          if (isGone(error)) throw error;
        } finally {
          await handle.dispose().catch(() => undefined);
        }
      }
      if (Date.now() >= deadline) return false;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  press(key: string): Promise<void> {
    return this.run(`pressing ${key}`, () => this.page.keyboard.press(key as KeyInput));
  }

  addStyle(css: string): Promise<void> {
    return this.run("adding CSS", async () => {
      const handle = await this.page.addStyleTag({ content: css });
      await handle.dispose();
    });
  }

  /** Fails with RenderTimeoutError when `action` outlives the page's budget (Puppeteer has no timeout here). */
  private bounded<T>(what: string, action: Promise<T>): Promise<T> {
    return withTimeout(action, this.timeoutMs, () => driverTimeout(`${what} took longer than ${this.timeoutMs} ms`));
  }

  screenshot(settings: ScreenshotSettings): Promise<Uint8Array> {
    // Puppeteer refuses `clip` with `fullPage`. A clip with `captureBeyondViewport` is in document
    // coordinates and may lie below the fold (Chromium lays out the whole page for the capture).
    const area = settings.clip
      ? { clip: settings.clip, captureBeyondViewport: true }
      : { fullPage: settings.fullPage, captureBeyondViewport: settings.fullPage };
    const capture = () =>
      this.bounded(
        "the screenshot",
        this.page.screenshot({
          type: settings.type,
          quality: settings.type === "jpeg" ? settings.quality : undefined,
          omitBackground: settings.omitBackground,
          optimizeForSpeed: settings.optimizeForSpeed,
          ...area,
        }),
      );
    const nextFrame = () => this.cdp.send("Runtime.evaluate", { expression: NEXT_FRAME, awaitPromise: true });
    return this.run("taking the screenshot", () => captureOrRetry(capture, nextFrame));
  }

  pdf(settings: PdfSettings): Promise<Uint8Array> {
    return this.printPdf(() =>
      this.page.pdf({
        ...settings,
        // Playwright's defaults unless asked, so both engines print the same document.
        tagged: settings.tagged ?? false,
        outline: settings.outline ?? false,
        timeout: Math.max(this.timeoutMs, 60_000),
      }),
    );
  }

  content(): Promise<string> {
    return this.run("reading the DOM", () => this.page.content());
  }

  screencast(settings: ScreencastSettings, onFrame: (frame: ScreencastFrame) => void): Promise<Screencast> {
    return this.run("starting the screencast", async () =>
      startCdpScreencast(await this.page.createCDPSession(), settings, onFrame),
    );
  }

  snapshot(): Promise<string> {
    return this.run("taking the MHTML snapshot", () => this.bounded("the MHTML snapshot", captureMhtml(this.cdp)));
  }

  /** The context's cookies: every render has its own context, so these are the page's. */
  cookies(): Promise<PageCookie[]> {
    return this.run("reading the cookies", async () => (await this.context.cookies()).map(pageCookie));
  }
}
