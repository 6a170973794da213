import { ConfigError } from "../config/error.js";
import type { Project, ProjectConfig, ServerConfig } from "../config/types.js";
import { linkFieldsOf, type StoredProject } from "./file.js";
import { aadOf, unseal } from "./sealed.js";
import { MASTER_KEY_FILE, makeProject, sha256 } from "./secrets.js";

/** A project as the store holds it: the `Project` handed out, and the SHA-256 its secret key is checked against. */
export interface ProjectEntry {
  project: Project;
  hash: Buffer;
}

/** A project of the config file; one that sets no `rateLimit` takes the server's. */
export function entryFromConfig(p: ProjectConfig, config: Pick<ServerConfig, "rateLimit">): ProjectEntry {
  const hash = p.secretKey !== undefined ? sha256(p.secretKey) : Buffer.from(p.secretKeyHash ?? "", "hex");
  const base = {
    id: p.id,
    name: p.name ?? p.id,
    secretKeyHash: hash.toString("hex"),
    publishableKey: p.publishableKey,
    enabled: p.enabled ?? true,
    rateLimit: p.rateLimit ?? config.rateLimit,
    ...(p.formats ? { formats: p.formats } : {}),
    allowTokenless: p.allowTokenless ?? false,
    ...linkFieldsOf(p),
    ...(p.s3 ? { s3: p.s3 } : {}),
  };
  return { project: makeProject(base, p.webhookSecret, p.secretKey), hash };
}

/**
 * A project of the projects document (`source`), its sealed keys opened with the master key; a
 * key that does not open them is a `ConfigError` that names the project.
 */
export function entryFromStored(
  p: StoredProject,
  key: Buffer,
  config: Pick<ServerConfig, "rateLimit" | "redis">,
  source: string,
): ProjectEntry {
  let webhookSecret: string;
  let linkSigningKey: string;
  try {
    webhookSecret = unseal(key, p.webhookSecret, aadOf(p.id, "webhookSecret"));
    linkSigningKey = unseal(key, p.linkSigningKey, aadOf(p.id, "linkSigningKey"));
  } catch {
    throw new ConfigError(
      `cannot decrypt the keys of project "${p.id}" in ${source}: the master key (RENDERKIT_MASTER_KEY or ${MASTER_KEY_FILE}) is not the one they were written with` +
        (config.redis ? "; give every node the same RENDERKIT_MASTER_KEY" : ""),
    );
  }
  const base = {
    id: p.id,
    name: p.name,
    secretKeyHash: p.secretKeyHash.toLowerCase(),
    publishableKey: p.publishableKey,
    enabled: p.enabled,
    rateLimit: p.rateLimit ?? config.rateLimit,
    ...(p.formats ? { formats: p.formats } : {}),
    allowTokenless: p.allowTokenless ?? false,
    ...linkFieldsOf(p),
  };
  return { project: makeProject(base, webhookSecret, linkSigningKey), hash: Buffer.from(p.secretKeyHash, "hex") };
}
