import { type Box, type PageResponse, RenderError, type ResourceReport, withTimeout } from "../../index.js";
import type { EgressSession } from "../network/egress-proxy.js";
import type { ResourceLog } from "../page/resource-log.js";

/** What a loaded page hands its session, whatever the driver. */
export interface LoadedParts {
  response: PageResponse;
  egress: EgressSession;
  /** What the page's request filter blocked so far. */
  counter: { blocked: number };
  /** The page's requests, when it opened with `settings.recordResources`. */
  resources?: ResourceLog;
  /**
   * Hands the context, its page and the egress session to the engine's shelf for a later render
   * (`PageShelf.put`: reset, then kept or closed) instead of closing them; absent when the page
   * may not be reused. Resolves once the page is shelved or closed.
   */
  recycle?: () => Promise<void>;
}

/** In the page: the element's box in document coordinates, or null. */
function boxOf(selector: string): Box | null {
  const el = document.querySelector(selector);
  if (!el) return null;
  const r = el.getBoundingClientRect();
  return { x: r.left + window.scrollX, y: r.top + window.scrollY, width: r.width, height: r.height };
}

/** In the page: the scrollable size of the document. */
function sizeOfDocument(): { width: number; height: number } {
  const d = document.documentElement;
  const b = document.body;
  return {
    width: Math.max(d.scrollWidth, b?.scrollWidth ?? 0, d.clientWidth),
    height: Math.max(d.scrollHeight, b?.scrollHeight ?? 0, d.clientHeight),
  };
}

/**
 * What the drivers say when the page's document went away under a call because the page navigated
 * itself (a meta refresh, `location`, a form): the call did not fail, the document it read is gone.
 */
const NAVIGATED_AWAY =
  /Execution context was destroyed|Cannot find context with specified id|Not attached to an active page|Execution context is not available in detached frame|Failed to generate MHTML/;
/** Calls made again after the page navigated away under them, each once its new document loaded. */
const NAVIGATION_RETRIES = 5;
/** Pause before waiting for the new document (longer each time): the old one may still be there. */
const NAVIGATION_PAUSE_MS = 100;
/** How long a call waits for the new document to load before it tries again anyway. */
const NAVIGATION_WAIT_MS = 10_000;

/** Whether `error` says the page navigated away under the call (see `NAVIGATED_AWAY`). */
function navigatedAway(error: unknown): boolean {
  return NAVIGATED_AWAY.test(error instanceof Error ? error.message : String(error));
}

/**
 * What the Chromium engines' page sessions share: the response, byte and block counts, error
 * translation at the engine's edge, the in-page measurements, the PDF page-range error, and a
 * close that ends the browser context (bounded), then the render's egress proxy, exactly once.
 * A driver implements the rest of `PageSession`.
 */
export abstract class ChromiumSessionBase {
  readonly response: PageResponse;
  private readonly egress: EgressSession;
  private readonly counter: { blocked: number };
  private readonly resourceLog: ResourceLog | undefined;
  private readonly recycle: (() => Promise<void>) | undefined;
  private closing: Promise<void> | undefined;
  /** Calls to fail when the page's document is replaced (`documentReplaced`). */
  private readonly replacedWaiters: Array<(error: Error) => void> = [];

  protected constructor(
    loaded: LoadedParts,
    protected readonly timeoutMs: number,
    private readonly onClose: () => void,
  ) {
    this.response = loaded.response;
    this.egress = loaded.egress;
    this.counter = loaded.counter;
    this.resourceLog = loaded.resources;
    this.recycle = loaded.recycle;
  }

  /** Turns the driver's error into a RenderError naming `what` was being done. */
  protected abstract translate(error: unknown, what: string): RenderError;
  /** Runs a self-contained function in the page with one string argument. */
  protected abstract inPage<R>(fn: (arg: string) => R, arg: string): Promise<R>;
  /** Closes the browser context and so its pages. */
  protected abstract closeContext(): Promise<void>;
  /** Stops listening to the page (it may serve another render); called once, first thing in `close`. */
  protected detach(): void {}
  /** Waits until the page's current document has loaded (at most `timeoutMs`; never throws). */
  protected abstract documentLoaded(timeoutMs: number): Promise<void>;
  /**
   * Before each call that reads the page: waits while the main frame is loading a new document
   * (a navigation the page started itself), when the driver can tell. Never throws.
   */
  protected async documentSettled(): Promise<void> {}

