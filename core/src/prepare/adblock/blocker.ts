import { type FiltersEngine, Request, type RequestType } from "@ghostery/adblocker";
import type { PageSession } from "../../contracts/page-session.js";
import type { RequestInfo, ResourceKind } from "../../contracts/page-settings.js";
import { cosmeticCss } from "./cosmetic.js";
import type { AdBlocker } from "./types.js";

/** Chromium's resource kinds as the engine's request types (`$script`, `$subdocument`...). */
const REQUEST_TYPES: Record<ResourceKind, RequestType> = {
  document: "sub_frame",
  stylesheet: "stylesheet",
  image: "image",
  media: "media",
  font: "font",
  script: "script",
  xhr: "xmlhttprequest",
  fetch: "fetch",
  websocket: "websocket",
  manifest: "manifest",
  ping: "ping",
  other: "other",
};

/** Schemes filter rules are written for; other requests (data:, blob:, about:) are never blocked. */
const FILTERED = /^(?:https?|wss?):/i;

/** An `AdBlocker` over one built filter engine; shared by every render until the lists change. */
export class FilterBlocker implements AdBlocker {
  constructor(readonly engine: FiltersEngine) {}

  blocks(request: RequestInfo): boolean {
    if (request.mainDocument || !FILTERED.test(request.url)) return false;
    try {
      const result = this.engine.match(
        Request.fromRawDetails({
          url: request.url,
          type: REQUEST_TYPES[request.kind] ?? "other",
          sourceUrl: FILTERED.test(request.frameUrl) ? request.frameUrl : "",
        }),
      );
      // `match` is false when an exception (`@@`) rule applies; a `$redirect` rule still blocks.
      return result.match && result.exception === undefined;
    } catch {
      return false;
    }
  }

  cosmeticCss(session: PageSession): Promise<string> {
    return cosmeticCss(this.engine, session);
  }
}
