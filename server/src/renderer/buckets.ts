import { RenderError, snakeName } from "@renderkit/core";
import { writableBuckets } from "../config/project-s3.js";
import type { ProjectS3Config, S3Config } from "../config/types.js";

/**
 * What a project's callers may name in its `s3` block (docs/security.md, "Buckets, keys and
 * endpoints"): the buckets and endpoints they may pick. Used at submit time, again when the
 * render is stored (a render queued before a config change), and when a stored render is read.
 */

const refuse = (option: string, why: string) =>
  new RenderError("InvalidOptions", `Option ${snakeName(option)} ${why}`, { details: { option: snakeName(option) } });

/** An endpoint as compared: the address without trailing slashes; `""` for none (AWS). */
const normal = (endpoint: string | undefined) => (endpoint === undefined ? "" : new URL(endpoint).href.replace(/\/+$/, ""));

/** True when `endpoint` is the project's own or an origin its config allows (`allowedEndpoints`). */
export function endpointAllowed(s3: ProjectS3Config, endpoint: string | undefined): boolean {
  if (normal(endpoint) === normal(s3.endpoint)) return true;
  if (endpoint === undefined) return false;
  const url = new URL(endpoint);
  return url.pathname === "/" && (s3.allowedEndpoints ?? []).includes(url.origin);
}

/** The bucket a `use_s3` render goes to, and whether the caller chose its endpoint (another than the project's). */
export interface RenderBucket {
  bucket: S3Config;
  chosenEndpoint: boolean;
}

/**
 * The bucket of a `use_s3` render: the project's, with the caller's `s3_bucket`, `s3_region` and
 * `s3_endpoint`. 400 `InvalidOptions` naming the option when the caller names a bucket or an
 * endpoint the project's config does not allow: the project's credentials sign every request, so
 * they must never reach another project's bucket or an endpoint the operator did not approve.
 */
export function renderBucket(
  s3: ProjectS3Config,
  options: { s3Bucket?: string; s3Region?: string; s3Endpoint?: string },
): RenderBucket {
  const { s3Bucket, s3Region, s3Endpoint } = options;
  if (s3Bucket !== undefined && !writableBuckets(s3).includes(s3Bucket)) {
    throw refuse(
      "s3Bucket",
      "names a bucket this project may not write: its own bucket, or one its configuration allows (projects[].s3.allowedBuckets)",
    );
  }
  if (s3Endpoint !== undefined && !endpointAllowed(s3, s3Endpoint)) {
    throw refuse(
      "s3Endpoint",
      "names an endpoint this project may not use: an origin (https://host[:port], no path) its configuration allows (projects[].s3.allowedEndpoints)",
    );
  }
  const endpoint = s3Endpoint ?? s3.endpoint;
  return {
    bucket: { ...s3, bucket: s3Bucket ?? s3.bucket, region: s3Region ?? s3.region, endpoint },
    chosenEndpoint: normal(endpoint) !== normal(s3.endpoint),
  };
}
