import { type AddressChecker, RenderError } from "../../index.js";
import { DENIED_HEADER, UNREACHABLE_HEADER } from "./proxy-answers.js";

/** Error text engines throw when the main document came back with the proxy's `DENIED_HEADER`. */
export const REFUSED_MESSAGE = "refused by the address policy";
/** Error text engines throw when the main document came back with the proxy's `UNREACHABLE_HEADER`. */
export const UNREACHABLE_MESSAGE = "the destination could not be reached";

/** Redirect answers Chromium takes for one request: at this one it fails with `ERR_TOO_MANY_REDIRECTS` (net's limit). */
export const MAX_REDIRECTS = 20;

/**
 * How the egress proxy begins the reason of a request the upstream proxy (`proxy` option) did not
 * carry (`openEgressSession`'s `upstreamFailed`): the caller's proxy failed, not the site.
 */
const THROUGH_PROXY = /^through the proxy /;

/**
 * The error for a main document that could not be loaded for a reason of the address rules or of
 * the network: Chromium refused a redirect to a non-http(s) scheme or gave up after too many
 * redirects, or the egress proxy refused or could not connect (read from the browser's error text,
 * `ERR_TUNNEL_CONNECTION_FAILED` for https and the messages above for http, and the policy's
 * record). The caller's address or proxy is at fault in each: a 4xx code, or `ProxyError` when the
 * `proxy` option's proxy failed. Undefined when the text is about something else; the engine
 * translates it then.
 */
export function navigationFailure(text: string, policy: AddressChecker | undefined): RenderError | undefined {
  // Chromium's own refusal of a redirect to file:, chrome: and the like: the address rules say the same.
  if (/ERR_UNSAFE_REDIRECT|ERR_UNKNOWN_URL_SCHEME|ERR_DISALLOWED_URL_SCHEME/.test(text)) {
    return new RenderError("InvalidURLError", "The page redirected to an address that is not http or https");
  }
  // The address leads nowhere (a loop, or a chain longer than any browser follows): the caller's
  // address is at fault, as with any address that cannot be rendered.
  if (/ERR_TOO_MANY_REDIRECTS/.test(text)) {
    return new RenderError("InvalidURLError", `The address could not be loaded: too many redirects (${MAX_REDIRECTS})`);
  }
  if (!policy) return undefined;
  const tunnel = /ERR_TUNNEL_CONNECTION_FAILED/.test(text);
  const denial = tunnel || text.includes(REFUSED_MESSAGE) ? policy.denials.at(-1) : undefined;
  if (denial) {
    const code = denial.reason === "does not resolve" ? "URLDoesNotResolveError" : "InvalidURLError";
    return new RenderError(code, `Refused to load ${denial.host}:${denial.port}: ${denial.reason}`);
  }
  const failed = tunnel || text.includes(UNREACHABLE_MESSAGE) ? policy.unreachable.at(-1) : undefined;
  if (failed) {
    return new RenderError(
      THROUGH_PROXY.test(failed.reason) ? "ProxyError" : "EngineResponseNotOkError",
      `The page could not be loaded: connecting to ${failed.host}:${failed.port} failed (${failed.reason})`,
    );
  }
  return undefined;
}

/**
 * A page's own DevTools session as `watchMainDocument` uses it (Playwright's and Puppeteer's
 * `CDPSession` both fit).
 */
