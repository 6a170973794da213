import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Suffix of the temp files `writeAtomic` leaves behind only when the process dies mid-write. */
export const TEMP_SUFFIX = ".tmp";

/**
 * Writes `data` to `file` so that a crash or power loss leaves the old file or the new one, never
 * half of one: a temp file beside it (`.<name>.<random>.tmp`, created with `mode`), fsync, rename,
 * then an fsync of the folder so the rename itself is on disk (skipped where a folder cannot be
 * opened). The temp file is removed when a step fails; callers that scan the folder skip and
 * clean names ending in `TEMP_SUFFIX`. With `flush: false` both fsyncs are skipped: a crash of the
 * process still leaves the old file or the new one, a power loss may leave neither.
 */
export async function writeAtomic(
  file: string,
  data: string | Uint8Array,
  mode = 0o644,
  { flush = true }: { flush?: boolean } = {},
): Promise<void> {
  const temp = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`);
  try {
    const handle = await open(temp, "wx", mode);
    try {
      await handle.chmod(mode);
      await handle.writeFile(data);
      if (flush) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
  if (!flush) return;
  const folder = await open(dirname(file), "r").catch(() => undefined);
  await folder?.sync().catch(() => undefined);
  await folder?.close();
}
