import { mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger, RequestInfo } from "@renderkit/core";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { AdblockLists, type AdblockSettings, type AdblockTuning } from "../dist/prepare/adblock/index.js";

/** A logger that keeps every entry, to assert what was (and was not) logged. */
class CapturingLogger implements Logger {
  readonly entries: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  debug(message: string, fields?: Record<string, unknown>): void {
    this.entries.push({ level: "debug", message, fields });
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.entries.push({ level: "info", message, fields });
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.entries.push({ level: "warn", message, fields });
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.entries.push({ level: "error", message, fields });
  }
  warnings(): string[] {
    return this.entries.filter((e) => e.level === "warn").map((e) => `${e.message} ${JSON.stringify(e.fields)}`);
  }
}

/** A list as operators write them: network rules, an exception and element-hiding rules. */
const LIST = [
  "[Adblock Plus 2.0]",
  "! Title: renderkit test list",
  "||ads.example^",
  "||tracker.example^$third-party",
  "@@||ads.example/allowed.js",
  "##.ad-banner",
  "",
].join("\n");
/** A second version of a downloaded list: `ads.example` is no longer listed, `other.example` is. */
const LIST_V2 = "||other.example^\n";

const PAGE = "http://127.0.0.1:3000/page";
const request = (url: string, kind: RequestInfo["kind"] = "script", mainDocument = false): RequestInfo => ({
  url,
  kind,
  frameUrl: PAGE,
  mainDocument,
});
const AD = request("http://ads.example/banner.js");
const OTHER = request("https://other.example/x.js");

const dirs: string[] = [];
const open: AdblockLists[] = [];
const servers: FixtureServer[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "renderkit-adblock-"));
  dirs.push(dir);
  return dir;
}
function lists(settings: AdblockSettings, cacheDir: string, logger: Logger, tuning: Partial<AdblockTuning> = {}): AdblockLists {
  const made = new AdblockLists(settings, cacheDir, logger, tuning);
  open.push(made);
  return made;
}
/** A loopback server answering `/list.txt` with whatever `body()` says at the time (500 for undefined). */
async function listServer(body: () => string | undefined): Promise<FixtureServer> {
  const server = await startFixtureServer({
    "/list.txt": (_req, res) => {
      const text = body();
      if (text === undefined) res.writeHead(500, { "content-type": "text/plain" }).end("down");
      else res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(text);
    },
  });
  servers.push(server);
  return server;
}
/** An address nothing listens on (a server started and stopped). */
async function deadAddress(path = "/list.txt"): Promise<string> {
  const server = await startFixtureServer();
  await server.close();
  return `${server.url}${path}`;
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close()));
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe("AdblockLists from a file", () => {
  it("loads the rules; blocks ads, honours @@ exceptions and never blocks the main document", async () => {
    const dir = await tempDir();
    const file = join(dir, "list.txt");
    await writeFile(file, LIST);
    const logger = new CapturingLogger();
    const blocker = await lists({ lists: [file], refreshSeconds: 3600 }, join(dir, "cache"), logger).blocker();
    expect(blocker).toBeDefined();
    if (!blocker) return;
    expect(blocker.blocks(AD)).toBe(true);
    expect(blocker.blocks(request("http://ads.example/pixel.gif", "image"))).toBe(true);
    expect(blocker.blocks(request("http://ads.example/frame.html", "document"))).toBe(true);
    expect(blocker.blocks(request("http://ads.example/allowed.js"))).toBe(false);
    expect(blocker.blocks(request("http://ads.example/", "document", true))).toBe(false);
    expect(blocker.blocks(request("http://news.example/app.js"))).toBe(false);
    expect(blocker.blocks(request("data:text/javascript,1"))).toBe(false);
    // `$third-party`: the same site's requests pass.
    expect(blocker.blocks(request("http://tracker.example/t.js"))).toBe(true);
    expect(blocker.blocks({ ...request("http://tracker.example/t.js"), frameUrl: "http://tracker.example/" })).toBe(false);
    expect(logger.warnings()).toEqual([]);
  });

  it("reads the file again when it changes", async () => {
    const dir = await tempDir();
    const file = join(dir, "list.txt");
    await writeFile(file, LIST);
    const adblock = lists({ lists: [file], refreshSeconds: 3600 }, join(dir, "cache"), new CapturingLogger(), {
      checkIntervalMs: 50,
    });
    expect((await adblock.blocker())?.blocks(OTHER)).toBe(false);
    await writeFile(file, LIST_V2);
    const later = new Date(Date.now() + 5_000);
    await utimes(file, later, later);
    await expect.poll(async () => (await adblock.blocker())?.blocks(OTHER), { timeout: 20_000 }).toBe(true);
    expect((await adblock.blocker())?.blocks(AD)).toBe(false);
  });

  it("shares one load between concurrent callers", async () => {
    const server = await listServer(() => LIST);
    const dir = await tempDir();
    const adblock = lists({ lists: [`${server.url}/list.txt`], refreshSeconds: 3600 }, dir, new CapturingLogger());
    const all = await Promise.all([adblock.blocker(), adblock.blocker(), adblock.blocker()]);
    expect(all[0]).toBeDefined();
    expect(new Set(all).size).toBe(1);
    expect(server.requestsTo("/list.txt")).toHaveLength(1);
  });
});