  /**
   * Runs a call that reads the page; when the page navigated itself away under it (a meta refresh
   * after load), waits for the new document and makes the call again, as often as
   * `NAVIGATION_RETRIES`: what is rendered is the document the page settled on.
   */
  protected async onSettledDocument<T>(action: () => Promise<T>): Promise<T> {
    for (let retry = 0; ; retry++) {
      try {
        await this.documentSettled();
        return await this.untilReplaced(action());
      } catch (error) {
        if (retry >= NAVIGATION_RETRIES || !navigatedAway(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, NAVIGATION_PAUSE_MS * (retry + 1)));
        await this.documentLoaded(NAVIGATION_WAIT_MS);
      }
    }
  }

  /**
   * The driver calls this when the page's main frame committed a new document (not a same-document
   * navigation): calls running then fail as if the document went away, and are made again.
   * Chromium may never answer a screenshot or snapshot asked for while the old document unloads.
   */
  protected documentReplaced(): void {
    for (const fail of this.replacedWaiters.splice(0)) {
      fail(new Error("Execution context was destroyed: the page navigated during the call"));
    }
  }

  /** `call`, or the failure `documentReplaced` gives when the page navigates first. */
  private async untilReplaced<T>(call: Promise<T>): Promise<T> {
    call.catch(() => undefined);
    let fail: ((error: Error) => void) | undefined;
    const replaced = new Promise<never>((_, reject) => {
      fail = reject;
    });
    if (fail) this.replacedWaiters.push(fail);
    try {
      return await Promise.race([call, replaced]);
    } finally {
      const at = fail ? this.replacedWaiters.indexOf(fail) : -1;
      if (at >= 0) this.replacedWaiters.splice(at, 1);
    }
  }

  /** Throws the egress session's error once the page went over its byte cap (the contract's rule). */
  bytesReceived(): number {
    const over = this.egress.limitError();
    if (over) throw over;
    return this.egress.bytesReceived();
  }

  blockedRequests(): number {
    return this.counter.blocked;
  }

  /** The requests recorded so far (`settings.recordResources`), else undefined. */
  resources(): ResourceReport | undefined {
    return this.resourceLog?.report();
  }

  /** Runs a driver call; once the page went over its byte cap, every call fails with that error. */
  protected async run<T>(what: string, action: () => Promise<T>): Promise<T> {
    const over = this.egress.limitError();
    if (over) throw over;
    try {
      return await this.onSettledDocument(action);
    } catch (error) {
      throw this.egress.limitError() ?? this.translate(error, what);
    }
  }

  /** Like `run`, but a timeout answers `fallback` (waits that report "not found" instead of failing). */
  protected async unlessTimeout<T>(what: string, action: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await this.onSettledDocument(action);
    } catch (error) {
      const translated = this.translate(error, what);
      if (translated.code === "RenderTimeoutError") return fallback;
      throw translated;
    }
  }

  elementBox(selector: string): Promise<Box | undefined> {
    return this.run(`measuring ${selector}`, async () => (await this.inPage(boxOf, selector)) ?? undefined);
  }

  documentSize(): Promise<{ width: number; height: number }> {
    return this.run("measuring the page", () => this.inPage(sizeOfDocument, ""));
  }

  /** Prints with `print`; a page range outside the document is the caller's InvalidOptions. */
  protected async printPdf(print: () => Promise<Uint8Array>): Promise<Uint8Array> {
    try {
      return await this.run("printing the PDF", print);
    } catch (error) {
      if (error instanceof RenderError && /page range/i.test(error.message)) {
        throw new RenderError("InvalidOptions", "Option pdf_page_range does not match the document's pages", { cause: error });
      }
      throw error;
    }
  }

  /**
   * Ends the render's use of the page, and with it the browser lease. A reusable page
   * (`LoadedParts.recycle`) goes back to the engine: its reset (or its close, when it went over
   * its byte cap or the reset fails) runs after this resolves, off the render's path. Otherwise
   * the context and the egress session close here.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.detach();
      if (this.recycle) {
        // The engine closes instead what cannot be reused (a page over its byte cap included).
        void this.recycle().catch(() => undefined);
        this.onClose();
        return;
      }
      try {
        await withTimeout(this.closeContext(), 5_000).catch(() => undefined);
      } finally {
        await this.egress.close();
        this.onClose();
      }
    })();
    return this.closing;
  }
}
