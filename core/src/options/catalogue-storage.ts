import { RenderError } from "../errors.js";
import { snakeName } from "./names.js";
import { bool, oneOf, str } from "./spec.js";

/** S3 storage classes (`s3_storageclass`); lower case is accepted too. */
export const S3_STORAGE_CLASSES = [
  "STANDARD",
  "REDUCED_REDUNDANCY",
  "STANDARD_IA",
  "ONEZONE_IA",
  "INTELLIGENT_TIERING",
  "GLACIER",
  "GLACIER_IR",
  "DEEP_ARCHIVE",
  "OUTPOSTS",
  "EXPRESS_ONEZONE",
  "SNOW",
] as const;

/**
 * Where a render's file goes (options-catalogue.md "Cache and storage"). The renderer stores
 * into its own storage unless a destination resolver (`RendererSettings.destination`, the
 * server's project buckets) takes `use_s3` or `s3_presigned_url`.
 */
export const STORAGE_OPTIONS = {
  useS3: bool("Store the render in the project's own S3 bucket instead of the server's storage.", { default: false }),
  s3Path: str("Object key in the project's bucket, without extension (added unless `no_suffix`); default the render id.", {
    maxLength: 1000,
  }),
  noSuffix: bool("Do not add the format's extension to `s3_path`.", { default: false }),
  s3Bucket: str("Bucket to use instead of the project's (its credentials apply).", { maxLength: 63 }),
  s3Region: str("Region of `s3_bucket`.", { maxLength: 64 }),
  s3Endpoint: str("S3-compatible endpoint (R2, MinIO, Wasabi, Spaces) instead of the project's; public addresses only.", {
    maxLength: 2048,
  }),
  s3Storageclass: oneOf(
    "Storage class of the object in the project's bucket (default: the bucket's, STANDARD).",
    S3_STORAGE_CLASSES,
  ),
  cdnHost: str(
    "Host (or https address) of a CDN in front of the project's bucket: `renderUrl` becomes `https://<cdn_host>/<key>`.",
    {
      maxLength: 2048,
    },
  ),
  s3PresignedUrl: str(
    "Upload the render with HTTP PUT to this address you signed (an S3 presigned PUT); `renderUrl` becomes it without its query.",
    { maxLength: 8192 },
  ),
} as const;

/** Keys storages accept (core's `assertStorageKey`), less room for the extension. */
const S3_PATH = /^[A-Za-z0-9][A-Za-z0-9._-]{0,190}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,190}){0,4}$/;

/** Options that only mean something with `use_s3`. */
const NEEDS_USE_S3 = ["s3Path", "noSuffix", "s3Bucket", "s3Region", "s3Endpoint", "s3Storageclass", "cdnHost"] as const;

const invalid = (option: string, why: string) =>
  new RenderError("InvalidOptions", `Option ${snakeName(option)} ${why}`, { details: { option: snakeName(option) } });

function httpAddress(option: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(option, "is not a valid address");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid(option, "must be an http or https address");
  if (url.username || url.password) throw invalid(option, "must not carry credentials");
  return url;
}

/**
 * Checks the storage options of a parsed request: combinations and shapes. `hasDestinations`
 * says whether this renderer can send a render anywhere but its own storage; without it,
 * `use_s3` is `NoS3BucketConfigured` and `s3_presigned_url` is refused, never silently ignored.
 */
export function checkStorageOptions(options: Record<string, unknown>, hasDestinations: boolean): void {
  const { useS3, s3Path, cdnHost, s3Endpoint, s3PresignedUrl } = options as Record<string, string | boolean | undefined>;
  if (!useS3) {
    const stray = NEEDS_USE_S3.find((name) => options[name] !== undefined && options[name] !== false);
    if (stray) throw invalid(stray, "needs use_s3=true");
  }
  if (useS3 && s3PresignedUrl !== undefined) throw invalid("s3PresignedUrl", "cannot be combined with use_s3");
  if (useS3 && !hasDestinations) {
    throw new RenderError("NoS3BucketConfigured", "use_s3 needs an S3 bucket configured for the project", {
      details: { option: "use_s3" },
    });
  }
  if (s3PresignedUrl !== undefined) {
    if (!hasDestinations) throw invalid("s3PresignedUrl", "is not supported by this renderer (no destination resolver)");
    httpAddress("s3PresignedUrl", String(s3PresignedUrl));
  }
  if (typeof s3Path === "string" && (!S3_PATH.test(s3Path) || s3Path.includes(".."))) {
    throw invalid(
      "s3Path",
      "must be a relative key like `folder/name`: up to 5 parts of A-Z a-z 0-9 . _ -, each starting with a letter or digit, no `..`",
    );
  }
  if (typeof s3Endpoint === "string") {
    const url = httpAddress("s3Endpoint", s3Endpoint);
    if (url.search || url.hash) throw invalid("s3Endpoint", "must be an address without query or fragment");
  }
  const region = options.s3Region;
  if (typeof region === "string" && !/^[a-z0-9-]{1,64}$/.test(region)) {
    throw invalid("s3Region", "is not a region name (a-z 0-9 -, like eu-west-1)");
  }
  if (typeof cdnHost === "string") {
    const text = /^https?:\/\//i.test(cdnHost) ? cdnHost : `https://${cdnHost}`;
    const url = httpAddress("cdnHost", text);
    if (url.search || url.hash) throw invalid("cdnHost", "must be a host or an address without query");
  }
  const bucket = options.s3Bucket;
  if (typeof bucket === "string" && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw invalid("s3Bucket", "is not a valid bucket name (3 to 63 of a-z 0-9 . -)");
  }
}
