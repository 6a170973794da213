import type { Box, PdfSettings, ScreenshotSettings } from "../contracts/capture-settings.js";
import type { ElementQuery, PageCookie, PageResponse, PageSession, ResourceReport } from "../contracts/page-session.js";
import type { PageSettings, PageTarget } from "../contracts/page-settings.js";
import { RenderError } from "../errors.js";
import { htmlSnapshot } from "../page/html-snapshot.js";
import { type FakeContent, readContent } from "./fake-content.js";
import { fakeMhtml, fakePdf } from "./fake-documents.js";
import { type FakeLook, fakeScreenshot, TEXT_BAND } from "./fake-picture.js";

/**
 * Answers a page script the fake engine is asked to `evaluate` (it runs none itself): the value the
 * script would return (JSON, or a promise of it; `null` for a script that returns nothing), a throw
 * for a script that fails, or `undefined` to leave it to the fake, which answers the core's own
 * `htmlSnapshot` and refuses the rest.
 */
export type FakeEvaluate = (script: string, arg: unknown, page: FakePage) => unknown;

/** The browser pages belong to: a crash kills every page of it at once. */
export interface FakeBrowser {
  alive: boolean;
}

/** A fault a page plays from its first call on (see `FakeFault`); `struck` is called when it does. */
export interface PageFault {
  kind: "crash" | "stall";
  struck: () => void;
}

/** The error a page's calls reject with once its browser crashed: retryable, as real engines report it. */
export function browserCrashed(): RenderError {
  return new RenderError("EngineResponseNotOkError", "The browser crashed during the render (fake engine)", { retryable: true });
}

/** The source of a core helper's page script, learnt by running the helper against a recorder. */
function scriptOf(helper: (session: PageSession) => Promise<unknown>): string {
  let source = "";
  const recorder = {
    evaluate: (script: string) => {
      source = script;
      return Promise.resolve("");
    },
  };
  void helper(recorder as unknown as PageSession);
  return source;
}

/** `htmlSnapshot`'s script, compared whole: any change to it is picked up here. */
const SNAPSHOT_SCRIPT = scriptOf(htmlSnapshot);

export interface FakePageInit {
  target: PageTarget;
  settings: PageSettings;
  /** HTML a `url` target shows. */
  html: string;
  look: Omit<FakeLook, "text">;
  documentHeight?: number;
  evaluate?: FakeEvaluate;
  browser: FakeBrowser;
  fault?: PageFault;
  onClose: () => void;
}

/**
 * A loaded page without a browser (`FakeEngine`): its HTML is the content, its picture is fixed
 * (`FakeLook`), and every answer is deterministic. It runs no script: `evaluate` is answered by
 * `FakeEvaluate`. Simple selectors (`tag`, `#id`, `.class`) match the elements of its HTML.
 */
export class FakePage implements PageSession {
  readonly response: PageResponse;
  /** What the fake read from the page's HTML. */
  readonly parsed: FakeContent;
  readonly settings: PageSettings;
  /** Style sheets added with `addStyle`, in order. */
  readonly styles: string[] = [];
  /** Scripts given to `evaluate`, in order. */
  readonly scripts: string[] = [];
  private closed = false;
  private readonly whenClosed: Promise<void>;
  private markClosed: () => void = () => {};

