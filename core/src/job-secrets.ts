import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { OptionTable } from "./contracts/option-spec.js";

/**
 * Seals the caller's secret options (`OptionSpec.secret`: `authorization`, `proxy`, `headers`,
 * `cookies`, the presigned upload addresses, and plugins' own) while a render waits in the queue
 * (`RendererSettings.jobSecrets`). A queue, durable or not, first-party or not, then only ever
 * stores ciphertext for them: a copy of the queue's files or of Redis reveals none of them.
 *
 * `seal` and `open` are given the render id; an implementation binds the ciphertext to it (as
 * `keyedJobSecrets` does with the additional authenticated data), so a sealed value copied into
 * another render's job does not open there.
 */
export interface JobSecrets {
  /** Encrypts `plain` (JSON text) for render `renderId`; what it returns is stored in the job. */
  seal(plain: string, renderId: string): string | Promise<string>;
  /** Decrypts what `seal` returned for the same render; throws when it cannot (another key, another render, changed). */
  open(sealed: string, renderId: string): string | Promise<string>;
}

/** Tag of the sealed form below; another form would get another tag. */
const FORM = "v1";

/** Additional authenticated data: the render the ciphertext belongs to. */
const aadOf = (renderId: string): Buffer => Buffer.from(`renderkit:job-secrets:${renderId}`, "utf8");

/**
 * AES-256-GCM under a 32-byte key, a fresh 96-bit nonce each time, bound to the render id:
 * `v1.<iv>.<tag>.<ciphertext>`, each part base64url. Every process that runs renders needs the
 * key of the processes that queue them.
 */
export function keyedJobSecrets(key: Uint8Array): JobSecrets {
  if (key.length !== 32) throw new RangeError("keyedJobSecrets needs a 32-byte key (AES-256)");
  const secret = Buffer.from(key);
  return {
    seal(plain, renderId) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", secret, iv).setAAD(aadOf(renderId));
      const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return [FORM, iv, cipher.getAuthTag(), data]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    open(sealed, renderId) {
      const [form, iv, tag, data, ...rest] = sealed.split(".");
      if (form !== FORM || iv === undefined || tag === undefined || data === undefined || rest.length > 0) {
        throw new Error("the sealed secret options are not in a form this version reads");
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", secret, Buffer.from(iv, "base64url")).setAAD(aadOf(renderId));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(data, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        // GCM says only "no": another key sealed them, they belong to another render, or they were changed.
        throw new Error(
          "the sealed secret options do not open with this key (sealed under another key, for another render, or changed)",
        );
      }
    },
  };
}

/** The names of the secret options of a table (camelCase, as parsed options carry them). */
export function secretOptionNames(table: OptionTable): string[] {
  return Object.entries(table)
    .filter(([, spec]) => spec.secret === true)
    .map(([name]) => name);
}

/** Options as a job carries them: the secret ones sealed into `sealed` when there were any. */
export interface QueuedOptions<O extends Record<string, unknown>> {
  options: O;
  sealed?: string;
}

/**
 * Takes the secret options (`names`) out of `options` and seals them for `renderId`. Without
 * `secrets` (a library user who set none) or without any secret option given, the options are
 * queued as they are.
 */
export async function sealSecretOptions<O extends Record<string, unknown>>(
  options: O,
  names: readonly string[],
  secrets: JobSecrets | undefined,
  renderId: string,
): Promise<QueuedOptions<O>> {
  const given = names.filter((name) => options[name] !== undefined);
  if (!secrets || given.length === 0) return { options };
  const rest: Record<string, unknown> = { ...options };
  const taken: Record<string, unknown> = {};
  for (const name of given) {
    taken[name] = rest[name];
    delete rest[name];
  }
  return { options: rest as O, sealed: await secrets.seal(JSON.stringify(taken), renderId) };
}

/**
 * The options a queued job stands for: its `sealed` secret options opened and put back. A job
 * queued by a version before sealing (or by a renderer without `jobSecrets`) has no `sealed`: its
 * options are used as they are. Throws when `sealed` is there but cannot be opened (no `secrets`,
 * another key, another render's).
 */
export async function openSecretOptions<O extends Record<string, unknown>>(
  queued: QueuedOptions<O>,
  secrets: JobSecrets | undefined,
  renderId: string,
): Promise<O> {
  if (queued.sealed === undefined) return queued.options;
  if (typeof queued.sealed !== "string") throw new Error("the job's sealed secret options are not a string");
  if (!secrets) throw new Error("the job's secret options are sealed, and this renderer has no jobSecrets setting to open them");
  const opened = JSON.parse(await secrets.open(queued.sealed, renderId)) as unknown;
  if (opened === null || typeof opened !== "object" || Array.isArray(opened)) {
    throw new Error("the job's sealed secret options are not an object");
  }
  return { ...queued.options, ...(opened as Record<string, unknown>) } as O;
}