describe("AdblockLists from an address", () => {
  it("downloads once, caches the list, and a later instance uses the cache with the server gone", async () => {
    let served = LIST;
    const server = await listServer(() => served);
    const address = `${server.url}/list.txt?token=secret-token`;
    const cacheDir = await tempDir();
    const first = lists({ lists: [address], refreshSeconds: 3600 }, cacheDir, new CapturingLogger());
    expect((await first.blocker())?.blocks(AD)).toBe(true);
    expect((await first.blocker())?.blocks(AD)).toBe(true);
    expect(server.requestsTo("/list.txt")).toHaveLength(1);

    const names = await readdir(cacheDir);
    const cached = names.filter((n) => n.startsWith("list-"));
    expect(cached).toHaveLength(1);
    expect(cached[0]).toMatch(/^list-[0-9a-f]{32}\.txt$/);
    expect(names.some((n) => /^engine-[0-9a-f]+\.bin$/.test(n))).toBe(true);
    expect(names.some((n) => n.endsWith(".tmp"))).toBe(false);
    const text = await readFile(join(cacheDir, cached[0] ?? ""), "utf8");
    expect(text).toContain("||ads.example^");
    expect(text).not.toContain("secret-token");

    await first.close();
    served = LIST_V2;
    await server.close();
    const logger = new CapturingLogger();
    const second = lists({ lists: [address], refreshSeconds: 3600 }, cacheDir, logger);
    const blocker = await second.blocker();
    expect(blocker?.blocks(AD)).toBe(true);
    expect(blocker?.blocks(OTHER)).toBe(false);
    // The serialised engine was reused: no parsing at start.
    expect(logger.entries.find((e) => e.message.includes("filter engine ready"))?.fields?.fromCache).toBe(true);
    expect(logger.warnings()).toEqual([]);
  });

  it("refreshes a stale copy in the background, and keeps it when a refresh fails", async () => {
    let served: string | undefined = LIST;
    const server = await listServer(() => served);
    const logger = new CapturingLogger();
    const adblock = lists({ lists: [`${server.url}/list.txt`], refreshSeconds: 1 }, await tempDir(), logger, {
      checkIntervalMs: 50,
    });
    expect((await adblock.blocker())?.blocks(AD)).toBe(true);

    served = LIST_V2;
    await expect.poll(async () => (await adblock.blocker())?.blocks(OTHER), { timeout: 20_000 }).toBe(true);
    expect((await adblock.blocker())?.blocks(AD)).toBe(false);
    expect(logger.warnings()).toEqual([]);

    served = undefined;
    await expect
      .poll(() => logger.warnings().filter((w) => w.includes("updating a filter list failed")).length, { timeout: 20_000 })
      .toBe(1);
    expect(logger.warnings()[0]).toContain("HTTP 500");
    expect((await adblock.blocker())?.blocks(OTHER)).toBe(true);
  });

  it("uses a stale cached copy at once while its refresh is still downloading", async () => {
    let hang = false;
    const server = await startFixtureServer({
      "/list.txt": (_req, res) => {
        if (!hang) res.writeHead(200, { "content-type": "text/plain" }).end(LIST);
      },
    });
    servers.push(server);
    const cacheDir = await tempDir();
    const address = `${server.url}/list.txt`;
    const first = lists({ lists: [address], refreshSeconds: 3600 }, cacheDir, new CapturingLogger());
    expect((await first.blocker())?.blocks(AD)).toBe(true);
    await first.close();
    hang = true;
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    // The copy is now older than refreshSeconds; the refresh hangs (far longer than the test's budget).
    const second = lists({ lists: [address], refreshSeconds: 1 }, cacheDir, new CapturingLogger(), {
      downloadTimeoutMs: 600_000,
    });
    expect((await second.blocker())?.blocks(AD)).toBe(true);
    await expect.poll(() => server.requestsTo("/list.txt").length, { timeout: 20_000 }).toBe(2);
    expect((await second.blocker())?.blocks(AD)).toBe(true);
    // close() aborts the hanging download (afterEach would otherwise wait for it).
    await second.close();
  });

  it("without any list: undefined and one warning per failure period, then a retry after the back-off", async () => {
    const address = await deadAddress("/list.txt?token=secret-token");
    const logger = new CapturingLogger();
    const adblock = lists({ lists: [address], refreshSeconds: 3600 }, await tempDir(), logger);
    expect(await adblock.blocker()).toBeUndefined();
    expect(await adblock.blocker()).toBeUndefined();
    expect(logger.warnings()).toHaveLength(1);
    expect(logger.warnings()[0]).toContain("no filter list could be loaded");
    expect(logger.warnings()[0]).toContain("download failed");
    expect(logger.warnings()[0]).not.toContain("secret-token");

    // A server that fails, then recovers: no request during the back-off, then a retry.
    let served: string | undefined;
    const server = await listServer(() => served);
    const retrying = lists({ lists: [`${server.url}/list.txt`], refreshSeconds: 3600 }, await tempDir(), logger, {
      retryMs: 300,
    });
    expect(await retrying.blocker()).toBeUndefined();
    expect(server.requestsTo("/list.txt")).toHaveLength(1);
    served = LIST;
    await expect.poll(async () => (await retrying.blocker())?.blocks(AD), { timeout: 20_000 }).toBe(true);
  });

  it("one bad list of two: the other one works and the bad one is named in a warning", async () => {
    const dir = await tempDir();
    const file = join(dir, "list.txt");
    await writeFile(file, LIST);
    const logger = new CapturingLogger();
    const dead = await deadAddress();
    const blocker = await lists({ lists: [dead, file], refreshSeconds: 3600 }, join(dir, "cache"), logger).blocker();
    expect(blocker?.blocks(AD)).toBe(true);
    expect(logger.warnings()).toHaveLength(1);
    expect(logger.warnings()[0]).toContain("could not be loaded; the other lists are used");
    expect(logger.warnings()[0]).toContain(new URL(dead).host);

    const missing = new CapturingLogger();
    const other = await lists(
      { lists: [join(dir, "missing.txt"), file], refreshSeconds: 3600 },
      join(dir, "cache"),
      missing,
    ).blocker();
    expect(other?.blocks(AD)).toBe(true);
    expect(missing.warnings()[0]).toContain("no such file");
  });

  it("refuses addresses that are not http or https", async () => {
    const logger = new CapturingLogger();
    const adblock = lists({ lists: ["ftp://lists.example/easylist.txt"], refreshSeconds: 3600 }, await tempDir(), logger);
    expect(await adblock.blocker()).toBeUndefined();
    expect(logger.warnings()[0]).toContain("only http and https");
  });
});
