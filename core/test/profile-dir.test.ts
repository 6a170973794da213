import { mkdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findChromium } from "@renderkit/core/chromium";
import { describe, expect, it } from "vitest";
import { ChromiumProcess } from "../dist/chromium/browser/chromium-process.js";
import { profileBase } from "../dist/chromium/browser/profile-dir.js";

describe("profileBase", () => {
  it("keeps a temp directory short enough for Chromium's socket", () => {
    expect(profileBase("/tmp/renderkit-test-abc")).toBe("/tmp/renderkit-test-abc");
    expect(profileBase(`/${"a".repeat(30)}`)).toBe(`/${"a".repeat(30)}`);
  });

  it("falls back to /tmp when the socket path would pass 107 bytes", () => {
    expect(profileBase(`/${"a".repeat(31)}`)).toBe("/tmp");
    expect(profileBase(`/tmp/${"a".repeat(40)}`)).toBe("/tmp");
  });

  it("Chromium starts and answers under a long TMPDIR", async () => {
    const long = join(tmpdir(), `renderkit-long-tmpdir-${"x".repeat(60)}`);
    mkdirSync(long, { recursive: true });
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = long;
    let proc: ChromiumProcess | undefined;
    try {
      proc = await ChromiumProcess.launch({ executablePath: findChromium() });
      expect(proc.userDataDir.startsWith("/tmp/renderkit-chromium-")).toBe(true);
      const response = await fetch(`http://${new URL(proc.wsEndpoint).host}/json/version`);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await proc?.kill();
      rmSync(long, { recursive: true, force: true });
    }
  });
});
