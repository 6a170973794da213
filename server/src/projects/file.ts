import { chmod, open, stat } from "node:fs/promises";
import type { Logger } from "@renderkit/core";
import { writeAtomic } from "@renderkit/core/internal";
import { ConfigError } from "../config/error.js";
import { linkSettings } from "../config/projects.js";
import type { Sealed } from "./sealed.js";

/** `projects.json`: its format, the check of what is read from it, and how private files are written. */

export const PROJECTS_FILE = "projects.json";
export const HEX64 = /^[0-9a-fA-F]{64}$/;

/** One project as `projects.json` holds it. */
export interface StoredProject {
  id: string;
  name: string;
  secretKeyHash: string;
  publishableKey: string;
  webhookSecret: Sealed;
  linkSigningKey: Sealed;
  enabled: boolean;
  /** Absent: the server's default `rateLimit` applies. */
  rateLimit?: { requests: number; perSeconds: number };
  formats?: string[];
  allowTokenless: boolean;
  /** Render-link fields, as in the config file (docs/server-config.md); absent: their defaults. */
  legacyLinkTokens?: boolean;
  linkFormats?: string[];
  linkMaxAgeSeconds?: number;
  createdAt: string;
}

/** A project record's render-link fields (config file or `projects.json`), only those it sets. */
export function linkFieldsOf(
  p: Pick<StoredProject, "legacyLinkTokens" | "linkFormats" | "linkMaxAgeSeconds">,
): Pick<StoredProject, "legacyLinkTokens" | "linkFormats" | "linkMaxAgeSeconds"> {
  return {
    ...(p.legacyLinkTokens !== undefined ? { legacyLinkTokens: p.legacyLinkTokens } : {}),
    ...(p.linkFormats !== undefined ? { linkFormats: [...p.linkFormats] } : {}),
    ...(p.linkMaxAgeSeconds !== undefined ? { linkMaxAgeSeconds: p.linkMaxAgeSeconds } : {}),
  };
}

export interface StoredFile {
  version: 1;
  projects: StoredProject[];
}

/** Writes a private file (mode 0600) atomically: the old or the new file survives a crash, never half. */
export function writePrivate(path: string, text: string): Promise<void> {
  return writeAtomic(path, text, 0o600);
}

/** Creates a file that must not exist yet (mode 0600) and syncs it; EEXIST when it does. */
export async function writeFileExclusive(path: string, text: string): Promise<void> {
  const handle = await open(path, "wx", 0o600);
  try {
    await handle.writeFile(text, "utf8");
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Private files must stay private: a group- or world-readable one is tightened, with a warning. */
export async function tighten(path: string, logger?: Logger): Promise<void> {
  const mode = (await stat(path)).mode & 0o777;
  if (mode & 0o077) {
    logger?.warn("file was readable by others; mode set to 0600", { file: path, mode: mode.toString(8) });
    await chmod(path, 0o600);
  }
}

export function checkStored(value: unknown, path: string): StoredFile {
  const damaged = (what: string): never => {
    throw new ConfigError(`${path} is damaged: ${what}`);
  };
  const file = value as Partial<StoredFile> | null;
  if (typeof file !== "object" || file === null || file.version !== 1 || !Array.isArray(file.projects))
    damaged("expected { version: 1, projects: [...] }");
  const sealed = (s: unknown) =>
    typeof s === "object" &&
    s !== null &&
    ["iv", "tag", "data"].every((k) => typeof (s as Record<string, unknown>)[k] === "string");
  file!.projects!.forEach((p, i) => {
    const ok =
      typeof p?.id === "string" &&
      typeof p.name === "string" &&
      typeof p.secretKeyHash === "string" &&
      HEX64.test(p.secretKeyHash) &&
      typeof p.publishableKey === "string" &&
      sealed(p.webhookSecret) &&
      sealed(p.linkSigningKey) &&
      typeof p.enabled === "boolean";
    if (!ok) damaged(`projects[${i}] lacks a field or has one of the wrong type`);
    // Fields edited by hand: each wrong value is named, as in the config file.
    linkSettings(p as unknown as Record<string, unknown>, `${path}: projects[${i}]`);
  });
  return file as StoredFile;
}

/** A file's modification time in ms, 0 when it cannot be read. */
export function mtimeOf(file: string): Promise<number> {
  return stat(file).then(
    (info) => info.mtimeMs,
    () => 0,
  );
}
