import type { AddressChecker, UpstreamProxy } from "./address.js";

/** What an engine can do; formatters ask before relying on something (docs/plugins.md#decisions). */
/** `snapshot`: Chromium's MHTML snapshot of the page (`PageSession.snapshot`). */
export type EngineCapability = "screenshot" | "pdf" | "content" | "screencast" | "snapshot";

/** Where the page comes from: exactly one of `url` or `html`. */
export type PageTarget = { url: string; html?: undefined } | { html: string; url?: undefined };

/** A cookie to set before navigation. */
export interface CookieSpec {
  name: string;
  value: string;
  domain?: string;
  path?: string;
  httpOnly?: boolean;
  secure?: boolean;
  sameSite?: "Strict" | "Lax" | "None";
}

/** When navigation counts as done. */
export type WaitUntil = "domloaded" | "loaded" | "requestsfinished" | "mostrequestsfinished";

/** What a request fetches: Chromium's resource types, in lower case; `other` for the rest. */
export type ResourceKind =
  | "document"
  | "stylesheet"
  | "image"
  | "media"
  | "font"
  | "script"
  | "xhr"
  | "fetch"
  | "websocket"
  | "manifest"
  | "ping"
  | "other";

/** A request as a `RequestFilter` sees it, before it leaves the browser. */
export interface RequestInfo {
  /** Full address of the request. */
  url: string;
  kind: ResourceKind;
  /** Address of the document that made the request (for a frame's own document: its parent's). */
  frameUrl: string;
  /** True for the main frame's own navigations (the page itself, its redirects). */
  mainDocument: boolean;
}

/** Decides, per request, whether it is blocked (`true`). Must be fast and must not throw. */
export type RequestFilter = (request: RequestInfo) => boolean;

/** Everything an engine needs to open and load a page. */
export interface PageSettings {
  width: number;
  height: number;
  deviceScaleFactor: number;
  userAgent?: string;
  /**
   * Extra HTTP headers (lower-case names), sent with every request to the target's origin (that
   * of `authorization`, else of the target `url`) and to no other origin: other hosts'
   * subresources and frames, and redirect hops that leave the origin, never get them. Only
   * `accept-language` goes to every request (every browser sends one anyway). Supplied HTML has
   * no origin: only `accept-language` is sent then.
   */
  headers: Record<string, string>;
  cookies: CookieSpec[];
  /** Accept-Language / navigator.language, e.g. `en-US`. */
  locale?: string;
  /** IANA time zone, e.g. `Europe/Paris`. */
  timezone?: string;
  colorScheme: "light" | "dark";
  reducedMotion: boolean;
  javaScriptEnabled: boolean;
  /** CSS media type to emulate; absent: the browser's default (`screen`, and `print` when printing). */
  media?: "screen" | "print";
  waitUntil: WaitUntil;
  /** Budget for navigation and load waiting, in ms. */
  timeoutMs: number;
  /** Decides which addresses the page may reach; the engine must route all traffic through it. */
  policy: AddressChecker;
  /**
   * Asked for every request of the page and of all its frames (including out-of-process ones)
   * before it is sent; a blocked request fails as blocked by the client and never reaches the
   * network. Absent: no request is intercepted (the fast path).
   */
  requestFilter?: RequestFilter;
  /** Scripts evaluated in every frame's main world before the page's own scripts, in order. */
  initScripts?: readonly string[];
  /**
   * `authorization`: the Authorization header added to every request whose origin is `origin`
   * (the target's own), in every frame and redirect hop, and to no other origin's. Absent: the
   * engine adds none and intercepts nothing for it (the fast path).
   */
  authorization?: { origin: string; value: string };
  /** Emulated position (`latitude`/`longitude`/`accuracy` in metres); the geolocation permission is granted to every origin. */
  geolocation?: { latitude: number; longitude: number; accuracy: number };
  /** Upstream proxy every request the policy allows goes through (the egress session forwards to it). */
  proxy?: UpstreamProxy;
  /** Record every request of the page from before navigation on, for `PageSession.resources` (`save_resource_info`). */
  recordResources?: boolean;
  /** What the page may take from the network (the egress session enforces it); absent: the core's defaults. */
  egressLimits?: EgressLimits;
  /**
   * Who the render belongs to (the project). Renders with different keys never share a browser
   * context; an engine may reuse a page for a later render of the same key once it reset it
   * (`reuseKey`). Absent: one key for all (a library without projects).
   */
  isolationKey?: string;
}

