import { BUCKET, s3Config } from "./scale.js";
import type { ProjectS3Config } from "./types.js";
import { boolean, fail, httpAddress, string } from "./values.js";

/** Keys a project's `s3` takes besides the bucket's own (`S3_KEYS`). */
const PROJECT_S3_KEYS = ["prefix", "allowedBuckets", "allowedEndpoints", "useServerCredentials"] as const;

/**
 * `""` or up to 4 folders, each ending in `/`. A folder, never a name prefix: the project's keys
 * then always hold a `/`, so none is ever one of the server's own keys (`<renderId>.<ext>`, at
 * the root of its bucket), and two prefixes overlap exactly when one starts with the other.
 */
const PREFIX = /^(?:[A-Za-z0-9][A-Za-z0-9._-]{0,127}\/){0,4}$/;

function list(value: unknown, path: string, max: number, each: (item: unknown, at: string) => string): string[] {
  if (!Array.isArray(value) || value.length > max) return fail(path, `must be a list of at most ${max} entries`);
  return [...new Set(value.map((item, i) => each(item, `${path}[${i}]`)))];
}

/** An endpoint origin (`https://host[:port]`): a path would let a path-style request reach another bucket. */
function origin(value: unknown, path: string): string {
  const url = new URL(httpAddress(value, path));
  if (url.pathname !== "/") fail(path, "must be an origin such as https://s3.example.com, without a path");
  return url.origin;
}

/**
 * `projects[i].s3`: the bucket's keys (`s3Config`), the tenancy keys, and whose credentials sign.
 * The project's own keys are required unless `useServerCredentials` says, in the operator's
 * words, that the server's may sign this project's bucket. `prefix` defaults to `<projectId>/`.
 */
export function projectS3Config(value: unknown, path: string, projectId: string): ProjectS3Config {
  const base = s3Config(value, path, PROJECT_S3_KEYS);
  const v = value as Record<string, unknown>;
  const prefix =
    v.prefix === undefined
      ? `${projectId}/`
      : string(
          v.prefix,
          `${path}.prefix`,
          0,
          512,
          PREFIX,
          'must be "" or up to 4 folders ending in "/", such as "tenant-a/" (each 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit)',
        );
  // Assigned onto the checked object: it keeps `secretAccessKey` readable and hidden.
  const out: ProjectS3Config = Object.assign(base, { prefix });
  if (v.allowedBuckets !== undefined) {
    out.allowedBuckets = list(v.allowedBuckets, `${path}.allowedBuckets`, 100, (item, at) =>
      string(item, at, 3, 63, BUCKET, "must be a bucket name (3 to 63 of a-z 0-9 . -)"),
    );
  }
  if (v.allowedEndpoints !== undefined) out.allowedEndpoints = list(v.allowedEndpoints, `${path}.allowedEndpoints`, 20, origin);
  const serverCredentials =
    v.useServerCredentials === undefined ? false : boolean(v.useServerCredentials, `${path}.useServerCredentials`);
  if (serverCredentials) out.useServerCredentials = true;
  if (serverCredentials && out.accessKeyId !== undefined) {
    fail(path, "has both accessKeyId and useServerCredentials: give the project's own keys, or sign with the server's, not both");
  }
  if (!serverCredentials && out.accessKeyId === undefined) {
    fail(
      path,
      "needs the project's own accessKeyId and secretAccessKey; to sign this project's bucket with the server's credentials (AWS_* variables, profiles, instance roles) instead, set useServerCredentials: true",
    );
  }
  return out;
}

/** The buckets the project's renders may go to: its own, then the ones its config allows (`allowedBuckets`). */
export function writableBuckets(s3: ProjectS3Config): string[] {
  return [s3.bucket, ...(s3.allowedBuckets ?? [])];
}
