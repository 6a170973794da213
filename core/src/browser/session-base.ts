import type { Box, PageResponse, ResourceReport } from "../contracts/engine.js";
import { RenderError } from "../errors.js";
import type { EgressSession } from "../network/egress-proxy.js";
import type { ResourceLog } from "../page/resource-log.js";
import { withTimeout } from "../util/timeout.js";

/** What a loaded page hands its session, whatever the driver. */
export interface LoadedParts {
  response: PageResponse;
  egress: EgressSession;
  /** What the page's request filter blocked so far. */
  counter: { blocked: number };
  /** The page's requests, when it opened with `settings.recordResources`. */
  resources?: ResourceLog;
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
  private closing: Promise<void> | undefined;

  protected constructor(
    loaded: LoadedParts,
    protected readonly timeoutMs: number,
    private readonly onClose: () => void,
  ) {
    this.response = loaded.response;
    this.egress = loaded.egress;
    this.counter = loaded.counter;
    this.resourceLog = loaded.resources;
  }

  /** Turns the driver's error into a RenderError naming `what` was being done. */
  protected abstract translate(error: unknown, what: string): RenderError;
  /** Runs a self-contained function in the page with one string argument. */
  protected abstract inPage<R>(fn: (arg: string) => R, arg: string): Promise<R>;
  /** Closes the browser context and so its pages. */
  protected abstract closeContext(): Promise<void>;

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
      return await action();
    } catch (error) {
      throw this.egress.limitError() ?? this.translate(error, what);
    }
  }

  /** Like `run`, but a timeout answers `fallback` (waits that report "not found" instead of failing). */
  protected async unlessTimeout<T>(what: string, action: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await action();
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

  close(): Promise<void> {
    this.closing ??= (async () => {
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
