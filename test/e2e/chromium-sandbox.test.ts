import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import type { Logger } from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../fixtures/server.js";
import { browserEngine, forEachEngine, startRenderer } from "../helpers/setup.js";

// Issue 14, finding 8.1: Chromium runs unprivileged with its sandbox. A root server (as in CI)
// starts it as a dedicated user, `RENDERKIT_CHROMIUM_USER`; here `nobody`, which every Debian
// system has. Only a root test run can start a process as another user.
const root = process.getuid?.() === 0;
const NOBODY_UID = 65534;
/** Whether `nobody` may create a user namespace here; where not, the server says so and runs without the sandbox. */
const usernsForNobody = root && spawnSync("runuser", ["-u", "nobody", "--", "unshare", "--user", "true"]).status === 0;

function uidOf(pid: number): Promise<number> {
  return readFile(`/proc/${pid}/status`, "utf8").then((status) => Number(status.match(/^Uid:\s+(\d+)/m)?.[1]));
}

describe.runIf(root)("Chromium as a dedicated user, with its sandbox", () => {
  let fixture: FixtureServer;
  const before = process.env.RENDERKIT_CHROMIUM_USER;
  beforeAll(async () => {
    fixture = await startFixtureServer();
    process.env.RENDERKIT_CHROMIUM_USER = "nobody";
  });
  afterAll(async () => {
    if (before === undefined) delete process.env.RENDERKIT_CHROMIUM_USER;
    else process.env.RENDERKIT_CHROMIUM_USER = before;
    await fixture?.close();
  });

  forEachEngine((engine) => {
    it("renders a page, its browser runs as that user, and the start-up line says whether the sandbox is on", async () => {
      const lines: { level: string; message: string }[] = [];
      const at = (level: string) => (message: string) => void lines.push({ level, message });
      const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
      const started = await startRenderer([`127.0.0.1:${fixture.port}`], { logger }, engine);
      try {
        const result = await started.renderer.render({ url: fixture.url("/blocks"), width: 400, height: 300 });
        const png = await readFile(result.path as string);
        expect([...png.subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
        const pids = browserEngine(started.renderer).browserPids();
        expect(pids).toHaveLength(1);
        expect(await uidOf(pids[0] as number)).toBe(NOBODY_UID);
        const said = lines.filter((l) => l.message.startsWith("chromium sandbox:"));
        expect(said).toHaveLength(1);
        if (usernsForNobody) {
          expect(said[0]).toEqual({ level: "info", message: "chromium sandbox: on (unprivileged user namespaces)" });
        } else {
          expect(said[0]?.level).toBe("warn");
          expect(said[0]?.message).toMatch(/^chromium sandbox: off \(.*\); to turn it on: /);
        }
      } finally {
        await started.close();
      }
    });
  });
});
