import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ErrorCode } from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureServer, startFixtureServer } from "../fixtures/server.js";
import { listProcesses, untilEmpty, userDataDir } from "../helpers/processes.js";
import { browserEngine, forEachEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/**
 * Leak checks (docs/architecture.md#decisions: the core owns every resource it opens). Each
 * engine's renderer gets a private TMPDIR, so the Chromium profiles and processes it counts are
 * this run's own, even while other test files (or other projects) run browsers on the same machine.
 */
const SMALL = { width: 400, height: 300 };

forEachEngine((engineName) => {
  let privateTmp: string;
  let savedTmp: string | undefined;

  let fixture: FixtureServer;
  let outside: FixtureServer;
  let started: TestRenderer;
  /** Every browser process id this renderer had, and their profile directories. */
  const browserPids = new Set<number>();
  const profiles = new Set<string>();

  const engine = () => browserEngine(started.renderer);

  function recordBrowsers(): void {
    for (const pid of engine().browserPids()) {
      browserPids.add(pid);
      const dir = userDataDir(pid);
      if (dir) profiles.add(dir);
    }
  }

  const chromiumDirs = () => readdirSync(privateTmp).filter((name) => name.startsWith("renderkit-chromium-"));

  beforeAll(async () => {
    savedTmp = process.env.TMPDIR;
    privateTmp = mkdtempSync(join(tmpdir(), "renderkit-e2e-tmp-"));
    process.env.TMPDIR = privateTmp;
    fixture = await startFixtureServer();
    outside = await startFixtureServer();
    // Enough renders at once for the whole wave; the engine itself allows 4 pages at a time.
    started = await startRenderer([`127.0.0.1:${fixture.port}`], { concurrency: 10 }, engineName);
  });

  afterAll(async () => {
    await started?.close();
    await Promise.all([fixture?.close(), outside?.close()]);
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(privateTmp, { recursive: true, force: true });
  });

  describe("resources", () => {
    it("a wave of 10 failing renders leaves no open page and at most one browser", async () => {
      const render = (path: string, options: Record<string, unknown> = {}) =>
        started.renderer.render({ url: fixture.url(path), ...SMALL, ...options });
      await render("/blocks");
      recordBrowsers();
      expect(profiles.size).toBe(1);
      expect([...profiles][0]?.startsWith(privateTmp)).toBe(true);

      // 10 failing renders at once: timeouts, refused addresses (direct and by redirect), missing selectors.
      const kinds: [ErrorCode, number, () => Promise<unknown>][] = [
        ["RenderTimeoutError", 3, () => render("/hang", { timeout: 5000 })],
        ["InvalidURLError", 2, () => started.renderer.render({ url: outside.url("/blocks"), ...SMALL })],
        ["InvalidURLError", 2, () => render(`/redirect?to=${outside.port}`)],
        ["EngineResponseNotOkError", 3, () => render("/blocks", { selector: "#nowhere", fail_if_selector_missing: true })],
      ];
      const wave = kinds.flatMap(([code, count, start]) => Array.from({ length: count }, () => ({ code, promise: start() })));
      const settled = await Promise.allSettled(wave.map((w) => w.promise));
      const codes = settled.map((s) => (s.status === "rejected" ? (s.reason as { code?: string }).code : "succeeded"));
      expect(codes).toEqual(wave.map((w) => w.code));
      recordBrowsers();

      const stats = engine().stats();
      expect(stats.pages).toBe(0);
      expect(stats.browsers).toBeLessThanOrEqual(1);
      expect(outside.connections).toBe(0);

      // The engine is still healthy: the next render works on the same browser.
      await render("/blocks");
      expect(engine().stats()).toMatchObject({ pages: 0, browsers: 1, launches: 1 });
    });

    it("close() ends every Chromium process and removes every profile directory", async () => {
      recordBrowsers();
      expect(browserPids.size).toBeGreaterThan(0);
      expect(chromiumDirs().length).toBeGreaterThan(0);
      const mine = () =>
        listProcesses().filter((p) => browserPids.has(p.pgid) || browserPids.has(p.pid) || p.cmdline.includes(privateTmp));
      // While open: the browser and its helper processes (renderer, GPU, utility, watchdog) are there.
      expect(mine().length).toBeGreaterThan(1);

      await started.renderer.close();

      expect(engine().browserPids()).toEqual([]);
      expect(engine().stats()).toMatchObject({ browsers: 0, pages: 0 });
      const left = await untilEmpty(mine);
      expect(left.map((p) => `${p.pid}: ${p.cmdline.slice(0, 120)}`)).toEqual([]);
      expect(chromiumDirs()).toEqual([]);
      for (const dir of profiles) expect(readdirSync(privateTmp)).not.toContain(dir.split("/").at(-1));
    });

    // Chromium makes an `org.chromium.Chromium.XXXXXX` directory in TMPDIR (shared memory, because of
    // --disable-dev-shm-usage) and never removes it when killed: the engine points TMPDIR into the profile.
    it("close() leaves nothing else in TMPDIR either", () => {
      const others = readdirSync(privateTmp).filter((name) => !name.startsWith("renderkit-e2e-"));
      expect(others).toEqual([]);
    });
  });
});
