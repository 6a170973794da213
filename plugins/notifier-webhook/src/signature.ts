import { createHmac, timingSafeEqual } from "node:crypto";

/** Name of the header that carries the signature (spec "Webhook signature"). */
export const SIGNATURE_HEADER = "X-Service-Signature";

/** Default replay window of `verifyWebhookSignature` (docs/api.md#decisions, "Webhooks"). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export interface VerifyOptions {
  /** Largest allowed distance between the signature's timestamp and `now`. Default 300 s. */
  toleranceSeconds?: number;
  /** The receiver's clock in milliseconds. Default `Date.now()`. */
  now?: number;
}

function hmac(secret: string, timestamp: string, body: string | Uint8Array): Buffer {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest();
}

/**
 * The `X-Service-Signature` value for `body`: `t=<unix seconds>,sha256=<lowercase hex HMAC-SHA256
 * of "<t>.<body>" keyed with the webhook secret>`.
 */
export function signWebhook(body: string, secret: string, timestampSeconds = Math.floor(Date.now() / 1000)): string {
  if (typeof secret !== "string" || secret.length === 0) throw new TypeError("signWebhook: the secret is empty");
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError("signWebhook: the timestamp must be a non-negative integer of seconds");
  }
  const t = String(timestampSeconds);
  return `t=${t},sha256=${hmac(secret, t, body).toString("hex")}`;
}

/**
 * Checks a webhook request: parses `t=...,sha256=...` (spaces and extra parts tolerated; several
 * `sha256` parts match if any does, which lets a sender rotate secrets), refuses timestamps
 * further than `toleranceSeconds` from `now`, and compares the HMAC of the raw body bytes as
 * received in constant time. Returns false for anything malformed; never throws.
 */
export function verifyWebhookSignature(
  header: string | undefined,
  rawBody: string | Uint8Array,
  secret: string,
  options: VerifyOptions = {},
): boolean {
  try {
    if (typeof header !== "string" || typeof secret !== "string" || secret.length === 0) return false;
    if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array)) return false;
    let timestamp: string | undefined;
    const tokens: string[] = [];
    for (const part of header.split(",")) {
      const eq = part.indexOf("=");
      if (eq < 0) continue;
      const key = part.slice(0, eq).trim().toLowerCase();
      const value = part.slice(eq + 1).trim();
      if (key === "t") {
        if (timestamp !== undefined) return false; // two timestamps: ambiguous, refuse
        timestamp = value;
      } else if (key === "sha256") tokens.push(value);
    }
    if (timestamp === undefined || !/^\d{1,15}$/.test(timestamp) || tokens.length === 0) return false;
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    const now = options.now ?? Date.now();
    if (!(Math.abs(now / 1000 - Number(timestamp)) <= tolerance)) return false; // NaN fails too
    const expected = hmac(secret, timestamp, rawBody);
    let match = false;
    for (const token of tokens) {
      if (!/^[0-9a-fA-F]{64}$/.test(token)) continue;
      const given = Buffer.from(token, "hex");
      // Visit every token so the time spent does not reveal which one matched.
      if (given.length === expected.length && timingSafeEqual(given, expected)) match = true;
    }
    return match;
  } catch {
    return false;
  }
}
