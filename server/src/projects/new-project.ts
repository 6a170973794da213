import { randomBytes } from "node:crypto";
import type { StoredProject } from "./file.js";
import { aadOf, seal } from "./sealed.js";
import { type generateKeys, sha256 } from "./secrets.js";

/** What a new project may set besides its name and id (`ProjectStore.create`). */
export interface NewProjectSettings {
  enabled?: boolean;
  rateLimit?: { requests: number; perSeconds: number };
  formats?: string[];
  allowTokenless?: boolean;
}

function slug(name: string): string {
  return name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
}

/** A new project's name, trimmed; throws unless it has 1 to 200 characters and no control character. */
export function projectLabel(name: string): string {
  const label = name.trim();
  if (label.length === 0 || label.length > 200 || /[\p{Cc}]/u.test(label))
    throw new Error("A project name must be 1 to 200 characters without control characters");
  return label;
}

/** Throws unless the id asked for a new project (if any) has a project id's form. */
export function checkProjectId(id: string | undefined): void {
  if (id !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(id)) {
    throw new Error("A project id must be 1 to 64 letters, digits, '-' or '_' (starting with a letter or digit)");
  }
}

/** A new project's id: the one asked for (refused when taken), else its name's slug, made unique. */
export function newProjectId(label: string, asked: string | undefined, taken: ReadonlySet<string>): string {
  if (asked !== undefined && taken.has(asked)) throw new Error(`A project with id "${asked}" exists already`);
  let id = asked ?? (slug(label) || "project");
  while (taken.has(id)) id = `${(slug(label) || "project").slice(0, 33)}-${randomBytes(3).toString("hex")}`;
  return id;
}

/**
 * A new project's record for the projects document: the secret key kept as its SHA-256, and
 * sealed under the master key with the webhook secret (both are needed in clear later).
 */
export function newStoredProject(
  id: string,
  label: string,
  keys: ReturnType<typeof generateKeys>,
  masterKey: Buffer,
  settings: NewProjectSettings,
): StoredProject {
  return {
    id,
    name: label,
    secretKeyHash: sha256(keys.secretKey).toString("hex"),
    publishableKey: keys.publishableKey,
    webhookSecret: seal(masterKey, keys.webhookSecret, aadOf(id, "webhookSecret")),
    linkSigningKey: seal(masterKey, keys.secretKey, aadOf(id, "linkSigningKey")),
    enabled: settings.enabled ?? true,
    ...(settings.rateLimit ? { rateLimit: { ...settings.rateLimit } } : {}),
    ...(settings.formats ? { formats: [...settings.formats] } : {}),
    allowTokenless: settings.allowTokenless ?? false,
    createdAt: new Date().toISOString(),
  };
}
