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
import type { BrowserContext, Page } from "playwright-core";
import { translateError } from "./errors.js";
import type { LoadedPage } from "./load-page.js";
import type { BlockCounter } from "./request-filter.js";

/** A loaded page in its own browser context; closing it closes the context and the proxy session. */
export class PlaywrightSession implements PageSession {
  private closing: Promise<void> | undefined;
  readonly page: Page;
  readonly context: BrowserContext;
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

  evaluate<R = unknown>(source: string, arg?: unknown): Promise<R> {
    // A string expression runs through the DevTools protocol, so page CSP cannot block it.
    const expression = `(${source})(${arg === undefined ? "" : JSON.stringify(arg)})`;
    return this.page.evaluate(expression) as Promise<R>;
  }

  async waitForSelector(
    selector: string,
    options: { state: "attached" | "visible" | "detached" | "hidden"; timeoutMs: number },
  ): Promise<boolean> {
    try {
      await this.page.waitForSelector(selector, { state: options.state, timeout: options.timeoutMs });
      return true;
    } catch (error) {
      const translated = translateError(error, `waiting for ${selector}`);
      if (translated.code === "RenderTimeoutError") return false;
      throw translated;
    }
  }

  async click(selector: string, options: { all: boolean; timeoutMs: number }): Promise<number> {
    const locator = this.page.locator(selector);
    try {
      if ((await locator.count()) === 0) return 0;
      if (!options.all) {
        await locator.first().click({ timeout: options.timeoutMs });
        return 1;
      }
      const all = await locator.all();
      for (const item of all) await item.click({ timeout: options.timeoutMs }).catch(() => undefined);
      return all.length;
    } catch (error) {
      const translated = translateError(error, `clicking ${selector}`);
      if (translated.code === "RenderTimeoutError") return 0;
      throw translated;
    }
  }

  async hover(selector: string, options: { timeoutMs: number }): Promise<boolean> {
    const target = this.page.locator(selector).filter({ visible: true }).first();
    const deadline = Date.now() + options.timeoutMs;
    try {
      await target.waitFor({ state: "attached", timeout: options.timeoutMs });
      // `force`: an overlay over the element must not turn the hover into a timeout; the mouse
      // goes to the element's centre (after scrolling it into view) whatever is on top.
      await target.hover({ force: true, timeout: Math.max(1, deadline - Date.now()) });
      return true;
    } catch (error) {
      const translated = translateError(error, `hovering ${selector}`);
      if (translated.code === "RenderTimeoutError") return false;
      throw translated;
    }
  }

  press(key: string): Promise<void> {
    return this.run(`pressing ${key}`, () => this.page.keyboard.press(key));
  }

  blockedRequests(): number {
    return this.counter.blocked;
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

  elementBox(selector: string): Promise<Box | undefined> {
    return this.run(`measuring ${selector}`, () =>
      this.page.evaluate((sel) => {
        const el = document.querySelector(sel);
        if (!el) return undefined;
        const r = el.getBoundingClientRect();
        return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
      }, selector),
    );
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

  screenshot(settings: ScreenshotSettings): Promise<Uint8Array> {
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
      startCdpScreencast(await this.context.newCDPSession(this.page), settings, onFrame),
    );
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await withTimeout(this.context.close(), 5_000).catch(() => undefined);
      } finally {
        await this.egress.close();
        this.onClose();
      }
    })();
    return this.closing;
  }
}
