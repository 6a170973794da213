import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, truncateSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/redis.js";
import { type Answer, api, PROJECT, type ServerProcess, serveProcess } from "./helpers.js";

/**
 * A full or read-only data directory (issue 14, "Faults"), on the real server from the built CLI.
 * Full: the data directory is a 16 MiB tmpfs filled to the last byte. Read-only: a read-only bind
 * mount over it while the server runs. Both need mount privileges (root with CAP_SYS_ADMIN); where
 * mounting is refused these checks are skipped and say so (docs/reliability.md).
 *
 * What a client sees: a render that cannot be stored is refused with 503 ServiceUnavailable and
 * Retry-After before anything is queued (no id, nothing to retry twice); renders already stored
 * stay readable, their records too; the server stays up and renders again once writes work.
 */

let dir: string;
const mounts: string[] = [];
let server: ServerProcess | undefined;

function tryMount(args: string[]): boolean {
  try {
    execFileSync("mount", args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Whether this process may mount (a tmpfs on a scratch directory, unmounted again). */
function mountAllowed(): boolean {
  const probe = mkdtempSync(join(tmpdir(), "renderkit-faults-probe-"));
  const ok = tryMount(["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]);
  if (ok) execFileSync("umount", [probe]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
}

const canMount = process.platform === "linux" && mountAllowed();
if (!canMount) console.warn("[faults] data-directory checks skipped: mounting a tmpfs or a bind mount is not allowed here");

function mount(args: string[], target: string): void {
  execFileSync("mount", [...args, target]);
  mounts.push(target);
}

/**
 * Unmounts `target`. A file the server read through the mount (a stored render it just served)
 * is closed a moment after the answer: "target is busy" is tried again until it is closed.
 */
async function unmount(target: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      execFileSync("umount", [target], { stdio: "pipe" });
      break;
    } catch (error) {
      if (attempt >= 100 || !/busy/i.test(String((error as { stderr?: Buffer }).stderr ?? error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  mounts.splice(mounts.lastIndexOf(target), 1);
}

/** Fills the file system of `path` to the last block; returns the filler's path. */
function fill(path: string): string {
  const filler = join(path, "filler.bin");
  const fd = openSync(filler, "w");
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      const chunk = Buffer.alloc(size, 0xab);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

/** Files a write cut short could leave: temp files, and job files set aside as unreadable. */
function leftovers(root: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (/\.tmp|\.meta$/.test(entry.name) || relative(root, full).startsWith("queue/broken"))
        out.push(relative(root, full));
    }
  };
  walk(root);
  return out;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "renderkit-faults-data-"));
});
afterEach(async () => {
  await server?.kill();
  server = undefined;
  for (const target of [...mounts].reverse()) await unmount(target);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A server on `dataDir` with one finished render; `restart()` stops it and starts another on the same directory. */
async function serveWithOneRender(dataDir: string) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const config = { port, host: "127.0.0.1", dataDir, projects: [PROJECT], adblock: { lists: [] } };
  const file = join(dir, `config-${port}.json`);
  server = await serveProcess(file, config);
  const first = await render(url);
  expect(first.status, first.text).toBe(200);
  const bytes = await fetchBytes(first.body.renderUrl);
  const restart = async () => {
    await server?.stop();
    server = await serveProcess(file, config);
  };
  return { url, first, bytes, restart };
}

/** A page of random pixels: its PNG (about 4 MB) does not compress. */
const NOISE = `<body style="margin:0"><canvas id="c" width="1280" height="800"></canvas><script>
  const ctx = document.getElementById("c").getContext("2d");
  const image = ctx.createImageData(1280, 800);
  for (let i = 0; i < image.data.length; i += 65536) crypto.getRandomValues(image.data.subarray(i, i + 65536));
  for (let i = 3; i < image.data.length; i += 4) image.data[i] = 255;
  ctx.putImageData(image, 0, 0);
</script></body>`;

const render = (url: string, label = "page"): Promise<Answer> =>
  api(url, "/v1/render/sync", {
    html: `<body style="margin:0;background:#fff"><h1>${label}</h1></body>`,
    width: 320,
    height: 200,
  });

async function fetchBytes(address: string): Promise<Buffer> {
  const response = await fetch(address);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** What was there before the fault is intact: the server answers, the first render and its record read back. */
async function expectIntact(url: string, first: Answer, bytes: Buffer): Promise<void> {
  expect((await fetch(`${url}/health`)).status).toBe(200);
  const status = await api(url, `/v1/render/${first.body.renderId}`);
  expect(status.status).toBe(200);
  expect(status.body).toMatchObject({ status: "succeeded", renderId: first.body.renderId, renderUrl: first.body.renderUrl });
  expect((await fetchBytes(first.body.renderUrl)).equals(bytes)).toBe(true);
}

/** The refusal of a render the server cannot store: 503 ServiceUnavailable, Retry-After, no render id. */
function expectRefused(answer: Answer): void {
  expect(answer.status, answer.text).toBe(503);
  expect(answer.body?.error?.code).toBe("ServiceUnavailable");
  expect(answer.body?.error?.message).toMatch(/\S/);
  expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(answer.body?.renderId).toBeUndefined();
}

describe.skipIf(!canMount)("the data directory", () => {
  it("full: renders are refused with 503 and Retry-After (or fail with a generic storage failure when only the output does not fit); what is stored stays readable; renders work once space is back", async () => {
    const dataDir = join(dir, "full");
    mkdirSync(dataDir);
    mount(["-t", "tmpfs", "-o", "size=16m", "tmpfs"], dataDir);
    const { url, first, bytes, restart } = await serveWithOneRender(dataDir);

    const filler = fill(dataDir);
    expectRefused(await render(url, "sync while full"));
    expectRefused(await api(url, "/v1/render/async", { html: "<p>async while full</p>" }));
    await expectIntact(url, first, bytes);

    // Room for the job and its record, not for the output: accepted, then failed with the reason.
    truncateSync(filler, statSync(filler).size - 256 * 1024);
    const noise = await api(url, "/v1/render/sync", { html: NOISE, width: 1280, height: 800 });
    expect(noise.status, noise.text).toBe(500);
    // The storage's own words (ENOSPC, a path in the data directory) go to the log, not to the caller.
    expect(noise.body?.error).toMatchObject({
      code: "EngineResponseNotOkError",
      message: expect.stringMatching(
        /^The render could not be stored: the storage failed \(the server log has the details of render /,
      ),
    });
    expect(noise.text).not.toContain(dataDir);
    await expectIntact(url, first, bytes);

    rmSync(filler);
    const again = await render(url, "after");
    expect(again.status, again.text).toBe(200);
    expect((await fetchBytes(again.body.renderUrl)).length).toBeGreaterThan(0);
    await expectIntact(url, first, bytes);
    expect(server?.child.exitCode).toBeNull();
    expect(leftovers(dataDir)).toEqual([]);
    // What is on disk is whole: a new server on the directory reads it, and renders.
    await restart();
    await expectIntact(url, first, bytes);
    expect((await api(url, `/v1/render/${again.body.renderId}`)).body?.status).toBe("succeeded");
    expect((await render(url, "after restart")).status).toBe(200);
  }, 180_000);

  it("read-only: renders are refused with 503 and Retry-After, what is stored stays readable, renders work once writable", async () => {
    const dataDir = join(dir, "read-only");
    mkdirSync(dataDir);
    const { url, first, bytes, restart } = await serveWithOneRender(dataDir);

    mount(["--bind", dataDir], dataDir);
    execFileSync("mount", ["-o", "remount,bind,ro", dataDir]);
    expectRefused(await render(url, "sync while read-only"));
    expectRefused(await api(url, "/v1/render/async", { html: "<p>async while read-only</p>" }));
    await expectIntact(url, first, bytes);

    await unmount(dataDir);
    const again = await render(url, "after");
    expect(again.status, again.text).toBe(200);
    await expectIntact(url, first, bytes);
    expect(server?.child.exitCode).toBeNull();
    expect(leftovers(dataDir)).toEqual([]);
    await restart();
    await expectIntact(url, first, bytes);
    expect((await api(url, `/v1/render/${again.body.renderId}`)).body?.status).toBe("succeeded");
  }, 180_000);
});
