import { readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { DataDirLocked, LOCK_FILE, lockDataDir } from "../dist/state/data-dir-lock.js";
import { refusal, useProcesses } from "./processes.js";

/**
 * The data-directory lock of file mode when the holder ran on another host (a shared volume, a
 * container recreated with a new hostname): its pid cannot be checked there, so the lock file's
 * modification time is its heartbeat. A lock not touched for two minutes is taken over; a fresh
 * one is respected; and the holder keeps touching its own lock.
 */

const { cleanup, fresh } = useProcesses("renderkit-lock-");

const OTHER = { pid: 12345, host: "some-other-host" };
const TWO_MINUTES_AGO = () => new Date(Date.now() - 120_000);

/** A data directory whose lock was written by hand, as another host's process wrote it. */
async function lockedElsewhere(name: string): Promise<{ dataDir: string; file: string }> {
  const dataDir = await fresh(name);
  const file = join(dataDir, LOCK_FILE);
  writeFileSync(file, JSON.stringify(OTHER));
  return { dataDir, file };
}

/** Takes the lock, released after the test. */
async function take(dataDir: string): Promise<void> {
  const release = await lockDataDir(dataDir);
  cleanup.push(release);
}

const holder = (file: string) => JSON.parse(readFileSync(file, "utf8")) as { pid: number; host: string };

describe("the data-directory lock of another host", () => {
  it("not touched for two minutes: taken over", async () => {
    const { dataDir, file } = await lockedElsewhere("stale");
    utimesSync(file, TWO_MINUTES_AGO(), TWO_MINUTES_AGO());
    await take(dataDir);
    expect(holder(file).pid).toBe(process.pid);
    expect(holder(file).host).not.toBe(OTHER.host);
  });

  it("touched just now: refused with DataDirLocked naming that host; the lock is left alone", async () => {
    const { dataDir, file } = await lockedElsewhere("fresh");
    const error = await refusal(lockDataDir(dataDir));
    expect(error).toBeInstanceOf(DataDirLocked);
    expect(error.message).toContain(`Another renderkit process (pid ${OTHER.pid} on ${OTHER.host})`);
    expect(error.message).toContain(file);
    expect(holder(file)).toEqual(OTHER);
  });

  it("the holder touches its lock: an old modification time becomes recent again", async () => {
    const dataDir = await fresh("heartbeat");
    const file = join(dataDir, LOCK_FILE);
    await take(dataDir);
    utimesSync(file, TWO_MINUTES_AGO(), TWO_MINUTES_AGO());
    expect(Date.now() - statSync(file).mtimeMs).toBeGreaterThan(100_000);
    // The heartbeat runs every 15 s: within two beats the file is touched again.
    await vi.waitFor(() => expect(Date.now() - statSync(file).mtimeMs).toBeLessThan(60_000), {
      timeout: 40_000,
      interval: 250,
    });
    expect(holder(file).pid).toBe(process.pid);
  }, 60_000);
});
