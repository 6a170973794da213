import { createHash } from "node:crypto";
import { projectS3Config } from "./project-s3.js";
import type { ProjectConfig } from "./types.js";
import { boolean, fail, integer, object, string } from "./values.js";

/** Checkers of the projects' keys: `projects` (the config file's projects) and `rateLimit` (their default). */

/** Printable ASCII without spaces: what fits in `Authorization: Bearer <key>`. */
const TOKEN_CHARS = /^[\x21-\x7e]+$/;
/** URL-unreserved characters: publishable keys appear in render-link paths. */
const PATH_SAFE = /^[A-Za-z0-9._~-]+$/;
const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const HEX64 = /^[0-9a-fA-F]{64}$/;

/** `{ requests, perSeconds }`: a project's `rateLimit`, and the server's default one. */
export function rateLimitConfig(value: unknown, path: string): { requests: number; perSeconds: number } {
  const v = object(value, path, ["requests", "perSeconds"]);
  return {
    requests: integer(v.requests, `${path}.requests`, 1, 1_000_000_000),
    perSeconds: integer(v.perSeconds, `${path}.perSeconds`, 1, 31_536_000),
  };
}

const PROJECT_KEYS = [
  "id",
  "name",
  "secretKey",
  "secretKeyHash",
  "publishableKey",
  "webhookSecret",
  "enabled",
  "rateLimit",
  "formats",
  "allowTokenless",
  "legacyLinkTokens",
  "linkFormats",
  "linkMaxAgeSeconds",
  "s3",
] as const satisfies readonly (keyof ProjectConfig)[];

/** A non-empty list of format names (`formats`, `linkFormats`). */
function formatList(value: unknown, path: string): string[] {
  if (!Array.isArray(value) || value.length === 0) return fail(path, "must be a non-empty list of format names");
  return value.map((f, i) => string(f, `${path}[${i}]`, 1, 32, /^[a-z0-9]+$/, "must be a format name such as png"));
}

/** Longest `linkMaxAgeSeconds`: a year. */
export const MAX_LINK_AGE_SECONDS = 31_536_000;

/**
 * A project's render-link fields, the same in the config file and in `projects.json`:
 * `legacyLinkTokens`, `linkFormats`, `linkMaxAgeSeconds`. Absent fields stay absent.
 */
export function linkSettings(
  v: Record<string, unknown>,
  path: string,
): Pick<ProjectConfig, "legacyLinkTokens" | "linkFormats" | "linkMaxAgeSeconds"> {
  const out: Pick<ProjectConfig, "legacyLinkTokens" | "linkFormats" | "linkMaxAgeSeconds"> = {};
  if (v.legacyLinkTokens !== undefined) out.legacyLinkTokens = boolean(v.legacyLinkTokens, `${path}.legacyLinkTokens`);
  if (v.linkFormats !== undefined) out.linkFormats = formatList(v.linkFormats, `${path}.linkFormats`);
  if (v.linkMaxAgeSeconds !== undefined) {
    out.linkMaxAgeSeconds = integer(v.linkMaxAgeSeconds, `${path}.linkMaxAgeSeconds`, 1, MAX_LINK_AGE_SECONDS);
  }
  return out;
}

function project(value: unknown, path: string): ProjectConfig {
  const v = object(value, path, PROJECT_KEYS);
  const id = string(
    v.id,
    `${path}.id`,
    1,
    64,
    PROJECT_ID,
    "must be 1 to 64 letters, digits, '-' or '_' (starting with a letter or digit)",
  );
  const out: ProjectConfig = {
    id,
    name: v.name === undefined ? id : string(v.name, `${path}.name`, 1, 200),
    publishableKey: string(
      v.publishableKey,
      `${path}.publishableKey`,
      8,
      256,
      PATH_SAFE,
      "must be 8 to 256 letters, digits, '-', '_', '.' or '~'",
    ),
    webhookSecret: string(
      v.webhookSecret,
      `${path}.webhookSecret`,
      16,
      1024,
      undefined,
      "must be a string of at least 16 characters",
    ),
    enabled: v.enabled === undefined ? true : boolean(v.enabled, `${path}.enabled`),
    allowTokenless: v.allowTokenless === undefined ? false : boolean(v.allowTokenless, `${path}.allowTokenless`),
  };
  if ((v.secretKey === undefined) === (v.secretKeyHash === undefined))
    fail(path, "must have exactly one of secretKey or secretKeyHash");
  if (v.secretKey !== undefined) {
    out.secretKey = string(
      v.secretKey,
      `${path}.secretKey`,
      16,
      256,
      TOKEN_CHARS,
      "must be 16 to 256 printable ASCII characters without spaces",
    );
  } else {
    out.secretKeyHash = string(
      v.secretKeyHash,
      `${path}.secretKeyHash`,
      64,
      64,
      HEX64,
      "must be 64 hexadecimal characters (SHA-256)",
    ).toLowerCase();
  }
  if (sha256Hex(out.webhookSecret) === (out.secretKeyHash ?? sha256Hex(out.secretKey ?? ""))) {
    fail(`${path}.webhookSecret`, "must differ from the secret key");
  }
  if (v.rateLimit !== undefined) out.rateLimit = rateLimitConfig(v.rateLimit, `${path}.rateLimit`);
  if (v.formats !== undefined) out.formats = formatList(v.formats, `${path}.formats`);
  Object.assign(out, linkSettings(v, path));
  if (v.s3 !== undefined) out.s3 = projectS3Config(v.s3, `${path}.s3`, id);
  // Secrets stay readable but are not enumerable: logging or serialising the config cannot leak them.
  for (const key of ["secretKey", "webhookSecret"] as const) {
    if (out[key] !== undefined) Object.defineProperty(out, key, { enumerable: false });
  }
  return out;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** `projects`: a list of projects whose ids, secret keys and publishable keys are each unique. */
export function projectsConfig(value: unknown, path: string): ProjectConfig[] {
  if (!Array.isArray(value)) return fail(path, "must be a list of projects");
  const list = value.map((p, i) => project(p, `${path}[${i}]`));
  const ids = new Map<string, number>();
  const secrets = new Map<string, number>();
  const publishable = new Map<string, number>();
  list.forEach((p, i) => {
    const at = `${path}[${i}]`;
    const hash = p.secretKeyHash ?? sha256Hex(p.secretKey ?? "");
    const seen = (map: Map<string, number>, key: string, field: string) => {
      const first = map.get(key);
      if (first !== undefined) fail(`${at}.${field}`, `is the same as in ${path}[${first}]; it must be unique`);
      map.set(key, i);
    };
    seen(ids, p.id, "id");
    seen(secrets, hash, p.secretKey ? "secretKey" : "secretKeyHash");
    seen(publishable, p.publishableKey, "publishableKey");
  });
  list.forEach((p, i) => {
    // A publishable key is public: if it were also some project's secret key, that key would be public too.
    if (secrets.has(sha256Hex(p.publishableKey))) fail(`${path}[${i}].publishableKey`, "must differ from every secret key");
  });
  return list;
}
