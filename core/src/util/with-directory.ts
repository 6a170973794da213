import { mkdir } from "node:fs/promises";

/**
 * Runs `write` (files in `dir`); when it fails because `dir` is missing (ENOENT), makes `dir` and
 * runs it once more. Writers that create files often skip a `mkdir` per write this way, and still
 * recover a directory removed under them.
 */
export async function withDirectory<T>(dir: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    await mkdir(dir, { recursive: true });
    return write();
  }
}