  constructor(private readonly init: FakePageInit) {
    const { target, settings } = init;
    this.settings = settings;
    this.parsed = readContent(target.html ?? init.html);
    this.response =
      target.url === undefined
        ? { url: "about:blank" }
        : { url: target.url, status: 200, headers: { "content-type": "text/html; charset=utf-8" } };
    this.whenClosed = new Promise((resolve) => {
      this.markClosed = resolve;
    });
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Every asynchronous call of the page goes through here: a closed page, a crash or a stall answers first. */
  private async call<T>(work: () => T | Promise<T>): Promise<T> {
    if (this.closed) throw new Error("FakeEngine: the page is closed");
    if (!this.init.browser.alive) throw browserCrashed();
    const fault = this.init.fault;
    if (fault?.kind === "crash") {
      this.init.fault = undefined;
      this.init.browser.alive = false;
      fault.struck();
      throw browserCrashed();
    }
    if (fault?.kind === "stall") {
      fault.struck();
      // A page whose main thread never yields: nothing answers until the page is closed.
      await this.whenClosed;
      throw new Error("FakeEngine: the page was closed while it was busy");
    }
    return work();
  }

  private get size(): { width: number; height: number } {
    return { width: this.settings.width, height: this.init.documentHeight ?? this.settings.height };
  }

  bytesReceived(): number {
    const bytes = this.response.status === undefined ? 0 : Buffer.byteLength(this.parsed.html);
    const cap = this.settings.egressLimits?.maxBytes;
    if (cap !== undefined && bytes > cap) {
      throw new RenderError(
        "HTMLProcessError",
        "The page received more than this server's limit per render; the render was stopped",
      );
    }
    return bytes;
  }

  evaluate<R = unknown>(source: string, arg?: unknown): Promise<R> {
    return this.call(async () => {
      this.scripts.push(source);
      const answer = await this.init.evaluate?.(source, arg, this);
      if (answer !== undefined) return answer as R;
      if (source === SNAPSHOT_SCRIPT) return this.snapshotHtml() as R;
      const head = source.replace(/\s+/g, " ").trim().slice(0, 80);
      throw new Error(`FakeEngine runs no page script; answer this one with the engine's evaluate option: ${head}`);
    });
  }

  /** What `htmlSnapshot` answers: the HTML with a doctype, inside an `<html>` element. */
  private snapshotHtml(): string {
    const html = this.parsed.html.replace(/^\s*<!doctype[^>]*>\s*/i, "");
    return `<!DOCTYPE html>\n${/<html[\s>]/i.test(html) ? html : `<html><head></head><body>${html}</body></html>`}`;
  }

  waitForSelector(selector: string, options: { state: "attached" | "visible" | "detached" | "hidden" }): Promise<boolean> {
    return this.call(() => {
      const present = this.parsed.has(selector);
      return options.state === "attached" || options.state === "visible" ? present : !present;
    });
  }

  click(selector: ElementQuery, options: { all: boolean }): Promise<number> {
    return this.call(() => {
      if (typeof selector !== "string") return 0; // XPath matches nothing on a fake page
      const n = this.parsed.count(selector);
      return options.all ? n : Math.min(n, 1);
    });
  }

  hover(selector: string): Promise<boolean> {
    return this.call(() => this.parsed.has(selector));
  }

  press(_key: string): Promise<void> {
    return this.call(() => undefined);
  }

  blockedRequests(): number {
    return 0;
  }

  addStyle(css: string): Promise<void> {
    return this.call(() => {
      this.styles.push(css);
    });
  }

  /** A matching element's box is the text band's (the fake lays nothing out). */
  elementBox(selector: string): Promise<Box | undefined> {
    return this.call(() => {
      if (!this.parsed.has(selector)) return undefined;
      return {
        x: TEXT_BAND.x,
        y: TEXT_BAND.y,
        width: Math.min(TEXT_BAND.maxWidth, this.size.width - 16),
        height: TEXT_BAND.height,
      };
    });
  }

  documentSize(): Promise<{ width: number; height: number }> {
    return this.call(() => this.size);
  }

  screenshot(settings: ScreenshotSettings): Promise<Uint8Array> {
    return this.call(() => {
      const look = { ...this.init.look, text: this.parsed.lines.length > 0 };
      return fakeScreenshot(settings, this.settings, this.size, look);
    });
  }

  pdf(settings: PdfSettings): Promise<Uint8Array> {
    return this.call(() => fakePdf(this.parsed, settings, this.init.look.background));
  }

  content(): Promise<string> {
    return this.call(() => this.parsed.html);
  }

  snapshot(): Promise<string> {
    return this.call(() => fakeMhtml(this.parsed, this.response.url));
  }

  /** The request's cookies, as the browser context holds them (the fake's responses set none). */
  cookies(): Promise<PageCookie[]> {
    return this.call(() => {
      const host = this.response.status === undefined ? "" : new URL(this.response.url).hostname;
      return this.settings.cookies.map((c) => ({
        name: c.name,
        value: c.value,
        domain: c.domain ?? host,
        path: c.path ?? "/",
        expires: -1,
        httpOnly: c.httpOnly ?? false,
        secure: c.secure ?? false,
        ...(c.sameSite ? { sameSite: c.sameSite } : {}),
      }));
    });
  }

  /** The one request a fake page makes, its document's (none for supplied HTML). */
  resources(): ResourceReport | undefined {
    if (!this.settings.recordResources) return undefined;
    if (this.response.status === undefined) return { requests: [], omitted: 0 };
    const document = {
      url: this.response.url,
      type: "document",
      method: "GET",
      status: this.response.status,
      mimeType: "text/html",
      size: this.bytesReceived(),
      fromCache: false,
      finished: true,
      failed: false,
      blocked: false,
      reason: null,
    };
    return { requests: [document], omitted: 0 };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.markClosed();
    this.init.onClose();
  }
}