export interface DevtoolsChannel {
  send(method: "Network.enable" | "Network.disable"): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: each event has its own payload; the drivers type them differently
  on(event: "Network.requestWillBeSent" | "Network.responseReceivedExtraInfo", listener: (event: any) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  off(event: "Network.requestWillBeSent" | "Network.responseReceivedExtraInfo", listener: (event: any) => void): unknown;
}

/** What `watchMainDocument` learnt about the main document's redirects. */
export interface MainDocumentWatch {
  /**
   * `InvalidURLError` naming the address when the navigation failed with `text` because the main
   * document's last redirect led to a scheme other than http(s): Chromium does not follow it and
   * aborts (`ERR_ABORTED` for `view-source:` and `javascript:`, which tells nothing by itself;
   * `ERR_UNSAFE_REDIRECT` for `file:` and the like). Undefined otherwise.
   */
  refusedRedirect(text: string): Promise<RenderError | undefined>;
  /**
   * `InvalidURLError` when the navigation failed with `text` because the main document's answer
   * is no page: a 204/205 (nothing to show) or a download (`Content-Disposition: attachment`, or
   * a type the browser does not display). Chromium only says `ERR_ABORTED` (Playwright: "Download
   * is starting"). Undefined otherwise.
   */
  notAPage(text: string): Promise<RenderError | undefined>;
  /** Stops listening (and turns the Network domain off again unless `keepNetwork`). */
  stop(keepNetwork: boolean): Promise<void>;
}

/** Types Chromium shows rather than downloads (pages, text, images, media, PDF in its viewer). */
const DISPLAYED_TYPE =
  /^(text\/|image\/|audio\/|video\/|application\/(pdf|json|xml|xhtml\+xml|javascript|[a-z.+-]*\+(xml|json))$)/;

/** Longest address quoted in an error. */
const MAX_QUOTED = 200;
/** How long a failed navigation waits for the raw answers of its hops (they come on their own schedule). */
const ANSWER_WAIT_MS = 1_000;

/**
 * Listens to the page's first document request (the navigation `loadTarget` starts) and the raw
 * answers of its hops: a redirect's `Location` is only in `Network.responseReceivedExtraInfo` when
 * the browser refuses to follow it. Call before navigating.
 */
export async function watchMainDocument(devtools: DevtoolsChannel): Promise<MainDocumentWatch> {
  let main: string | undefined;
  let url: string | undefined;
  /** Hops of the main document sent, and raw answers received for them. */
  let hops = 0;
  let answers = 0;
  /** The last redirect's `Location`. */
  let location: string | undefined;
  /** The last hop's status and headers (names in lower case). */
  let status: number | undefined;
  let headers: Record<string, string> = {};
  let wake: (() => void) | undefined;
  const sent = (e: { requestId: string; type?: string; request: { url: string } }) => {
    if (main === undefined && e.type === "Document") main = e.requestId;
    if (e.requestId !== main) return;
    hops++;
    url = e.request.url;
  };
  const answered = (e: { requestId: string; statusCode: number; headers: Record<string, string> }) => {
    if (main === undefined || e.requestId !== main) return;
    answers++;
    status = e.statusCode;
    headers = Object.fromEntries(Object.entries(e.headers).map(([name, value]) => [name.toLowerCase(), value]));
    location = e.statusCode >= 300 && e.statusCode <= 399 ? headers.location?.split("\n")[0] : undefined;
    if (answers >= hops) wake?.();
  };
  devtools.on("Network.requestWillBeSent", sent);
  devtools.on("Network.responseReceivedExtraInfo", answered);
  await devtools.send("Network.enable");
  /** Waits (a little) for the raw answers of every hop sent. */
  const allAnswers = async () => {
    if (answers >= hops) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ANSWER_WAIT_MS);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  };
  return {
    async notAPage(text) {
      if (!/net::ERR_ABORTED\b|Download is starting/.test(text) || main === undefined) return undefined;
      await allAnswers();
      if (status === 204 || status === 205) {
        return new RenderError("InvalidURLError", `The address answered ${status} with no content: there is no page to render`);
      }
      if (status === undefined || status < 200 || status > 299) return undefined;
      const disposition = headers["content-disposition"]?.split("\n")[0];
      const type = headers["content-type"]?.split(";")[0]?.trim().toLowerCase();
      if (disposition && /^\s*attachment/i.test(disposition)) {
        return new RenderError(
          "InvalidURLError",
          "The address is a download (Content-Disposition: attachment), not a page to render",
        );
      }
      if (type && !DISPLAYED_TYPE.test(type)) {
        return new RenderError("InvalidURLError", `The address is a download (${type.slice(0, 100)}), not a page to render`);
      }
      return undefined;
    },
    async refusedRedirect(text) {
      if (!/net::ERR_(ABORTED|UNSAFE_REDIRECT)\b/.test(text) || main === undefined) return undefined;
      await allAnswers();
      if (location === undefined) return undefined;
      let scheme: string;
      try {
        scheme = new URL(location, url).protocol;
      } catch {
        return new RenderError("InvalidURLError", "The page redirected to an address that is not valid");
      }
      if (scheme === "http:" || scheme === "https:") return undefined;
      const quoted = location.length > MAX_QUOTED ? `${location.slice(0, MAX_QUOTED)}…` : location;
      return new RenderError("InvalidURLError", `The page redirected to an address that is not http or https (${quoted})`);
    },
    async stop(keepNetwork) {
      devtools.off("Network.requestWillBeSent", sent);
      devtools.off("Network.responseReceivedExtraInfo", answered);
      // Not waited for: a session runs its commands in order, so its next one comes after it.
      if (!keepNetwork) void devtools.send("Network.disable").catch(() => undefined);
    },
  };
}

/**
 * Throws when the main document's answer is the egress proxy's own (a refusal or a failed
 * connection, told by its marker headers) rather than the site's. Engines call it after navigating.
 */
export function checkProxyAnswer(headers: Record<string, string> | undefined, policy: AddressChecker | undefined): void {
  if (!headers) return;
  const text =
    headers[DENIED_HEADER] === "1" ? REFUSED_MESSAGE : headers[UNREACHABLE_HEADER] === "1" ? UNREACHABLE_MESSAGE : undefined;
  if (!text) return;
  throw navigationFailure(text, policy) ?? new RenderError("EngineResponseNotOkError", `The page could not be loaded: ${text}`);
}
