import type { S3StorageOptions } from "@renderkit/storage-s3";
import { ConfigError } from "./error.js";
import type { RedisConfig, S3Config, StorageConfig } from "./types.js";
import { boolean, fail, httpAddress, integer, object, string } from "./values.js";

/** Checkers of the scale-out keys: `redis`, `storage` and a project's `s3`. */

const S3_KEYS = ["bucket", "region", "endpoint", "forcePathStyle", "accessKeyId", "secretAccessKey", "publicBaseUrl"] as const;
export const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,64}$/;

/** `{ bucket, region?, endpoint?, forcePathStyle?, accessKeyId?, secretAccessKey?, publicBaseUrl? }`. */
export function s3Config(value: unknown, path: string, extraKeys: readonly string[] = []): S3Config {
  const v = object(value, path, [...S3_KEYS, ...extraKeys]);
  const out: S3Config = {
    bucket: string(v.bucket, `${path}.bucket`, 3, 63, BUCKET, "must be a bucket name (3 to 63 of a-z 0-9 . -)"),
  };
  if (v.region !== undefined)
    out.region = string(v.region, `${path}.region`, 1, 64, REGION, "must be a region name such as eu-west-1");
  if (v.endpoint !== undefined) out.endpoint = httpAddress(v.endpoint, `${path}.endpoint`);
  if (v.forcePathStyle !== undefined) out.forcePathStyle = boolean(v.forcePathStyle, `${path}.forcePathStyle`);
  if (v.publicBaseUrl !== undefined) out.publicBaseUrl = httpAddress(v.publicBaseUrl, `${path}.publicBaseUrl`);
  if ((v.accessKeyId === undefined) !== (v.secretAccessKey === undefined)) {
    fail(path, "must have both accessKeyId and secretAccessKey, or neither (then AWS_* variables and the SDK's defaults apply)");
  }
  if (v.accessKeyId !== undefined) {
    out.accessKeyId = string(v.accessKeyId, `${path}.accessKeyId`, 1, 256);
    out.secretAccessKey = string(v.secretAccessKey, `${path}.secretAccessKey`, 1, 1024);
    // Readable by name, invisible to logging and JSON.stringify.
    Object.defineProperty(out, "secretAccessKey", { enumerable: false });
  }
  return out;
}

/** `storage`: `{ kind: "fs" }` (default) or `{ kind: "s3", ...S3Config }`. */
export function storageConfig(value: unknown, path: string): StorageConfig {
  const v = object(value, path, ["kind", ...S3_KEYS]);
  if (v.kind === "fs") {
    object(value, path, ["kind"]);
    return { kind: "fs" };
  }
  if (v.kind !== "s3") return fail(`${path}.kind`, 'must be "fs" or "s3"');
  const { kind: _kind, ...rest } = v;
  const s3 = s3Config(rest, path);
  const out: StorageConfig = { kind: "s3", ...s3 };
  // The spread skips the hidden secret; hide it again on the copy.
  if (s3.secretAccessKey !== undefined) {
    Object.defineProperty(out, "secretAccessKey", { value: s3.secretAccessKey, enumerable: false, writable: true });
  }
  return out;
}

/** `redis`: `{ url, prefix?, lockDurationMs?, stalledIntervalMs? }`. */
export function redisConfig(value: unknown, path: string): RedisConfig {
  const v = object(value, path, ["url", "prefix", "lockDurationMs", "stalledIntervalMs"]);
  const url = string(v.url, `${path}.url`, 1, 2048, /^rediss?:\/\/\S+$/, "must be a redis:// or rediss:// address");
  try {
    new URL(url);
  } catch {
    fail(`${path}.url`, "is not a valid address");
  }
  return {
    url,
    prefix:
      v.prefix === undefined
        ? "renderkit"
        : string(v.prefix, `${path}.prefix`, 1, 64, /^[A-Za-z0-9_.-]+$/, "must be 1 to 64 of A-Z a-z 0-9 _ . -"),
    lockDurationMs: v.lockDurationMs === undefined ? 30_000 : integer(v.lockDurationMs, `${path}.lockDurationMs`, 1_000, 600_000),
    stalledIntervalMs:
      v.stalledIntervalMs === undefined ? 30_000 : integer(v.stalledIntervalMs, `${path}.stalledIntervalMs`, 500, 600_000),
  };
}

/** The refusal of a role that needs the shared queue, when `redis` is not configured. */
export function needsRedis(command: "serve --role api" | "worker"): ConfigError {
  return new ConfigError(
    `renderkit ${command} needs redis (config key redis.url or RENDERKIT_REDIS_URL): without it the queue belongs to one process; use renderkit serve`,
  );
}

/**
 * `S3Storage` options of a configured bucket. The secret is read by name: it is not enumerable
 * in the loaded configuration (kept out of logs), so a spread of `s3` would lose it.
 */
export function s3StorageOptions(s3: S3Config, extra: Partial<S3StorageOptions> = {}): S3StorageOptions {
  return {
    bucket: s3.bucket,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.forcePathStyle,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    publicBaseUrl: s3.publicBaseUrl,
    ...extra,
  };
}
