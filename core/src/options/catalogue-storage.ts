import type { PresignedSide } from "../contracts/destination.js";
import type { OptionRule } from "../contracts/option-rule.js";
import { isStorageKey, STORAGE_KEY_RULE } from "../defaults/fs-storage.js";
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
 * Where a render's file goes (docs/compatibility.md#cache-and-storage). The renderer stores
 * into its own storage unless a destination resolver (`RendererSettings.destination`, the
 * server's project buckets) takes `use_s3` or `s3_presigned_url`.
 */
export const STORAGE_OPTIONS = {
  useS3: bool("Store the render in the project's own S3 bucket instead of the server's storage.", { default: false }),
  s3Path: str(
    "Object key in the project's bucket, under the project's key prefix (set by the operator, default `<project id>/`), without extension (added unless `no_suffix`); default the render id. A key the storage would refuse is refused at submit.",
    { maxLength: 1000 },
  ),
  noSuffix: bool("Do not add the format's extension to `s3_path`.", { default: false }),
  s3Bucket: str(
    "Bucket to use instead of the project's: one the project's configuration allows (`allowedBuckets`), else refused; the project's credentials and key prefix apply.",
    { maxLength: 63 },
  ),
  s3Region: str("Region of `s3_bucket`.", { maxLength: 64 }),
  s3Endpoint: str(
    "S3-compatible endpoint (R2, MinIO, Wasabi, Spaces) instead of the project's: an origin the project's configuration allows (`allowedEndpoints`), else refused; public addresses only.",
    { maxLength: 2048 },
  ),
  s3Storageclass: oneOf(
    "Storage class of the object in the project's bucket (default: the bucket's, STANDARD).",
    S3_STORAGE_CLASSES,
  ),
  cdnHost: str(
    "Host (or https address) of a CDN in front of the project's bucket: `renderUrl` becomes `https://<cdn_host>/<key>`, the key with the project's prefix.",
    {
      maxLength: 2048,
    },
  ),
  s3PresignedUrl: str(
    "Upload the render with HTTP PUT to this address you signed (an S3 presigned PUT); `renderUrl` becomes it without its query.",
    // Its query is the signature that lets anyone holding it write the object.
    { maxLength: 8192, secret: true },
  ),
  s3PresignedUrlHtml: str(sideDoc("save_html", "HTML", "htmlUrl", "html"), { maxLength: 8192, secret: true }),
  s3PresignedUrlMarkdown: str(sideDoc("save_markdown", "markdown", "markdownUrl", "md"), { maxLength: 8192, secret: true }),
  s3PresignedUrlMetadata: str(sideDoc("save_metadata", "metadata JSON", "metadataUrl"), { maxLength: 8192, secret: true }),
  s3PresignedUrlMhtml: str(sideDoc("save_mhtml", "MHTML snapshot", "mhtmlUrl", "mhtml"), { maxLength: 8192, secret: true }),
  s3PresignedUrlResourceInfo: str(sideDoc("save_resource_info", "resource list JSON", "resourceInfoUrl"), {
    maxLength: 8192,
    secret: true,
  }),
} as const;

/**
 * Each side file's upload option and the `save_*` option it needs. A render in the format that
 * stands for the side file (`FormatSpec.sideRender` equal to the side's name) is that file
 * already: `s3_presigned_url` takes it (`checkRequest` refuses the side upload).
 */
export const PRESIGNED_SIDES: Readonly<Record<PresignedSide, { option: keyof typeof STORAGE_OPTIONS; save: string }>> = {
  html: { option: "s3PresignedUrlHtml", save: "saveHtml" },
  markdown: { option: "s3PresignedUrlMarkdown", save: "saveMarkdown" },
  metadata: { option: "s3PresignedUrlMetadata", save: "saveMetadata" },
  mhtml: { option: "s3PresignedUrlMhtml", save: "saveMhtml" },
  resourceInfo: { option: "s3PresignedUrlResourceInfo", save: "saveResourceInfo" },
};

function sideDoc(save: string, what: string, field: string, format?: string): string {
  return (
    `Upload the ${what} side file of \`${save}\` with HTTP PUT to this address you signed (an S3 presigned PUT) instead of ` +
    `renderkit's storage; \`${field}\` becomes it without its query. Needs \`${save}=true\` (the address does not ask for ` +
    "the file by itself: without it, or with it false, the request is refused), on any format" +
    (format ? ` but ${format}, whose render is that file already (use \`s3_presigned_url\`)` : "") +
    ". The address must be public (as `s3_presigned_url`) and differ from the other upload addresses; refused on render links. " +
    "A failed upload fails the render."
  );
}

/**
 * Side-file uploads that cannot work: the address without its `save_*` option (a false or
 * missing option means the same: clients drop false values). On the format that stands for the
 * side file, `checkSideUploads` refuses it.
 */
export const STORAGE_RULES: readonly OptionRule[] = Object.values(PRESIGNED_SIDES).map(({ option, save }) => ({
  option,
  when: (o: Record<string, unknown>) => o[option] !== undefined && o[save] !== true,
  why: `needs ${snakeName(save)}=true: it says where that side file goes, it does not ask for it`,
}));

/** Refuses the upload address of a side file on a render in the format that stands for it (`FormatSpec.sideRender`). */
export function checkSideUploads(options: Record<string, unknown>, format: { format: string; sideRender?: string }): void {
  const side =
    format.sideRender && Object.hasOwn(PRESIGNED_SIDES, format.sideRender) ? (format.sideRender as PresignedSide) : undefined;
  const option = side && PRESIGNED_SIDES[side].option;
  if (option && options[option] !== undefined) {
    throw invalid(
      option,
      `cannot be used with format ${format.format}: the render itself is that file; upload it with s3_presigned_url`,
    );
  }
}

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
  const { useS3, cdnHost, s3Endpoint, s3PresignedUrl } = options as Record<string, string | boolean | undefined>;
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
  checkPresignedUrls(options, hasDestinations);
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

/**
 * The object key `s3_path` makes (with the format's extension unless `no_suffix`), checked with
 * the storages' own key rule (`assertStorageKey`) before anything renders: a key the storage
 * would refuse once the render is made (`a/b.meta.json`) is the caller's mistake, a 400 now
 * rather than a failed render later.
 */
export function checkObjectKey(options: Record<string, unknown>, format: { extension: string }): void {
  const { s3Path, noSuffix } = options;
  if (typeof s3Path !== "string") return;
  const key = noSuffix === true ? s3Path : `${s3Path}.${format.extension}`;
  if (isStorageKey(key)) return;
  const made = noSuffix === true ? "with no_suffix is the object key" : "makes the object key";
  throw invalid("s3Path", `${made} ${JSON.stringify(key).slice(0, 80)}, which the storage refuses: ${STORAGE_KEY_RULE}`);
}

/**
 * `s3_presigned_url` and the side-file addresses: a renderer without a destination resolver
 * refuses them; each must be an http(s) address without credentials, each a different object
 * (one upload would overwrite another), and each side file needs its `save_*` option
 * (`STORAGE_RULES`).
 */
function checkPresignedUrls(options: Record<string, unknown>, hasDestinations: boolean): void {
  const names = ["s3PresignedUrl", ...Object.values(PRESIGNED_SIDES).map((side) => side.option)];
  const seen = new Map<string, string>();
  for (const name of names) {
    const value = options[name];
    if (value === undefined) continue;
    if (!hasDestinations) throw invalid(name, "is not supported by this renderer (no destination resolver)");
    const url = httpAddress(name, String(value));
    const object = `${url.origin}${url.pathname}`;
    const other = seen.get(object);
    if (other) throw invalid(name, `uploads to the same object as ${snakeName(other)}: give each file its own address`);
    seen.set(object, name);
  }
  const format = typeof options.format === "string" ? options.format : "";
  const rule = STORAGE_RULES.find((r) => r.when(options as Parameters<OptionRule["when"]>[0], format));
  if (rule) throw invalid(rule.option, rule.why);
}
