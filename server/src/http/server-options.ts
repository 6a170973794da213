import { AddressPolicy, num, oneOf, str } from "@renderkit/core";
import { camelize, coerceOption } from "@renderkit/core/internal";
import type { ServerConfig } from "../config/types.js";
import { invalidOption as invalid, refuseUnlessPublic } from "../renderer/address-checks.js";
import { RESPONSE_TYPES, type ResponseType } from "../state/job-info.js";
import type { AppContext } from "./context.js";

/**
 * The options the server handles itself, with the operator's bounds: they validate requests
 * (`takeServerOptions`) and describe them in the OpenAPI document.
 */
export function serverOptionTable(config: Pick<ServerConfig, "redirectAfter" | "maxRedirectAfter">) {
  return {
    webhookUrl: str(
      "Address that receives a signed POST (render.succeeded or render.failed) when the render ends; public addresses only.",
      { maxLength: 2048 },
    ),
    redirectAfter: num("Seconds a sync request waits before answering 307 with the address to wait at.", {
      min: 1,
      max: config.maxRedirectAfter,
      integer: true,
      default: config.redirectAfter,
    }),
    responseType: oneOf(
      "What the answer carries. `json` (API default): the result fields. `binary` (render links' default): the render's bytes with their content type, result figures in `X-Render-*` headers (sync API and links). `base64`: the bytes base64-encoded, as text/plain. `none`: an empty 200 body, the render id in `X-Render-Id`. Errors are JSON whatever the type. On the async API only `json` and `none` (an empty 201 body). `binary`/`base64` cannot be combined with `s3_presigned_url`; `download` on links needs `binary`. `jsondebug` is refused: use `json`.",
      RESPONSE_TYPES,
    ),
    download: str("Render links: the file name of a `binary` answer (`Content-Disposition: attachment`).", {
      maxLength: 256,
    }),
  };
}

/** Options the server handles itself; they are taken out before the renderer parses the rest. */
export interface ServerOptions {
  webhookUrl?: string;
  /** Seconds a sync request waits before redirecting. */
  redirectAfter: number;
  /** The answer asked for; undefined when not sent (each route has its default). */
  responseType?: ResponseType;
}

/** Splits `input` into the server's own options and the render options. */
export async function takeServerOptions(
  input: Record<string, unknown>,
  ctx: AppContext,
): Promise<{ server: ServerOptions; render: Record<string, unknown> }> {
  const render: Record<string, unknown> = {};
  let webhook: unknown;
  let redirect: unknown;
  let responseType: unknown;
  for (const [key, value] of Object.entries(input)) {
    const name = camelize(key);
    if (name === "webhookUrl") webhook = value;
    else if (name === "redirectAfter") redirect = value;
    else if (name === "responseType") responseType = value;
    else render[key] = value;
  }
  const specs = serverOptionTable(ctx.config);
  const server: ServerOptions = { redirectAfter: ctx.config.redirectAfter };
  if (redirect !== undefined && redirect !== "") {
    if (typeof redirect === "boolean") throw invalid("redirect_after", "must be a whole number of seconds");
    server.redirectAfter = coerceOption("redirect_after", specs.redirectAfter, redirect) as number;
  }
  if (responseType !== undefined && responseType !== "") {
    if (typeof responseType === "string" && responseType.trim().toLowerCase() === "jsondebug") {
      throw invalid("response_type", "jsondebug is not supported: use json (X-Ignored-Options names the options not applied)");
    }
    server.responseType = coerceOption("response_type", specs.responseType, responseType) as ResponseType;
  }
  if (webhook !== undefined && webhook !== "") {
    if (typeof webhook !== "string") throw invalid("webhook_url", "must be an address");
    coerceOption("webhook_url", specs.webhookUrl, webhook);
    let url: URL;
    try {
      url = new URL(webhook);
    } catch {
      throw invalid("webhook_url", "is not a valid address");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("webhook_url", "must be an http or https address");
    await refuseUnlessPublic(ctx.config, "webhook_url", url);
    server.webhookUrl = url.href;
  }
  return { server, render };
}

/** Refuses a target address at submit time (400), instead of accepting a render that must fail. */
export async function checkAddress(ctx: AppContext, url: string | undefined): Promise<void> {
  if (url === undefined) return;
  await new AddressPolicy({ allowPrivate: ctx.config.allowPrivateNetworks, logger: ctx.logger }).resolveUrl(new URL(url));
}
