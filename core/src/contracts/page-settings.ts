import type { AddressChecker, UpstreamProxy } from "./address.js";

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
