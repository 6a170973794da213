import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ownedTempDir } from "@renderkit/core/page";
import { afterAll, describe, expect, it } from "vitest";
import { sweepStaleTempDirs } from "../dist/util/temp-dir.js";

const PREFIX = `renderkit-sweeptest${process.pid}x-`;
const made: string[] = [];
afterAll(async () => {
  await Promise.all(made.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("owned temporary directories", () => {
  it("sweeps the directories of dead processes only, and names new ones after this process", async () => {
    const dead = spawnSync(process.execPath, ["-e", ""]).pid; // exited by now
    const paths = {
      dead: join(tmpdir(), `${PREFIX}${dead}-abc`),
      parent: join(tmpdir(), `${PREFIX}${process.ppid}-abc`),
      mine: join(tmpdir(), `${PREFIX}${process.pid}-abc`),
      unrelated: join(tmpdir(), `${PREFIX}not-a-pid`),
    };
    for (const dir of Object.values(paths)) {
      await mkdir(join(dir, "inner"), { recursive: true });
      made.push(dir);
    }
    expect(await sweepStaleTempDirs(PREFIX)).toBe(1);
    expect(existsSync(paths.dead)).toBe(false);
    for (const dir of [paths.parent, paths.mine, paths.unrelated]) expect(existsSync(dir)).toBe(true);

    const fresh = await ownedTempDir(PREFIX);
    made.push(fresh);
    expect(fresh.startsWith(join(tmpdir(), `${PREFIX}${process.pid}-`))).toBe(true);
    expect(existsSync(fresh)).toBe(true);
  });
});
