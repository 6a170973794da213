import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import { S3Storage, S3StorageError } from "@renderkit/storage-s3";
import { s3StorageOptions } from "../config/scale.js";
import type { ProjectS3Config, S3Config, ServerConfig } from "../config/types.js";
import { s3ErrorCode, s3Fix } from "./s3-errors.js";
import { type Check, type CheckContext, type DoctorCheck, fail, message, ok, warn } from "./types.js";

async function readBody(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

/** How one bucket is probed: where its settings live and what a failed delete means. */
interface Probe {
  name: string;
  s3: S3Config;
  /** Config path of the settings, for fix lines. */
  where: string;
  /** Whether renderkit deletes in this bucket (expired renders): then a refused delete fails. */
  deletes: boolean;
}

/**
 * Writes, reads back and deletes a small object under `renderkit-doctor/` with the storage
 * class renders use, so that the credentials are tried on exactly what renders do (HeadBucket
 * would need s3:ListBucket, which a key limited to objects lacks). The object carries an
 * expiry, so a sweep removes it should the delete be refused.
 */
async function probeBucket({ name, s3, where, deletes }: Probe, context: CheckContext): Promise<DoctorCheck[]> {
  const at = `bucket ${s3.bucket} at ${s3.endpoint ?? `AWS S3 (${s3.region ?? process.env.AWS_REGION ?? "us-east-1"})`}`;
  const prefix = (s3 as Partial<ProjectS3Config>).prefix ?? "";
  const needs = deletes ? "s3:PutObject, s3:GetObject and s3:DeleteObject" : "s3:PutObject and s3:GetObject";
  let storage: S3Storage;
  try {
    storage = new S3Storage({
      ...s3StorageOptions(s3),
      // A project's bucket is probed where its renders go (its key may be limited to the prefix).
      prefix,
      // Probes the bucket, not its public address.
      publicBaseUrl: undefined,
      // Two tries ride out a dropped connection; each gets half the time, so that a silent
      // endpoint fails with the SDK's own TimeoutError before the check's time is up.
      maxAttempts: 2,
      connectionTimeoutMs: Math.max(1, Math.floor(context.timeoutMs / 2)),
      socketTimeoutMs: Math.max(1, Math.floor(context.timeoutMs / 2)),
    });
  } catch (error) {
    return [fail(name, `${at}: ${message(error)}`, `correct ${where} in the config file`)];
  }
  const close = () => void storage.close();
  context.signal.addEventListener("abort", close, { once: true });
  const key = `renderkit-doctor/${Date.now()}-${randomBytes(6).toString("hex")}.txt`;
  const body = Buffer.from(`renderkit doctor probe ${key}\n`);
  /** The key as the bucket holds it, for the messages. */
  const shown = `${prefix}${key}`;
  const failed = (step: string, error: unknown) => {
    const code = s3ErrorCode(error);
    // The cause's own words: the storage error repeats the key and bucket this line already names.
    const said = message(error instanceof S3StorageError && error.cause ? error.cause : error);
    return fail(name, `${at}: ${step} failed: ${code} (${said})`, s3Fix(code, s3, where, needs));
  };
  try {
    try {
      await storage.put(key, body, { contentType: "text/plain", expiresAt: Date.now() + 86_400_000 });
    } catch (error) {
      return [failed("writing a test object", error)];
    }
    let read: Buffer | undefined;
    try {
      const object = await storage.get(key);
      read = object ? await readBody(object.body as Readable) : undefined;
    } catch (error) {
      return [failed(`reading back ${shown}`, error)];
    }
    if (!read?.equals(body)) {
      const what = read ? `came back different (${read.length} bytes)` : "was not found right after writing it";
      return [fail(name, `${at}: the test object ${shown} ${what}`, `check ${where}.endpoint: is it an S3-compatible service?`)];
    }
    try {
      await storage.delete(key);
    } catch (error) {
      const code = s3ErrorCode(error);
      if (deletes) return [failed(`deleting ${shown}`, error)];
      const detail = `${at}: writes and reads work; deleting the test object ${shown} failed with ${code}`;
      return [warn(name, detail, `delete ${shown} from ${s3.bucket} by hand (renderkit never deletes in project buckets)`)];
    }
    return [ok(name, `${at}: write, read and delete work`)];
  } finally {
    context.signal.removeEventListener("abort", close);
    await storage.close();
  }
}

/** The server's own bucket (`storage.kind: "s3"`). */
export const s3StorageCheck: Check = {
  name: "s3 storage",
  timeoutFix: "check that storage.endpoint (or AWS S3) is reachable from this machine and answers as S3",
  async run(context) {
    const storage = context.config.storage;
    if (storage.kind !== "s3") return [];
    return probeBucket({ name: this.name, s3: storage, where: "storage", deletes: true }, context);
  },
};

/** One check per project with its own bucket (`projects[].s3`, used by `use_s3`), each with its own timeout. */
export function projectBucketChecks(config: ServerConfig): Check[] {
  return config.projects.flatMap((project, index) => {
    const s3 = project.s3;
    if (!s3) return [];
    const name = `s3 project ${project.id}`;
    return [
      {
        name,
        timeoutFix: `check that projects[${index}].s3.endpoint (or AWS S3) is reachable from this machine and answers as S3`,
        run: (context: CheckContext) => probeBucket({ name, s3, where: `projects[${index}].s3`, deletes: false }, context),
      },
    ];
  });
}
