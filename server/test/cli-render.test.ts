import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = fileURLToPath(new URL("../bin/renderkit.js", import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  const base = { ...process.env };
  for (const name of ["RENDERKIT_CONFIG", "RENDERKIT_DATA_DIR", "RENDERKIT_LOG_LEVEL"]) delete base[name];
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { env: { ...base, RENDERKIT_DATA_DIR: join(dir, "data"), ...env }, cwd, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The committed `renderkit` shim, as `npx renderkit` and a global install run it. */
const renderkit = (args: string[]) => run(process.execPath, [BIN, ...args], dir);

async function pixel(file: string, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

const PAGE = `<!doctype html><html><body style="margin:0;background:rgb(255,0,0)">
<div id="x" style="position:absolute;inset:0;background:rgb(0,0,255)"></div>
<p style="position:relative;font:20px sans-serif">Quarterly figures 2026</p></body></html>`;

let dir: string;
let site: Server;
let siteUrl: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-cli-render-"));
  await writeFile(join(dir, "page.html"), PAGE);
  site = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(PAGE));
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/report`;
});
afterAll(async () => {
  await new Promise((resolve) => site.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

describe("renderkit render", () => {
  it("renders a local HTML file to png at the asked size, with progress on stderr and figures on stdout", async () => {
    const result = await renderkit(["render", "page.html", "-o", "out.png", "--width", "400", "--height", "300"]);
    expect(result.stderr).toMatch(/: rendering/);
    expect(result.stderr).toMatch(/: succeeded/);
    expect(result.code).toBe(0);
    const file = join(dir, "out.png");
    const meta = await sharp(file).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 400, 300]);
    expect(await pixel(file, 200, 250)).toEqual([0, 0, 255]);
    expect(result.stdout).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}  png  [\\d.]+ (B|KB)  400x300  rendered in \\d+ ms\\n$`),
    );
  }, 120_000);

  it("--option passes catalogue options: hide_selector hides the element (puppeteer, jpg from -f)", async () => {
    const result = await renderkit([
      "render",
      "page.html",
      "out.img",
      "-f",
      "jpg",
      "--engine",
      "puppeteer",
      "--width",
      "400",
      "--height",
      "300",
      "--option",
      "hide_selector=#x",
      "--option",
      "quality=95",
    ]);
    expect(result.code, result.stderr).toBe(0);
    const file = join(dir, "out.img");
    expect((await sharp(file).metadata()).format).toBe("jpeg");
    const [r, g, b] = await pixel(file, 200, 250);
    expect(r).toBeGreaterThan(240);
    expect(g).toBeLessThan(20);
    expect(b).toBeLessThan(20);
  }, 120_000);

  it("renders a loopback address to pdf with --allow-private, and refuses it without", async () => {
    const refused = await renderkit(["render", siteUrl, "-o", "refused.pdf", "-q"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("render failed");
    expect(refused.stderr).toContain("InvalidURLError");
    expect(refused.stderr).toContain("pass --allow-private to render them");

    const result = await renderkit(["render", siteUrl, "-o", "out.pdf", "--allow-private"]);
    expect(result.code, result.stderr).toBe(0);
    const text = await run("pdftotext", [join(dir, "out.pdf"), "-"], dir);
    expect(text.stdout).toContain("Quarterly figures 2026");
    expect(result.stdout).toMatch(/out\.pdf {2}pdf {2}/);
  }, 120_000);

  it("invalid options exit 2 with the InvalidOptions message and write nothing", async () => {
    const narrow = await renderkit(["render", "page.html", "-o", "bad.png", "--width", "50"]);
    expect(narrow.code).toBe(2);
    expect(narrow.stderr).toMatch(/InvalidOptions: .*width/);
    await expect(readFile(join(dir, "bad.png"))).rejects.toThrow();
    const badValue = await renderkit(["render", "page.html", "-o", "bad.png", "--option", "full_page_mode=sideways"]);
    expect(badValue.code).toBe(2);
    expect(badValue.stderr).toMatch(/InvalidOptions: .*full_page_mode/i);
    const unknown = await renderkit(["render", "page.html", "-o", "unknown.png", "-q", "--option", "no_such_option=1"]);
    expect(unknown.code, unknown.stderr).toBe(0);
    // As root (CI) the log also says, once, that Chromium runs without its sandbox (docs/security.md).
    const lines = unknown.stderr.split("\n").filter((line) => line !== "" && !line.includes("chromium sandbox"));
    expect(lines).toEqual(["renderkit: unknown options ignored: no_such_option (see docs/options.md)"]);
    const noEquals = await renderkit(["render", "page.html", "-o", "bad.png", "--option", "hide_selector"]);
    expect(noEquals.code).toBe(2);
    expect(noEquals.stderr).toContain("--option needs KEY=VALUE");
    const noInput = await renderkit(["render", "-o", "bad.png"]);
    expect(noInput.code).toBe(2);
    expect(noInput.stderr).toContain("Usage: renderkit render");
  }, 120_000);
});

describe("renderkit command", () => {
  it("every command has --help (exit 0, its own usage)", async () => {
    const expected: [string[], string][] = [
      [["render", "--help"], "Usage: renderkit render <url | file.html>"],
      [["projects", "--help"], "Usage: renderkit projects <create|list|disable|enable>"],
      [["projects", "create", "--help"], "projects create --name NAME"],
      [["serve", "--help"], "Usage: renderkit serve"],
      [["worker", "--help"], "Usage: renderkit worker"],
      [["doctor", "--help"], "Usage: renderkit doctor"],
      [["--help"], "render <url|file.html>"],
    ];
    for (const [args, text] of expected) {
      const result = await renderkit(args);
      expect(result.code, args.join(" ")).toBe(0);
      expect(result.stdout).toContain(text);
    }
  });

  it("npx renderkit works from the repository root (node_modules/.bin/renderkit)", async () => {
    const result = await run(join(ROOT, "node_modules/.bin/renderkit"), ["--help"], ROOT);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Usage: renderkit <command>");
    const version = await run(join(ROOT, "node_modules/.bin/renderkit"), ["--version"], ROOT);
    const pkg = JSON.parse(await readFile(join(ROOT, "server/package.json"), "utf8"));
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(pkg.bin.renderkit).toBe("./bin/renderkit.js");
    expect(pkg.files).toContain("bin");
  });

  it("a global install of the server package gives a working renderkit command", async () => {
    const prefix = join(dir, "global");
    const npm = await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", join(ROOT, "server")], dir);
    expect(npm.code, npm.stderr).toBe(0);
    const bin = join(prefix, "bin/renderkit");
    const version = await run(bin, ["--version"], dir);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout.trim()).toBe(JSON.parse(await readFile(join(ROOT, "server/package.json"), "utf8")).version);
    const help = await run(bin, ["projects", "--help"], dir);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("projects disable ID");
  }, 120_000);

  it("the shim says how to build when dist/ is missing", async () => {
    const bare = join(dir, "bare-package");
    await mkdir(join(bare, "bin"), { recursive: true });
    await cp(BIN, join(bare, "bin/renderkit.js"));
    const result = await run(process.execPath, [join(bare, "bin/renderkit.js"), "--help"], dir);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("`npm run build`");
  });
});
