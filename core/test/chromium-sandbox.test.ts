import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@renderkit/core";
import { findChromium } from "@renderkit/core/chromium";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ChromiumProcess } from "../dist/chromium/browser/chromium-process.js";
// The sandbox decision is the runtime's own, not an engine's: `/chromium` does not export it.
import {
  chromiumUser,
  decideSandbox,
  type SandboxFacts,
  sandboxFailure,
  sandboxLine,
  sandboxMode,
} from "../dist/chromium/browser/chromium-sandbox.js";

const BASE: SandboxFacts = {
  uid: 1000,
  mode: "auto",
  argsDisable: false,
  setuidHelper: false,
  unprivilegedUsernsClone: undefined,
  maxUserNamespaces: "63000\n",
};

describe("decideSandbox", () => {
  it("turns the sandbox on for an unprivileged user with user namespaces", () => {
    expect(decideSandbox(BASE)).toEqual({ enabled: true, reason: "unprivileged user namespaces" });
    expect(decideSandbox({ ...BASE, unprivilegedUsernsClone: "1\n" }).enabled).toBe(true);
  });

  it("turns it off as root, saying why and how to fix it", () => {
    const decision = decideSandbox({ ...BASE, uid: 0 });
    expect(decision).toMatchObject({ enabled: false, reason: "Chromium runs as root, where it refuses its sandbox" });
    expect(decision.fix).toMatch(/unprivileged user.*RENDERKIT_CHROMIUM_USER/);
    // Root wins over everything else: Chromium would refuse to start.
    expect(decideSandbox({ ...BASE, uid: 0, setuidHelper: true }).enabled).toBe(false);
  });

  it("turns it off where the kernel has no unprivileged user namespaces, unless a setuid helper exists", () => {
    expect(decideSandbox({ ...BASE, unprivilegedUsernsClone: "0\n" })).toMatchObject({
      enabled: false,
      reason: expect.stringContaining("kernel.unprivileged_userns_clone=0"),
      fix: "sysctl -w kernel.unprivileged_userns_clone=1",
    });
    expect(decideSandbox({ ...BASE, maxUserNamespaces: "0\n" })).toMatchObject({
      enabled: false,
      reason: expect.stringContaining("user.max_user_namespaces=0"),
    });
    expect(decideSandbox({ ...BASE, maxUserNamespaces: "0", setuidHelper: true })).toEqual({
      enabled: true,
      reason: "setuid sandbox helper",
    });
  });

  it("honours RENDERKIT_CHROMIUM_SANDBOX=off and --no-sandbox in the engine's args", () => {
    expect(decideSandbox({ ...BASE, mode: "off" })).toMatchObject({ enabled: false, reason: "RENDERKIT_CHROMIUM_SANDBOX=off" });
    expect(decideSandbox({ ...BASE, argsDisable: true })).toMatchObject({
      enabled: false,
      reason: expect.stringContaining("--no-sandbox"),
    });
  });

  it("reads the mode: auto by default, on, off; anything else is refused", () => {
    expect(sandboxMode(undefined)).toBe("auto");
    expect(sandboxMode(" ON ")).toBe("on");
    expect(sandboxMode("off")).toBe("off");
    expect(() => sandboxMode("yes")).toThrow(/RENDERKIT_CHROMIUM_SANDBOX must be auto, on or off/);
  });

  it("formats one log line: on, or off with the reason and the fix", () => {
    expect(sandboxLine({ enabled: true, reason: "unprivileged user namespaces" })).toBe(
      "chromium sandbox: on (unprivileged user namespaces)",
    );
    expect(sandboxLine(decideSandbox({ ...BASE, uid: 0 }))).toMatch(
      /^chromium sandbox: off \(Chromium runs as root, where it refuses its sandbox\); to turn it on: run the server as an unprivileged user.* \(see docs\/security\.md#chromium-sandbox\)$/,
    );
  });

  it("recognises Chromium's messages for a sandbox it could not build, and only those", () => {
    const docker =
      "Failed to move to new namespace: PID namespaces supported, Network namespace supported, but failed: errno = Operation not permitted\n" +
      "[1220/115448.497254:FATAL:zygote_host_impl_linux.cc(201)] Check failed: . : Operation not permitted (1)";
    expect(sandboxFailure(docker)).toMatchObject({
      enabled: false,
      reason: expect.stringContaining("Failed to move to new namespace"),
    });
    expect(sandboxFailure("[0101/000000.0:FATAL:zygote_host_impl_linux.cc(128)] No usable sandbox! ...")?.fix).toMatch(
      /--security-opt seccomp=/,
    );
    expect(
      sandboxFailure("[1:1:ERROR:bus.cc(407)] Failed to connect to the bus\nerror while loading shared libraries"),
    ).toBeUndefined();
  });
});

describe("chromiumUser (RENDERKIT_CHROMIUM_USER)", () => {
  const dir = mkdtempSync(join(tmpdir(), "rk-sandbox-passwd-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const own = process.getuid?.() ?? 0;

  it("resolves a name from /etc/passwd, a uid and uid:gid; nothing when unset", () => {
    const passwd = join(dir, "passwd");
    writeFileSync(passwd, `root:x:0:0:root:/root:/bin/bash\nrk-chrome:x:${own}:4242::/nonexistent:/usr/sbin/nologin\n`);
    expect(chromiumUser("rk-chrome", passwd)).toEqual({ uid: own, gid: 4242, name: "rk-chrome" });
    expect(chromiumUser(`${own}:77`, passwd)).toEqual({ uid: own, gid: 77, name: String(own) });
    expect(chromiumUser(String(own), passwd)).toEqual({ uid: own, gid: own, name: String(own) });
    expect(chromiumUser(" ", passwd)).toBeUndefined();
    expect(() => chromiumUser("no-such-user", passwd)).toThrow(/RENDERKIT_CHROMIUM_USER=no-such-user: no such user/);
  });
});

/** Chromium's processes: the browser and every process in its process group. */
function group(pid: number): { pid: number; cmdline: string; uid: number; userNs: string }[] {
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
      if (pgrp !== pid) continue;
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      out.push({
        pid: Number(entry),
        cmdline: readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " "),
        uid: Number(status.match(/^Uid:\s+(\d+)/m)?.[1]),
        userNs: readlinkSync(`/proc/${entry}/ns/user`),
      });
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

function recordingLogger() {
  const lines: { level: string; message: string }[] = [];
  const at = (level: string) => (message: string) => void lines.push({ level, message });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
}

const NOBODY = { uid: 65534, gid: 65534, name: "nobody" };
const root = process.getuid?.() === 0;
/** Whether `nobody` may create a user namespace here (the kernel's and any container's say). */
const usernsForNobody = root && spawnSync("runuser", ["-u", "nobody", "--", "unshare", "--user", "true"]).status === 0;

describe("ChromiumProcess launch (real Chromium)", () => {
  const executablePath = findChromium();
  const launched: ChromiumProcess[] = [];
  const mode = process.env.RENDERKIT_CHROMIUM_SANDBOX;
  afterEach(async () => {
    await Promise.all(launched.splice(0).map((proc) => proc.kill()));
    if (mode === undefined) delete process.env.RENDERKIT_CHROMIUM_SANDBOX;
    else process.env.RENDERKIT_CHROMIUM_SANDBOX = mode;
  });

  it("launches with the sandbox exactly when it decided so, and logs the outcome once", async () => {
    const { logger, lines } = recordingLogger();
    const first = await ChromiumProcess.launch({ executablePath, logger });
    launched.push(first);
    launched.push(await ChromiumProcess.launch({ executablePath, logger }));
    const browser = group(first.pid).find((p) => p.pid === first.pid);
    expect(browser?.cmdline.includes("--no-sandbox")).toBe(!first.sandbox.enabled);
    if (root) expect(first.sandbox.reason).toBe("Chromium runs as root, where it refuses its sandbox");
    expect(lines).toEqual([{ level: first.sandbox.enabled ? "info" : "warn", message: sandboxLine(first.sandbox) }]);
  });

  it.runIf(root)("as root, runs Chromium as a dedicated user, with its sandbox where user namespaces work", async () => {
    const { logger, lines } = recordingLogger();
    const proc = await ChromiumProcess.launch({ executablePath, user: NOBODY, logger });
    launched.push(proc);
    expect(proc.sandbox.enabled).toBe(usernsForNobody);
    expect(lines).toEqual([{ level: proc.sandbox.enabled ? "info" : "warn", message: sandboxLine(proc.sandbox) }]);
    const response = await fetch(`http://${new URL(proc.wsEndpoint).host}/json/version`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const processes = group(proc.pid);
    const browser = processes.find((p) => p.pid === proc.pid);
    expect(processes.map((p) => p.uid).filter((uid) => uid !== NOBODY.uid)).toEqual([]);
    expect(browser?.cmdline.includes("--no-sandbox")).toBe(!proc.sandbox.enabled);
    if (!proc.sandbox.enabled) return;
    expect(proc.sandbox).toEqual({ enabled: true, reason: "unprivileged user namespaces" });
    // The sandbox at work: Chromium's zygote lives in a user namespace of its own.
    const sandboxed = processes.filter((p) => / --type=zygote/.test(p.cmdline) && p.userNs !== browser?.userNs);
    expect(sandboxed.length).toBeGreaterThan(0);
  });

  it.runIf(usernsForNobody)(
    "falls back without the sandbox, with a warning, when Chromium cannot build it; refuses with RENDERKIT_CHROMIUM_SANDBOX=on",
    async () => {
      // A Chromium whose sandbox fails as in a container whose seccomp profile blocks user namespaces.
      const dir = mkdtempSync(join(tmpdir(), "rk-sandbox-fake-"));
      try {
        chmodSync(dir, 0o755);
        const fake = join(dir, "chromium");
        writeFileSync(
          fake,
          `#!/bin/sh
case " $* " in *" --no-sandbox "*) exec ${JSON.stringify(executablePath)} "$@";; esac
echo "Failed to move to new namespace: PID namespaces supported, Network namespace supported, but failed: errno = Operation not permitted" >&2
echo "[1:1:FATAL:zygote_host_impl_linux.cc(201)] Check failed: . : Operation not permitted (1)" >&2
exit 1
`,
        );
        chmodSync(fake, 0o755);
        process.env.RENDERKIT_CHROMIUM_SANDBOX = "on";
        await expect(ChromiumProcess.launch({ executablePath: fake, user: NOBODY })).rejects.toMatchObject({
          code: "EngineResponseNotOkError",
          message: expect.stringMatching(
            /^RENDERKIT_CHROMIUM_SANDBOX=on, so Chromium was not started without its sandbox: chromium sandbox: off/,
          ),
        });
        process.env.RENDERKIT_CHROMIUM_SANDBOX = "auto";
        const { logger, lines } = recordingLogger();
        const proc = await ChromiumProcess.launch({ executablePath: fake, user: NOBODY, logger });
        launched.push(proc);
        expect(proc.sandbox.enabled).toBe(false);
        expect(proc.sandbox.reason).toMatch(/^Chromium could not create its sandbox: user namespaces are blocked/);
        expect(lines).toHaveLength(1);
        expect(lines[0]?.level).toBe("warn");
        expect(lines[0]?.message).toMatch(
          /^chromium sandbox: off \(Chromium could not create its sandbox.*--security-opt seccomp=/,
        );
        expect(group(proc.pid).find((p) => p.pid === proc.pid)?.cmdline).toContain("--no-sandbox");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