/** Caps on one render's network use, enforced by its egress session. */
export interface EgressLimits {
  /** Bytes received in all (headers and bodies, every request); past it the render fails with `HTMLProcessError`. */
  maxBytes: number;
  /** Connections to the network open at once; more wait for a slot (a bounded number; beyond that they are refused). */
  maxConnections: number;
}

/** A rectangle in CSS pixels, relative to the document. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ScreenshotSettings {
  type: "png" | "jpeg";
  /** JPEG quality 1..100. */
  quality?: number;
  fullPage: boolean;
  clip?: Box;
  /** Transparent background where the page sets none (png only). */
  omitBackground: boolean;
  /**
   * Encode for speed, not size (Chromium's `optimizeForSpeed`): the same pixels in about half the
   * encoding time, a larger file. A hint: an engine or capture path that cannot ignores it.
   */
  optimizeForSpeed?: boolean;
}

export interface PdfSettings {
  /** Paper size in CSS units (`210mm`) or inches as Chromium accepts them. */
  width: string;
  height: string;
  landscape: boolean;
  margin: { top: string; right: string; bottom: string; left: string };
  printBackground: boolean;
  scale: number;
  displayHeaderFooter: boolean;
  headerTemplate: string;
  footerTemplate: string;
  pageRanges?: string;
  preferCSSPageSize: boolean;
  /** A tagged (accessible) PDF with a structure tree (`/StructTreeRoot`). Absent: false. */
  tagged?: boolean;
  /** An outline (bookmarks) from the headings; Chromium needs `tagged` for it. Absent: false. */
  outline?: boolean;
}

/** How to stream frames of the page (Chromium's screencast). */
export interface ScreencastSettings {
  format: "jpeg" | "png";
  /** JPEG quality 1..100. */
  quality: number;
  /** Frames are scaled down to fit these (device pixels). */
  maxWidth: number;
  maxHeight: number;
}

/** One frame of a screencast. */
export interface ScreencastFrame {
  /** Encoded image bytes (`format` of the settings). */
  data: Buffer;
  /** When the browser painted it, in seconds on the page's clock. */
  timestamp: number;
}

/** A running screencast; `stop()` resolves once no more frames will be delivered. */
export interface Screencast {
  stop(): Promise<void>;
}

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

/** Counts used by health checks and leak tests. */
export interface EngineStats {
  /** Live browser processes. */
  browsers: number;
  /** Open pages (sessions not yet closed). */
  pages: number;
  /** Browser launches since the engine was created. */
  launches: number;
  /** Reset pages waiting for the next render of their project (engines that reuse pages). */
  idlePages?: number;
  /** Renders that were given a reset page of an earlier render of their project, since the engine was created. */
  reusedPages?: number;
}

/**
 * A browser automation backend. Implementations keep a warm browser, isolate every
 * session (no cookies, storage or cache shared between renders; a page reused for a render of
 * the same `isolationKey` is reset first, never shared across keys), relaunch after a crash,
 * and own every process and directory they start.
 */
export interface Engine {
  /** Registry key, chosen per request with the `engine` option (`playwright`). */
  readonly name: string;
  /** What this engine supports. */
  readonly capabilities: ReadonlySet<EngineCapability>;
  /** Launches the browser ahead of the first render (optional warm-up). */
  start(): Promise<void>;
  /**
   * Opens an isolated page, navigates to `target` and waits as `settings.waitUntil` says.
   * Throws `RenderError`: `InvalidURLError` for refused addresses, `RenderTimeoutError`,
   * `EngineResponseNotOkError` (retryable when the browser crashed).
   */
  open(target: PageTarget, settings: PageSettings, signal: AbortSignal): Promise<PageSession>;
  /** Current counts. */
  stats(): EngineStats;
  /** Closes every page and browser, kills their processes and removes their directories. */
  close(): Promise<void>;
}
