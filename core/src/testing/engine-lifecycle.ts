import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../contracts/engine.js";
import type { Logger } from "../contracts/logger.js";
import type { PageSettings } from "../contracts/page-settings.js";
import { AddressPolicy } from "../network/address-policy.js";
import { listenOnLoopback } from "../util/listen.js";
import { makePageSettings } from "./page-settings.js";
import { type LogEntry, RecordingLogger } from "./recording-logger.js";

/** Warnings other than the once-per-process `chromium sandbox: off` line (a root test run logs it). */
function crashWarnings(logger: RecordingLogger): LogEntry[] {
  return logger.at("warn").filter((entry) => !entry.message.startsWith("chromium sandbox"));
}

/** An engine that can report its browser processes (both first-party engines can). */
export type LifecycleEngine = Engine & { browserPids(): number[] };

/** Options the lifecycle checks construct engines with. */
export interface LifecycleOptions {
  recycleAfter?: number;
  concurrency?: number;
}

export interface EngineLifecycleContractOptions {
  /** Names the `describe` block (`<name> engine lifecycle`). */
  name: string;
  /** A fresh engine built with `options` (and `logger` when given), called once per check. */
  make: (options: LifecycleOptions, logger?: Logger) => LifecycleEngine;
  /** The package and class a child process imports to hold a browser open (`new Class({}, logger)`). */
  holdBrowser: { module: string; export: string };
}

/**
 * Lifecycle checks every engine that launches its own browser runs: relaunch after the browser is
 * killed, recycling after `recycleAfter` renders, the concurrency limit, nothing left after
 * `close()`, and no browser or profile left when the Node process is SIGKILLed.
 */
