import type {
  Box,
  PdfSettings,
  Screencast,
  ScreencastFrame,
  ScreencastSettings,
  ScreenshotSettings,
} from "./capture-settings.js";

/** The main document's response, as the page finally loaded it. */
export interface PageResponse {
  /** Address after redirects (`about:blank` for supplied HTML). */
  url: string;
  /** HTTP status of the main document; absent for supplied HTML. */
  status?: number;
  /** Response headers of the main document as the browser received them (lower-case names; repeated ones joined by a newline); absent for supplied HTML. */
  headers?: Record<string, string>;
}

/** A cookie of the page's browser context, as `PageSession.cookies` reports it. */
export interface PageCookie {
  name: string;
  value: string;
  domain: string;
  path: string;
  /** Expiry in seconds since the epoch; -1 for a session cookie. */
  expires: number;
  httpOnly: boolean;
  secure: boolean;
  /** Absent when the cookie did not say (Chromium then treats it as `Lax`). */
  sameSite?: "Strict" | "Lax" | "None";
}

/** One request the page made, as recorded with `PageSettings.recordResources`. */
export interface ResourceRecord {
  url: string;
  /** Chromium's resource type in lower case (`document`, `image`, `xhr`, `prefetch`...). */
  type: string;
  method: string;
  /** HTTP status; null when no response came (failed, blocked, or still loading). */
  status: number | null;
  /** Media type of the response (`text/html`); null without a response. */
  mimeType: string | null;
  /** Bytes received for it (headers and encoded body); 0 until it finished. */
  size: number;
  fromCache: boolean;
  /** False while still loading at capture time. */
  finished: boolean;
  failed: boolean;
  /** Blocked by the client: the request filter (`block_*` options) or the address policy. */
  blocked: boolean;
  /** Why it failed or was blocked (`net::ERR_BLOCKED_BY_CLIENT`); null otherwise. */
  reason: string | null;
}

/** What `PageSession.resources` hands back: the first requests, and how many more were left out. */
export interface ResourceReport {
  requests: ResourceRecord[];
  /** Requests beyond the recording cap, not listed. */
  omitted: number;
}

/**
 * Elements a step acts on: a CSS selector, or `{ xpath }`, an XPath 1.0 expression evaluated
 * against the document (its element results, in document order).
 */
export type ElementQuery = string | { readonly xpath: string };

/** One loaded page. The core drives preparation and capture through it, then closes it. */
export interface PageSession {
  readonly response: PageResponse;
  /**
   * Bytes the browser received for this page so far. Throws the render's `RenderError` once the
   * page went over its byte cap (`PageSettings.egressLimits`): the core reads it after the capture,
   * so a page that went over fails the render.
   */
  bytesReceived(): number;
  /** Runs `source` (a function expression or body with top-level await) in the page; returns its JSON value. */
  evaluate<R = unknown>(source: string, arg?: unknown): Promise<R>;
  /** Waits for `selector` to reach `state`; false on timeout. */
  waitForSelector(
    selector: string,
    options: { state: "attached" | "visible" | "detached" | "hidden"; timeoutMs: number },
  ): Promise<boolean>;
  /**
   * Clicks the first match (or every visible match with `all`) of a CSS selector or an `{ xpath }`
   * query; resolves with the number clicked.
   */
  click(selector: ElementQuery, options: { all: boolean; timeoutMs: number }): Promise<number>;
  /**
   * Moves the mouse over the centre of the first visible match (scrolling it into view);
   * false when nothing visible matches within `timeoutMs`. A bad selector is `InvalidOptions`.
   */
  hover(selector: string, options: { timeoutMs: number }): Promise<boolean>;
  /** Presses and releases a key (`Escape`, `Enter`...) on the focused element. */
  press(key: string): Promise<void>;
  /** Requests `settings.requestFilter` blocked so far. */
  blockedRequests(): number;
  /** Adds a style sheet to the page. */
  addStyle(css: string): Promise<void>;
  /** Bounding box of the first element matching `selector`, in document coordinates. */
  elementBox(selector: string): Promise<Box | undefined>;
  /** Scroll size of the document in CSS pixels. */
  documentSize(): Promise<{ width: number; height: number }>;
  screenshot(settings: ScreenshotSettings): Promise<Uint8Array>;
  pdf(settings: PdfSettings): Promise<Uint8Array>;
  /** Serialised DOM after scripts ran. */
  content(): Promise<string>;
  /**
   * Streams painted frames to `onFrame` until stopped (engines with the `screencast` capability).
   * Frames arrive in order; each is acknowledged at once so the browser keeps sending.
   */
  screencast?(settings: ScreencastSettings, onFrame: (frame: ScreencastFrame) => void): Promise<Screencast>;
  /** Chromium's MHTML snapshot of the page as it is now (engines with the `snapshot` capability). */
  snapshot?(): Promise<string>;
  /** Every cookie of the page's browser context now: set by the request, the responses and the page's scripts. */
  cookies?(): Promise<PageCookie[]>;
  /** The requests recorded so far; undefined unless the page opened with `recordResources`. */
  resources?(): ResourceReport | undefined;
  /** Closes the page and everything it owns (context, proxy session). Idempotent. */
  close(): Promise<void>;
}
