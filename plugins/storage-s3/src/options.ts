import type { LookupFunction } from "node:net";
/** Smallest multipart part S3 accepts (every part but the last). */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
/** Largest multipart part S3 accepts. */
export const MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;

/** Options of `new S3Storage()` and `s3Storage()`. */
export interface S3StorageOptions {
  /** Bucket that holds the renders. */
  bucket: string;
  /** Region of the bucket. Default: `AWS_REGION`, else `us-east-1`. */
  region?: string;
  /** Address of an S3-compatible service (MinIO, R2, Wasabi...). Default: AWS S3. */
  endpoint?: string;
  /** Address objects as `<endpoint>/<bucket>/<key>` instead of `<bucket>.<host>/<key>`. Default false. */
  forcePathStyle?: boolean;
  /** Access key. Absent: the SDK's default chain (`AWS_*` variables, profiles, instance roles). */
  accessKeyId?: string;
  /** Secret of `accessKeyId`; both or neither. */
  secretAccessKey?: string;
  /** Session token of temporary credentials (needs the two above). */
  sessionToken?: string;
  /** Public base address of the bucket (a CDN, a public bucket): enables `publicUrl`. */
  publicBaseUrl?: string;
  /** Key prefix inside the bucket, used verbatim (`renders/` is a folder, `tenant-a-` a name prefix). Default none. */
  prefix?: string;
  /** Enables `sweep(now)`, which lists and inspects every object under the prefix. Default false. */
  sweep?: boolean;
  /** Multipart part size for streamed bodies, in bytes; at least 5 MiB. Default 8 MiB. */
  partSizeBytes?: number;
  /** Tries per S3 request, the first included (the SDK retries throttling and network errors). Default 3. */
  maxAttempts?: number;
  /** Longest wait for a connection to the endpoint, in ms. Default 5 000. */
  connectionTimeoutMs?: number;
  /** Longest silence of an open connection (no byte either way) before it is dropped, in ms. Default 60 000. */
  socketTimeoutMs?: number;
  /**
   * Resolves the endpoint's host for every connection (Node's `lookup` signature). A server that
   * lets callers pick the endpoint passes one that vets and pins each address (no DNS rebinding).
   */
  lookup?: LookupFunction;
}

/** The options after checks, with defaults filled. */
export interface ResolvedS3Options {
  bucket: string;
  region: string;
  /** Without its trailing slash. */
  endpoint?: string;
  forcePathStyle: boolean;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Without its trailing slash. */
  publicBaseUrl?: string;
  /** `""` when none. */
  prefix: string;
  sweep: boolean;
  partSizeBytes: number;
  maxAttempts: number;
  connectionTimeoutMs: number;
  socketTimeoutMs: number;
  lookup?: LookupFunction;
}

const fail = (option: string, why: string) => new TypeError(`S3Storage: ${option} ${why}`);

function text(option: string, value: unknown, optional = true): string | undefined {
  if (value === undefined && optional) return undefined;
  if (typeof value !== "string" || value === "") throw fail(option, "must be a non-empty string");
  return value;
}

function integer(option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`S3Storage: ${option} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

/** An http(s) base address without query, fragment or credentials; returned without trailing slash. */
function baseAddress(option: string, value: unknown): string | undefined {
  const raw = text(option, value);
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw fail(option, `is not a valid address: ${JSON.stringify(raw).slice(0, 80)}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw fail(option, "must be an http or https address");
  if (url.search || url.hash) throw fail(option, "must not have a query or fragment");
  // Credentials in an address end up in logs and in every URL built from it.
  if (url.username || url.password) throw fail(option, "must not carry credentials");
  return url.href.replace(/\/+$/, "");
}

function checkPrefix(value: unknown): string {
  if (value === undefined || value === "") return "";
  const prefix = text("prefix", value) as string;
  const folders = prefix.split("/");
  const last = folders.pop();
  // Keys are `<prefix><key>`: an empty, `.` or `..` segment makes addresses that clients normalise away.
  const odd = (part: string | undefined) => part === "." || part === "..";
  if (prefix.startsWith("/") || prefix.length > 512 || odd(last) || folders.some((part) => part === "" || odd(part))) {
    throw fail(
      "prefix",
      'must be relative, like "renders/": no leading "/", no empty, "." or ".." parts, at most 512 characters',
    );
  }
  if (/[\p{Cc}\\]/u.test(prefix)) throw fail("prefix", "must not contain control characters or backslashes");
  return prefix;
}

function checkCredentials(options: S3StorageOptions): ResolvedS3Options["credentials"] {
  const accessKeyId = text("accessKeyId", options.accessKeyId);
  const secretAccessKey = text("secretAccessKey", options.secretAccessKey);
  const sessionToken = text("sessionToken", options.sessionToken);
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const missing = accessKeyId === undefined ? "accessKeyId" : "secretAccessKey";
    throw fail(missing, "is missing (accessKeyId and secretAccessKey go together)");
  }
  if (sessionToken !== undefined && accessKeyId === undefined)
    throw fail("sessionToken", "needs accessKeyId and secretAccessKey");
  if (accessKeyId === undefined || secretAccessKey === undefined) return undefined;
  return { accessKeyId, secretAccessKey, ...(sessionToken === undefined ? {} : { sessionToken }) };
}

function checkLookup(lookup: unknown): boolean {
  if (lookup !== undefined && typeof lookup !== "function") throw fail("lookup", "must be a function");
  return lookup !== undefined;
}

/** Checks the options and fills defaults; throws a `TypeError` or `RangeError` naming the bad option. */
export function resolveOptions(options: S3StorageOptions, env: NodeJS.ProcessEnv = process.env): ResolvedS3Options {
  if (typeof options !== "object" || options === null) throw new TypeError("S3Storage: options must be an object");
  const bucket = text("bucket", options.bucket, false) as string;
  // Loose on purpose: legacy AWS buckets and other stores allow more than today's AWS rules.
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/.test(bucket)) {
    throw fail("bucket", `is not a bucket name (3 to 255 of A-Z a-z 0-9 . _ -): ${JSON.stringify(bucket).slice(0, 80)}`);
  }
  const region = text("region", options.region) ?? (env.AWS_REGION || undefined) ?? "us-east-1";
  if (!/^[A-Za-z0-9-]{1,64}$/.test(region)) throw fail("region", `is not a region name: ${JSON.stringify(region).slice(0, 80)}`);
  if (options.forcePathStyle !== undefined && typeof options.forcePathStyle !== "boolean") {
    throw fail("forcePathStyle", "must be a boolean");
  }
  if (options.sweep !== undefined && typeof options.sweep !== "boolean") throw fail("sweep", "must be a boolean");
  return {
    bucket,
    region,
    endpoint: baseAddress("endpoint", options.endpoint),
    forcePathStyle: options.forcePathStyle ?? false,
    credentials: checkCredentials(options),
    publicBaseUrl: baseAddress("publicBaseUrl", options.publicBaseUrl),
    prefix: checkPrefix(options.prefix),
    sweep: options.sweep ?? false,
    partSizeBytes: integer("partSizeBytes", options.partSizeBytes, 8 * 1024 * 1024, MIN_PART_SIZE, MAX_PART_SIZE),
    maxAttempts: integer("maxAttempts", options.maxAttempts, 3, 1, 10),
    connectionTimeoutMs: integer("connectionTimeoutMs", options.connectionTimeoutMs, 5_000, 1, 600_000),
    socketTimeoutMs: integer("socketTimeoutMs", options.socketTimeoutMs, 60_000, 1, 3_600_000),
    ...(checkLookup(options.lookup) ? { lookup: options.lookup } : {}),
  };
}
