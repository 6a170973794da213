import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RenderEvent, RenderResult } from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRenderError } from "../helpers/errors.js";
import { listProcesses, untilEmpty } from "../helpers/processes.js";
import { browserEngine, forEachEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";
import { until } from "./helpers.js";

/**
 * Chromium killed during renders (issue 14, "Faults"): SIGKILL of the browser's whole process
 * group, as the OOM killer or an operator would, while pages load. The renders retry on a new
 * browser and succeed; the pool keeps working; nothing of the killed browsers stays behind.
 * Each engine's renderer gets a private TMPDIR, so the processes and profiles counted are its own.
 */

let site: Server;
let base: string;
/** While set, the site holds its answers (pages stay loading) until `release()`. */
let holding = false;
const held: ServerResponse[] = [];
/** Page loads the site received (each render attempt makes one). */
let requests = 0;

const page = (res: ServerResponse) =>
  res.writeHead(200, { "content-type": "text/html" }).end("<body style='margin:0;background:rgb(0,128,0)'><h1>ok</h1></body>");

function release(): void {
  holding = false;
  for (const res of held.splice(0)) if (!res.destroyed) page(res);
}

beforeAll(async () => {
  site = createServer((req, res) => {
    if (!req.url?.startsWith("/page-")) return void res.writeHead(404).end(); // a favicon, say: not a page load
    requests++;
    if (holding) held.push(res);
    else page(res);
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => {
  release();
  site.closeAllConnections();
  return new Promise<void>((r) => site.close(() => r()));
});

forEachEngine((engineName) => {
  let rk: TestRenderer;
  let privateTmp: string;
  let savedTmp: string | undefined;
  /** Process groups of every browser this renderer launched (a browser leads its group). */
  const groups = new Set<number>();
  const events: RenderEvent[] = [];

  const engine = () => browserEngine(rk.renderer);
  const record = () => {
    for (const pid of engine().browserPids()) groups.add(pid);
  };
  /** Kills the current browser's process group; resolves once none of its processes is left. */
  async function killBrowser(): Promise<number> {
    const [pid] = engine().browserPids();
    expect(pid).toBeDefined();
    groups.add(pid as number);
    process.kill(-(pid as number), "SIGKILL");
    const left = await untilEmpty(() => listProcesses().filter((p) => p.pgid === pid), 20_000);
    expect(left).toEqual([]);
    return pid as number;
  }
  const typesOf = (renderId: string) => events.filter((e) => e.renderId === renderId).map((e) => e.type);
  const render = (i: number) => rk.renderer.render({ url: `${base}/page-${engineName}-${i}`, width: 320, height: 200 });

  beforeAll(async () => {
    savedTmp = process.env.TMPDIR;
    privateTmp = mkdtempSync(join(tmpdir(), "rk-faults-")); // short: Chromium's socket paths live inside it
    process.env.TMPDIR = privateTmp;
    rk = await startRenderer([new URL(base).host], { concurrency: 4 }, engineName);
    rk.renderer.on((event) => {
      events.push(event);
    });
  });
  afterAll(async () => {
    release();
    await rk?.close();
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(privateTmp, { recursive: true, force: true });
  });

  describe("Chromium killed", () => {
    it("during four renders: each goes to retrying and succeeds on a new browser; the pool is whole again", async () => {
      await render(0); // a warm browser, as in service
      record();
      const launches = engine().stats().launches;
      holding = true;
      const before = requests;
      const wave = [1, 2, 3, 4].map((i) => render(i));
      await until("four pages loading", () => held.length === 4 && requests - before === 4, 60_000, 50);
      const killed = await killBrowser();
      release();
      const results: RenderResult[] = await Promise.all(wave);
      record();
      for (const result of results) {
        expect(result.size).toBeGreaterThan(0);
        const types = typesOf(result.renderId);
        expect(types).toContain("render.retrying");
        expect(types.at(-1)).toBe("render.succeeded");
        expect(types).not.toContain("render.failed");
      }
      expect(engine().stats()).toMatchObject({ pages: 0, browsers: 1, launches: launches + 1 });
      expect(engine().browserPids()).not.toContain(killed);
      // The dead browser's profile is gone; the live one's is the only one left.
      expect(readdirSync(privateTmp).filter((n) => n.startsWith("renderkit-chromium-"))).toHaveLength(1);
      // Later renders work, on the same new browser.
      const later = await Promise.all([5, 6].map((i) => render(i)));
      expect(later.every((r) => r.size > 0)).toBe(true);
      expect(engine().stats()).toMatchObject({ pages: 0, browsers: 1, launches: launches + 1 });
    });

    it("on two attempts in a row: the third attempt succeeds", async () => {
      const launches = engine().stats().launches;
      holding = true;
      const before = requests;
      const result = render(10);
      await until("the first attempt loading", () => requests - before === 1, 60_000, 50);
      await killBrowser();
      await until("the second attempt loading", () => requests - before === 2, 60_000, 50);
      record();
      await killBrowser();
      release();
      const done = await result;
      record();
      expect(done.size).toBeGreaterThan(0);
      const mine = events.filter((e) => e.renderId === done.renderId);
      expect(mine.filter((e) => e.type === "render.started").map((e) => (e as { attempt: number }).attempt)).toEqual([1, 2, 3]);
      expect(mine.at(-1)?.type).toBe("render.succeeded");
      expect(engine().stats()).toMatchObject({ pages: 0, browsers: 1, launches: launches + 2 });
    });

    it("on every attempt: the render fails with a clear error once its attempts are spent, and the next one works", async () => {
      holding = true;
      const before = requests;
      const failing = expectRenderError(render(20), "EngineResponseNotOkError");
      for (let attempt = 1; attempt <= 3; attempt++) {
        await until(`attempt ${attempt} loading`, () => requests - before === attempt, 60_000, 50);
        record();
        await killBrowser();
      }
      release();
      const error = await failing;
      expect(error.message).toMatch(/browser|crash|closed/i);
      const next = await render(21);
      record();
      expect(next.size).toBeGreaterThan(0);
      expect(engine().stats()).toMatchObject({ pages: 0, browsers: 1 });
    });

    it("while idle: once the engine has seen it go, the next render relaunches it (no attempt lost)", async () => {
      await render(29);
      const launches = engine().stats().launches;
      const killed = await killBrowser();
      // A render that arrives before the exit is reaped may start on the dead browser: it is retried.
      await until("the engine saw the browser go", () => !engine().browserPids().includes(killed), 30_000, 20);
      const next = await render(30);
      record();
      expect(next.size).toBeGreaterThan(0);
      expect(typesOf(next.renderId)).not.toContain("render.retrying");
      expect(engine().stats()).toMatchObject({ pages: 0, browsers: 1, launches: launches + 1 });
    });

    it("afterwards close() leaves no Chromium process of any of those browsers and no profile", async () => {
      record();
      expect(groups.size).toBeGreaterThanOrEqual(6);
      await rk.renderer.close();
      const mine = () => listProcesses().filter((p) => groups.has(p.pgid) || p.cmdline.includes(privateTmp));
      const left = await untilEmpty(mine, 20_000);
      expect(left.map((p) => `${p.pid}: ${p.cmdline.slice(0, 120)}`)).toEqual([]);
      expect(readdirSync(privateTmp).filter((n) => !n.startsWith("renderkit-e2e-"))).toEqual([]);
    });
  });
});
