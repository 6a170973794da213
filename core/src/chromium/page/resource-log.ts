import type { ResourceRecord, ResourceReport } from "../../index.js";
import { DENIED_HEADER } from "../network/proxy-answers.js";

/** Most requests listed; later ones are only counted (a page may make 100,000). */
export const MAX_RESOURCES = 2_000;
/** Longest address kept (a `data:` address may be megabytes). */
const MAX_URL_CHARS = 2_048;

/** The DevTools `Network` events the log reads, as far as it reads them. */
interface CdpResponse {
  status: number;
  mimeType?: string;
  headers?: Record<string, string>;
  encodedDataLength?: number;
  fromDiskCache?: boolean;
  fromPrefetchCache?: boolean;
}
interface RequestWillBeSent {
  requestId: string;
  request: { url: string; method: string };
  type?: string;
  redirectResponse?: CdpResponse;
}
interface ResponseReceived {
  requestId: string;
  response: CdpResponse;
}
interface LoadingFinished {
  requestId: string;
  encodedDataLength: number;
}
interface LoadingFailed {
  requestId: string;
  errorText: string;
  canceled?: boolean;
  blockedReason?: string;
}

/** The DevTools events the log listens to. */
type NetworkEvent =
  | "Network.requestWillBeSent"
  | "Network.requestServedFromCache"
  | "Network.responseReceived"
  | "Network.loadingFinished"
  | "Network.loadingFailed";

/** A page's own DevTools session; Playwright's and Puppeteer's `CDPSession` both fit. */
export interface NetworkChannel {
  send(method: "Network.enable"): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: each event has its own payload; the drivers type them differently
  on(event: NetworkEvent, listener: (event: any) => void): unknown;
}

function cut(url: string): string {
  return url.length > MAX_URL_CHARS ? `${url.slice(0, MAX_URL_CHARS)}…` : url;
}

/** The egress proxy refused the address (address policy): a 403 carrying its marker header. */
function deniedByPolicy(response: CdpResponse): boolean {
  const headers = response.headers ?? {};
  return Object.keys(headers).some((name) => name.toLowerCase() === DENIED_HEADER);
}

/**
 * Records the requests of a page from its DevTools `Network` events (`save_resource_info`): the
 * first `MAX_RESOURCES` are kept, later ones only counted, so a page making 100,000 requests costs
 * a counter. Each redirect hop is its own entry. Only the page's own target is seen: a cross-site
 * iframe's document is listed, the requests made inside it (another process) are not.
 */
export class ResourceLog {
  private readonly records: ResourceRecord[] = [];
  /** Open entries by DevTools request id (only listed ones). */
  private readonly open = new Map<string, ResourceRecord>();
  private omitted = 0;

  /** Starts listening on `cdp` (call before navigation). */
  static async attach(cdp: NetworkChannel): Promise<ResourceLog> {
    const log = new ResourceLog();
    cdp.on("Network.requestWillBeSent", (e: RequestWillBeSent) => log.sent(e));
    cdp.on("Network.requestServedFromCache", (e: { requestId: string }) => log.fromCache(e.requestId));
    cdp.on("Network.responseReceived", (e: ResponseReceived) => log.response(e.requestId, e.response));
    cdp.on("Network.loadingFinished", (e: LoadingFinished) => log.finished(e));
    cdp.on("Network.loadingFailed", (e: LoadingFailed) => log.failed(e));
    await cdp.send("Network.enable");
    return log;
  }

  private sent(e: RequestWillBeSent): void {
    const previous = this.open.get(e.requestId);
    if (previous && e.redirectResponse) {
      // The same id goes on to the next hop: the previous entry ends with the redirect's answer.
      this.applyResponse(previous, e.redirectResponse);
      previous.size = e.redirectResponse.encodedDataLength ?? 0;
      previous.finished = true;
      this.open.delete(e.requestId);
    }
    if (this.records.length >= MAX_RESOURCES) {
      this.omitted++;
      return;
    }
    const record: ResourceRecord = {
      url: cut(e.request.url),
      type: (e.type ?? "other").toLowerCase(),
      method: e.request.method,
      status: null,
      mimeType: null,
      size: 0,
      fromCache: false,
      finished: false,
      failed: false,
      blocked: false,
      reason: null,
    };
    this.records.push(record);
    this.open.set(e.requestId, record);
  }

  private fromCache(id: string): void {
    const record = this.open.get(id);
    if (record) record.fromCache = true;
  }

  private applyResponse(record: ResourceRecord, response: CdpResponse): void {
    record.status = response.status;
    record.mimeType = response.mimeType || null;
    if (response.fromDiskCache || response.fromPrefetchCache) record.fromCache = true;
    if (deniedByPolicy(response)) {
      record.blocked = true;
      record.reason = "refused by the address policy";
    }
  }

  private response(id: string, response: CdpResponse): void {
    const record = this.open.get(id);
    if (record) this.applyResponse(record, response);
  }

  private finished(e: LoadingFinished): void {
    const record = this.open.get(e.requestId);
    if (!record) return;
    record.size = e.encodedDataLength;
    record.finished = true;
    this.open.delete(e.requestId);
  }

  private failed(e: LoadingFailed): void {
    const record = this.open.get(e.requestId);
    if (!record) return;
    record.finished = true;
    record.failed = true;
    record.blocked ||= e.errorText === "net::ERR_BLOCKED_BY_CLIENT" || e.blockedReason !== undefined;
    record.reason = e.blockedReason
      ? `${e.errorText} (${e.blockedReason})`
      : e.canceled
        ? `${e.errorText} (canceled)`
        : e.errorText;
    this.open.delete(e.requestId);
  }

  /** A copy of what was recorded so far. */
  report(): ResourceReport {
    return { requests: this.records.map((r) => ({ ...r })), omitted: this.omitted };
  }
}
