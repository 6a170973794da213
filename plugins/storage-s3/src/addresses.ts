import { isIP } from "node:net";
import type { ResolvedS3Options } from "./options.js";

/** Encodes each `/`-separated segment of an object key for use in an address path. */
export function encodeKey(key: string): string {
  return key.split("/").map(encodeURIComponent).join("/");
}

/**
 * True when the bucket can be a host name label, as the SDK decides: lower case, no dots
 * (a dotted bucket breaks the `*.s3.amazonaws.com` TLS certificate), 3 to 63 characters.
 */
function hostable(bucket: string): boolean {
  return /^[a-z0-9][a-z0-9-]{1,61}[a-z0-9]$/.test(bucket) && !bucket.includes("--");
}

function awsBase(region: string): string {
  return `https://s3.${region}.${region.startsWith("cn-") ? "amazonaws.com.cn" : "amazonaws.com"}`;
}

/**
 * The plain (unsigned) address of `fullKey` (prefix included), as the SDK would reach it:
 * path style (`<endpoint>/<bucket>/<key>`) when asked, when the endpoint is an IP address or
 * when the bucket cannot be a host label; virtual-hosted (`<bucket>.<host>/<key>`) otherwise.
 */
export function objectAddress(options: ResolvedS3Options, fullKey: string): string {
  const base = options.endpoint ?? awsBase(options.region);
  const url = new URL(base);
  const path = encodeKey(fullKey);
  if (options.forcePathStyle || isIP(url.hostname.replace(/^\[|\]$/g, "")) || !hostable(options.bucket)) {
    return `${base}/${encodeURIComponent(options.bucket)}/${path}`;
  }
  url.hostname = `${options.bucket}.${url.hostname}`;
  return `${url.href.replace(/\/+$/, "")}/${path}`;
}

/** `<publicBaseUrl>/<prefix><key>`, path segments encoded. */
export function publicAddress(publicBaseUrl: string, fullKey: string): string {
  return `${publicBaseUrl}/${encodeKey(fullKey)}`;
}
