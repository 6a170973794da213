import {
  type Box,
  type EgressSession,
  type PageResponse,
  type PageSession,
  type PdfSettings,
  RenderError,
  type Screencast,
  type ScreencastFrame,
  type ScreencastSettings,
  type ScreenshotSettings,
  startCdpScreencast,
  withTimeout,
} from "@renderkit/core";
import { type BrowserContext, type CDPSession, type ElementHandle, type KeyInput, type Page, TimeoutError } from "puppeteer-core";
import { isGone, translateError } from "./errors.js";
import type { LoadedPage } from "./load-page.js";
import type { BlockCounter } from "./request-filter.js";

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
export class PuppeteerSession implements PageSession {
  private closing: Promise<void> | undefined;
  readonly page: Page;
  readonly context: BrowserContext;
  /** The page's own DevTools session; attached while the page lives, since its overrides (locale, media) end with it. */
  readonly cdp: CDPSession;
  readonly response: PageResponse;
  private readonly egress: EgressSession;
  private readonly counter: BlockCounter;

  constructor(
    loaded: LoadedPage,
    private readonly timeoutMs: number,
    private readonly onClose: () => void,
  ) {
    this.page = loaded.page;
    this.context = loaded.context;
    this.cdp = loaded.cdp;
    this.response = loaded.response;
    this.egress = loaded.egress;
    this.counter = loaded.counter;
  }

  bytesReceived(): number {
    return this.egress.bytesReceived();
  }

  private async run<T>(what: string, action: () => Promise<T>): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw translateError(error, what);
    }
  }

  async evaluate<R = unknown>(source: string, arg?: unknown): Promise<R> {
    // A string expression runs through the DevTools protocol, so page CSP cannot block it.
    const expression = `(${source})(${arg === undefined ? "" : JSON.stringify(arg)})`;
    try {
      return (await this.page.evaluate(expression)) as R;
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

  async waitForSelector(selector: string, options: { state: SelectorState; timeoutMs: number }): Promise<boolean> {
    try {
      await this.waitFor(selector, options.state, options.timeoutMs);
      return true;
    } catch (error) {
      const translated = translateError(error, `waiting for ${selector}`);
      if (translated.code === "RenderTimeoutError") return false;
      throw translated;
    }
  }

  async click(selector: string, options: { all: boolean; timeoutMs: number }): Promise<number> {
    try {
      const matches = await this.page.$$(selector);
      try {
        if (matches.length === 0) return 0;
        if (!options.all) {
          // A locator waits until the element is visible, stable and enabled, as Playwright's click does.
          await this.page.locator(selector).setTimeout(options.timeoutMs).click();
          return 1;
        }
        for (const handle of matches) {
          await withTimeout(handle.click(), options.timeoutMs).catch(() => undefined);
        }
        return matches.length;
      } finally {
        await Promise.all(matches.map((m) => m.dispose().catch(() => undefined)));
      }
    } catch (error) {
      const translated = translateError(error, `clicking ${selector}`);
      if (translated.code === "RenderTimeoutError") return 0;
      throw translated;
    }
  }

  async hover(selector: string, options: { timeoutMs: number }): Promise<boolean> {
    const deadline = Date.now() + options.timeoutMs;
    try {
      for (;;) {
        const handle = (await this.page.evaluateHandle(FIRST_VISIBLE, selector)).asElement() as ElementHandle<Element> | null;
        if (handle) {
          try {
            // Scrolls it into view and moves the mouse to its centre (Puppeteer gives it no timeout).
            const left = Math.max(1_000, deadline - Date.now());
            await withTimeout(handle.hover(), left, () => new TimeoutError(`hovering took longer than ${left} ms`));
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
    } catch (error) {
      const translated = translateError(error, `hovering ${selector}`);
      if (translated.code === "RenderTimeoutError") return false;
      throw translated;
    }
  }

  press(key: string): Promise<void> {
    return this.run(`pressing ${key}`, () => this.page.keyboard.press(key as KeyInput));
  }

  blockedRequests(): number {
    return this.counter.blocked;
  }

  addStyle(css: string): Promise<void> {
    return this.run("adding CSS", async () => {
      const handle = await this.page.addStyleTag({ content: css });
      await handle.dispose();
    });
  }

  elementBox(selector: string): Promise<Box | undefined> {
    return this.run(`measuring ${selector}`, async () => {
      const box = await this.page.evaluate((sel: string) => {
        const el = document.querySelector(sel);
        if (!el) return null;
        const r = el.getBoundingClientRect();
        return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
      }, selector);
      return box ?? undefined;
    });
  }

  documentSize(): Promise<{ width: number; height: number }> {
    return this.run("measuring the page", () =>
      this.page.evaluate(() => {
        const d = document.documentElement;
        const b = document.body;
        return {
          width: Math.max(d.scrollWidth, b?.scrollWidth ?? 0, d.clientWidth),
          height: Math.max(d.scrollHeight, b?.scrollHeight ?? 0, d.clientHeight),
        };
      }),
    );
  }

  /** Fails with RenderTimeoutError when `action` outlives the page's budget (Puppeteer has no timeout here). */
  private bounded<T>(what: string, action: Promise<T>): Promise<T> {
    return withTimeout(action, this.timeoutMs, () => new TimeoutError(`${what} took longer than ${this.timeoutMs} ms`));
  }

  screenshot(settings: ScreenshotSettings): Promise<Uint8Array> {
    // Puppeteer refuses `clip` with `fullPage`. A clip with `captureBeyondViewport` is in document
    // coordinates and may lie below the fold (Chromium lays out the whole page for the capture).
    const area = settings.clip
      ? { clip: settings.clip, captureBeyondViewport: true }
      : { fullPage: settings.fullPage, captureBeyondViewport: settings.fullPage };
    return this.run("taking the screenshot", () =>
      this.bounded(
        "the screenshot",
        this.page.screenshot({
          type: settings.type,
          quality: settings.type === "jpeg" ? settings.quality : undefined,
          omitBackground: settings.omitBackground,
          ...area,
        }),
      ),
    );
  }

  pdf(settings: PdfSettings): Promise<Uint8Array> {
    return this.run("printing the PDF", () =>
      this.page.pdf({
        width: settings.width,
        height: settings.height,
        landscape: settings.landscape,
        margin: settings.margin,
        printBackground: settings.printBackground,
        scale: settings.scale,
        displayHeaderFooter: settings.displayHeaderFooter,
        headerTemplate: settings.headerTemplate,
        footerTemplate: settings.footerTemplate,
        pageRanges: settings.pageRanges,
        preferCSSPageSize: settings.preferCSSPageSize,
        // Playwright's defaults, so both engines print the same document: no tagged PDF, no outline.
        tagged: false,
        outline: false,
        timeout: Math.max(this.timeoutMs, 60_000),
      }),
    ).catch((error: unknown) => {
      if (error instanceof RenderError && /page range/i.test(error.message)) {
        throw new RenderError("InvalidOptions", "Option pdf_page_range does not match the document's pages", { cause: error });
      }
      throw error;
    });
  }

  content(): Promise<string> {
    return this.run("reading the DOM", () => this.page.content());
  }

  screencast(settings: ScreencastSettings, onFrame: (frame: ScreencastFrame) => void): Promise<Screencast> {
    return this.run("starting the screencast", async () =>
      startCdpScreencast(await this.page.createCDPSession(), settings, onFrame),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        // Closing the context ends its pages and their DevTools sessions (`cdp` included).
        await withTimeout(this.context.close(), 5_000).catch(() => undefined);
      } finally {
        await this.egress.close();
        this.onClose();
      }
    })();
    return this.closing;
  }
}
