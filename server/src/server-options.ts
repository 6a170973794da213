import { AddressPolicy, camelize, RenderError } from "@renderkit/core";
import type { AppContext } from "./context.js";

/** Options the server handles itself; they are taken out before the renderer parses the rest. */
export interface ServerOptions {
  webhookUrl?: string;
  /** Seconds a sync request waits before redirecting. */
  redirectAfter: number;
}

function invalid(option: string, why: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} ${why}`, { details: { option } });
}

/** Splits `input` into the server's own options and the render options. */
export async function takeServerOptions(
  input: Record<string, unknown>,
  ctx: AppContext,
): Promise<{ server: ServerOptions; render: Record<string, unknown> }> {
  const render: Record<string, unknown> = {};
  let webhook: unknown;
  let redirect: unknown;
  for (const [key, value] of Object.entries(input)) {
    const name = camelize(key);
    if (name === "webhookUrl") webhook = value;
    else if (name === "redirectAfter") redirect = value;
    else render[key] = value;
  }
  const server: ServerOptions = { redirectAfter: ctx.config.redirectAfter };
  if (redirect !== undefined && redirect !== "") {
    const n = typeof redirect === "number" ? redirect : Number(redirect);
    if (!Number.isInteger(n) || n < 1 || n > ctx.config.maxRedirectAfter) {
      throw invalid("redirect_after", `must be a whole number of seconds from 1 to ${ctx.config.maxRedirectAfter}`);
    }
    server.redirectAfter = n;
  }
  if (webhook !== undefined && webhook !== "") {
    if (typeof webhook !== "string" || webhook.length > 2048)
      throw invalid("webhook_url", "must be an address of at most 2048 characters");
    let url: URL;
    try {
      url = new URL(webhook);
    } catch {
      throw invalid("webhook_url", "is not a valid address");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("webhook_url", "must be an http or https address");
    const policy = new AddressPolicy({ allowPrivate: ctx.config.allowPrivateNetworks });
    try {
      await policy.resolve(url.hostname, Number(url.port || (url.protocol === "https:" ? 443 : 80)));
    } catch (error) {
      throw invalid("webhook_url", error instanceof Error ? `is refused: ${error.message}` : "is refused");
    }
    server.webhookUrl = url.href;
  }
  return { server, render };
}

/** Refuses a target address at submit time (400), instead of accepting a render that must fail. */
export async function checkAddress(ctx: AppContext, url: string | undefined): Promise<void> {
  if (url === undefined) return;
  const target = new URL(url);
  const policy = new AddressPolicy({ allowPrivate: ctx.config.allowPrivateNetworks });
  await policy.resolve(target.hostname, Number(target.port || (target.protocol === "https:" ? 443 : 80)));
}