export function engineLifecycleContract(options: EngineLifecycleContractOptions): void {
  const { name, make, holdBrowser } = options;
  let server: Server;
  let base: string;
  let port: number;

  function settings(overrides: Partial<PageSettings> = {}): PageSettings {
    return makePageSettings(new AddressPolicy({ allowPrivate: [`127.0.0.1:${port}`] }), overrides);
  }

  /** The profile directory a browser was started with (`--user-data-dir`). */
  function profileDir(pid: number): string {
    const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const dir = args.find((a) => a.startsWith("--user-data-dir="))?.slice("--user-data-dir=".length);
    if (!dir) throw new Error(`browser ${pid} has no --user-data-dir`);
    return dir;
  }

  function alive(pid: number): boolean {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  async function waitFor(check: () => boolean, ms = 10_000): Promise<boolean> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      if (check()) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return check();
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader("content-type", "text/html");
      res.end(`<title>t</title><p id=p>${req.url}</p>`);
    });
    port = await listenOnLoopback(server);
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  describe(`${name} engine lifecycle`, () => {
    it("relaunches the browser after it was killed between renders, and warns of the crash", async () => {
      const logger = new RecordingLogger();
      const engine = make({}, logger);
      try {
        const first = await engine.open({ url: `${base}/a` }, settings(), new AbortController().signal);
        await first.close();
        const [pid] = engine.browserPids();
        expect(pid).toBeGreaterThan(0);
        process.kill(-(pid as number), "SIGKILL");
        expect(await waitFor(() => !alive(pid as number))).toBe(true);
        const second = await engine.open({ url: `${base}/b` }, settings(), new AbortController().signal);
        expect(await second.evaluate("() => document.getElementById('p').textContent")).toBe("/b");
        await second.close();
        expect(engine.stats().launches).toBe(2);
        expect(crashWarnings(logger).map((e) => e.fields.pid)).toEqual([pid]);
      } finally {
        await engine.close();
      }
    });

    it("a browser killed under an open page: its capture fails as the browser going away (retryable), and the next page works", async () => {
      const engine = make({}, new RecordingLogger());
      try {
        const page = await engine.open({ url: `${base}/a` }, settings(), new AbortController().signal);
        const [pid] = engine.browserPids();
        process.kill(-(pid as number), "SIGKILL");
        expect(await waitFor(() => !alive(pid as number))).toBe(true);
        const failure = await page.screenshot({ type: "png", fullPage: false, omitBackground: false }).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(failure).toMatchObject({ code: "EngineResponseNotOkError", retryable: true });
        expect(String((failure as Error).message)).toMatch(/went away/);
        await page.close().catch(() => undefined);
        const next = await engine.open({ url: `${base}/b` }, settings(), new AbortController().signal);
        expect(await next.evaluate("() => document.getElementById('p').textContent")).toBe("/b");
        await next.close();
      } finally {
        await engine.close();
      }
    });

    it("closing and recycling are not reported as crashes", async () => {
      const logger = new RecordingLogger();
      const engine = make({ recycleAfter: 1 }, logger);
      try {
        for (let i = 0; i < 2; i++) {
          const s = await engine.open({ url: `${base}/${i}` }, settings(), new AbortController().signal);
          await s.close();
        }
        expect(engine.stats().launches).toBe(2);
      } finally {
        await engine.close();
      }
      expect(engine.browserPids()).toEqual([]);
      expect(crashWarnings(logger)).toEqual([]);
    });

    it("recycles the browser after recycleAfter renders and kills the old one", async () => {
      const engine = make({ recycleAfter: 2 });
      try {
        const pids = new Set<number>();
        for (let i = 0; i < 3; i++) {
          const s = await engine.open({ url: `${base}/${i}` }, settings(), new AbortController().signal);
          for (const pid of engine.browserPids()) pids.add(pid);
          await s.close();
        }
        expect(engine.stats().launches).toBe(2);
        expect(pids.size).toBe(2);
        const [old] = [...pids];
        expect(await waitFor(() => !alive(old as number))).toBe(true);
        expect(engine.stats().browsers).toBe(1);
      } finally {
        await engine.close();
      }
    });

    it("a recycled browser keeps its open page working and closes when that page does", async () => {
      const engine = make({ recycleAfter: 1 });
      try {
        const first = await engine.open({ url: `${base}/first` }, settings(), new AbortController().signal);
        const [old] = engine.browserPids();
        const second = await engine.open({ url: `${base}/second` }, settings(), new AbortController().signal);
        expect(engine.stats()).toMatchObject({ launches: 2, browsers: 2, pages: 2 });
        expect(await first.evaluate("() => document.getElementById('p').textContent")).toBe("/first");
        await first.close();
        expect(await waitFor(() => !alive(old as number))).toBe(true);
        expect(await second.evaluate("() => document.getElementById('p').textContent")).toBe("/second");
        await second.close();
        expect(engine.stats()).toMatchObject({ browsers: 1, pages: 0 });
      } finally {
        await engine.close();
      }
    });

    it("holds opens beyond its concurrency until a page closes", async () => {
      const engine = make({ concurrency: 1 });
      try {
        const first = await engine.open({ url: `${base}/1` }, settings(), new AbortController().signal);
        let secondOpened = false;
        const second = engine.open({ url: `${base}/2` }, settings(), new AbortController().signal).then((s) => {
          secondOpened = true;
          return s;
        });
        await new Promise((r) => setTimeout(r, 700));
        expect(secondOpened).toBe(false);
        expect(engine.stats().pages).toBe(1);
        await first.close();
        await (await second).close();
        expect(secondOpened).toBe(true);
        expect(engine.stats().pages).toBe(0);
      } finally {
        await engine.close();
      }
    });

    it("leaves no browser process or profile directory after close()", async () => {
      // Two browsers: the first is retired (recycleAfter 1) but still holds an open page, so
      // close() ends a session whose release closes that browser: close() must wait for it too.
      const engine = make({ recycleAfter: 1 });
      const signal = new AbortController().signal;
      const first = await engine.open({ html: "<p>one</p>" }, settings(), signal);
      const second = await engine.open({ html: "<p>two</p>" }, settings(), signal);
      const pids = engine.browserPids();
      const dirs = pids.map(profileDir);
      expect(pids.length).toBe(2);
      expect(dirs.every((dir) => existsSync(dir))).toBe(true);
      await engine.close();
      // Checked at once: nothing may still be shutting down when close() resolves.
      expect(pids.filter((pid) => alive(pid))).toEqual([]);
      expect(dirs.filter((dir) => existsSync(dir))).toEqual([]);
      expect(engine.stats()).toMatchObject({ browsers: 0, pages: 0 });
      await first.close();
      await second.close();
    });

    it("kills Chromium and removes its profile when the Node process is SIGKILLed", async () => {
      const script = fileURLToPath(new URL("./hold-browser.js", import.meta.url));
      const child = spawn(process.execPath, [script, holdBrowser.module, holdBrowser.export], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      const line = await new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout.on("data", (d: Buffer) => {
          out += d.toString();
          if (out.includes("\n")) resolve(out.trim());
        });
        child.once("exit", () => reject(new Error(`child exited early: ${out}`)));
      });
      const { pid, dir } = JSON.parse(line) as { pid: number; dir: string };
      expect(alive(pid)).toBe(true);
      expect(existsSync(dir)).toBe(true);
      child.kill("SIGKILL");
      expect(await waitFor(() => !alive(pid), 10_000)).toBe(true);
      expect(await waitFor(() => !existsSync(dir), 10_000)).toBe(true);
    });
  });
}
