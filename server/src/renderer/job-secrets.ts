import { hkdfSync } from "node:crypto";
import { type JobSecrets, keyedJobSecrets } from "@renderkit/core";

/**
 * The caller secrets of queued renders (`authorization`, `proxy`, `headers`, `cookies`, the
 * presigned upload addresses) are sealed under a key derived from the master key, the one that
 * seals the projects' keys: the queue (`<dataDir>/queue` or BullMQ's jobs in Redis) only ever
 * holds ciphertext for them. Every node of a Redis deployment needs the same master key.
 *
 * The key is derived (HKDF-SHA256) rather than the master key itself, so the two uses never share
 * a key: a job's ciphertext can never be taken for a project's sealed key, or the other way.
 */
const INFO = "renderkit job secrets v1";

/** The AES-256 key of the job secrets, derived from the master key. */
export function jobSecretsKey(masterKey: Buffer): Buffer {
  return Buffer.from(hkdfSync("sha256", masterKey, Buffer.alloc(0), INFO, 32));
}

/**
 * The renderer's `jobSecrets` for a process with `masterKey`, or, without one (a worker given
 * no `RENDERKIT_MASTER_KEY`), one that fails each render whose secrets are sealed. Either way
 * the error, which the renderer logs and never shows a caller, tells the operator what to do.
 */
export function serverJobSecrets(masterKey: Buffer | undefined): JobSecrets {
  if (!masterKey) {
    const missing = () => {
      throw new Error(
        "this node has no master key (RENDERKIT_MASTER_KEY or <dataDir>/master.key); give it the RENDERKIT_MASTER_KEY of the nodes that queue renders",
      );
    };
    return { seal: missing, open: missing };
  }
  const keyed = keyedJobSecrets(jobSecretsKey(masterKey));
  return {
    seal: (plain, renderId) => keyed.seal(plain, renderId),
    open(sealed, renderId) {
      try {
        return keyed.open(sealed, renderId);
      } catch (error) {
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}: this node's master key is not the one of the node that queued the render; give every node the same RENDERKIT_MASTER_KEY`,
        );
      }
    },
  };
}
