import { createHash, randomBytes } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "@renderkit/core";
import { ConfigError } from "../config/error.js";
import type { Project } from "../config/types.js";
import { HEX64, PROJECTS_FILE, tighten, writeFileExclusive } from "./file.js";

/** Project keys: generating them, and the master key that seals the ones kept in `projects.json` (`sealed.ts`). */

export const MASTER_KEY_FILE = "master.key";

export const sha256 = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();
const token = (prefix: string, bytes: number): string => prefix + randomBytes(bytes).toString("base64url");

/** Fresh keys: `sk_` + 32 random bytes, `pk_` + 16, `whsec_` + 32 (base64url). */
export function generateKeys(): { secretKey: string; publishableKey: string; webhookSecret: string } {
  return { secretKey: token("sk_", 32), publishableKey: token("pk_", 16), webhookSecret: token("whsec_", 32) };
}

function parseMasterKey(text: string, where: string): Buffer {
  if (!HEX64.test(text)) throw new ConfigError(`${where} must be 64 hexadecimal characters (32 bytes)`);
  return Buffer.from(text, "hex");
}

/** The master key given (`RENDERKIT_MASTER_KEY`) or in `<dataDir>/master.key`; undefined when there is none. */
export async function readMasterKey(dataDir: string, given: string | undefined, logger?: Logger): Promise<Buffer | undefined> {
  if (given !== undefined) return parseMasterKey(given.trim(), "RENDERKIT_MASTER_KEY");
  const path = join(dataDir, MASTER_KEY_FILE);
  try {
    const text = await readFile(path, "utf8");
    await tighten(path, logger);
    return parseMasterKey(text.trim(), path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    return undefined;
  }
}

/** The master key; generated into `master.key` only when nothing has been encrypted yet (`mayGenerate`). */
export async function loadMasterKey(
  dataDir: string,
  given: string | undefined,
  mayGenerate: boolean,
  logger?: Logger,
  /** Where the sealed keys live, for messages. */
  holder: string = PROJECTS_FILE,
): Promise<Buffer> {
  const found = await readMasterKey(dataDir, given, logger);
  if (found) return found;
  const path = join(dataDir, MASTER_KEY_FILE);
  if (!mayGenerate) {
    throw new ConfigError(
      `${path} is missing, but ${holder} holds keys encrypted with it; restore it or set RENDERKIT_MASTER_KEY`,
    );
  }
  const hex = randomBytes(32).toString("hex");
  try {
    // An API node in Redis mode may never have written to its data directory before.
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFileExclusive(path, `${hex}\n`);
    logger?.info("generated a master key (it seals the projects' keys and the caller secrets of queued renders); back it up", {
      file: path,
    });
    return Buffer.from(hex, "hex");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return parseMasterKey((await readFile(path, "utf8")).trim(), path); // another process won the race
  }
}

function hidden<T extends object>(target: T, key: keyof T & string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: false, writable: true, configurable: true });
}

/** A project whose webhook secret and link signing key are non-enumerable: logging or serialising it leaks neither. */
export function makeProject(
  base: Omit<Project, "webhookSecret" | "linkSigningKey">,
  webhookSecret: string,
  linkSigningKey?: string,
): Project {
  const project = { ...base } as Project;
  hidden(project, "webhookSecret", webhookSecret);
  if (linkSigningKey !== undefined) hidden(project, "linkSigningKey", linkSigningKey);
  return project;
}
