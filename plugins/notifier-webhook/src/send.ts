import { AddressPolicy, type AddressPolicyOptions, type Lookup } from "@renderkit/core";
import type { WebhookOptions } from "./options.js";
import { type PostOutcome, postWebhook } from "./post.js";
import { SIGNATURE_HEADER, signWebhook } from "./signature.js";
import type { PendingDelivery } from "./store.js";

/** `User-Agent` of every webhook request. */
export const USER_AGENT = "renderkit-webhook/0.1";

/** The address's host for logs: its path and query may hold a receiver's token. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid address)";
  }
}

/** What one attempt needs besides the delivery. */
export interface Sender {
  secretFor: WebhookOptions["secretFor"];
  allowPrivate: AddressPolicyOptions["allowPrivate"];
  lookup: Lookup | undefined;
  timeoutMs: number;
  /** Aborted by `close()`. */
  signal: AbortSignal;
  /** Told the outcome of every attempt that ran to an end (not those cut by `close()`). */
  onAttempt?: WebhookOptions["onAttempt"];
}

/**
 * One attempt of a delivery: checks the address, asks for the project's secret (every attempt,
 * so a rotated secret applies to retries), signs with a fresh timestamp over the unchanged body
 * and posts through a fresh address policy. Never rejects.
 */
export async function sendDelivery(
  delivery: Pick<PendingDelivery, "url" | "projectId" | "body">,
  sender: Sender,
): Promise<PostOutcome> {
  const outcome = await attemptDelivery(delivery, sender);
  if (!outcome.interrupted) {
    try {
      sender.onAttempt?.({ delivered: outcome.delivered, status: outcome.status, permanent: outcome.permanent === true });
    } catch {
      // A listener's mistake is not the delivery's.
    }
  }
  return outcome;
}

async function attemptDelivery(
  delivery: Pick<PendingDelivery, "url" | "projectId" | "body">,
  sender: Sender,
): Promise<PostOutcome> {
  let url: URL;
  try {
    url = new URL(delivery.url);
  } catch {
    return { delivered: false, reason: "the webhook address is not a valid URL", permanent: true };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { delivered: false, reason: `unsupported scheme ${url.protocol} (only http and https)`, permanent: true };
  }
  let secret: string | undefined;
  try {
    secret = await sender.secretFor(delivery.projectId);
  } catch (error) {
    return { delivered: false, reason: `secretFor failed: ${String(error)}`, permanent: false };
  }
  if (typeof secret !== "string" || secret === "") {
    const project = delivery.projectId === undefined ? "without a project" : `of project ${delivery.projectId}`;
    return { delivered: false, reason: `no webhook secret is configured for the render ${project}`, permanent: true };
  }
  const headers = {
    "Content-Type": "application/json",
    "User-Agent": USER_AGENT,
    [SIGNATURE_HEADER]: signWebhook(delivery.body, secret),
  };
  const policy = new AddressPolicy({ allowPrivate: sender.allowPrivate, lookup: sender.lookup });
  return postWebhook({ url, body: delivery.body, headers, timeoutMs: sender.timeoutMs, policy, signal: sender.signal });
}
