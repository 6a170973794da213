import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { freePort } from "../../test/helpers/redis.js";
import { api } from "./helpers.js";
import { PROJECT, settings, useProcesses } from "./processes.js";

/**
 * A server on files loads neither the S3 SDK nor BullMQ nor the Redis client: they are loaded
 * when the config asks for S3 or Redis, or when a render writes to a project's bucket (together
 * ~150 ms and ~12 MB of a server's start). Of the two engines' drivers it loads the one its
 * renders use (playwright-core alone is ~80 MB), the ad-block library only with a list, and
 * sharp only for a render that converts (a png from one capture is the engine's own bytes).
 */

const TRACE_HOOK = fileURLToPath(new URL("../../test/helpers/module-trace/register.mjs", import.meta.url));
const { fresh, serveProcess } = useProcesses("renderkit-lazy-");

/** Text enough that its png is far from one flat colour (which sharp would be asked to check). */
const TEXT_PAGE = `<p style="font:16px sans-serif">${"Lazy modules, loaded on first use. ".repeat(200)}</p>`;

/** A `renderkit serve` on files with `extra` config and a module trace; `loaded()` reads the trace. */
async function tracedServer(name: string, extra: Record<string, unknown>) {
  const dir = await fresh(name);
  const trace = join(dir, "modules.txt");
  const port = await freePort();
  const config = join(dir, "renderkit.json");
  await writeFile(config, JSON.stringify(settings(join(dir, "data"), { port, ...extra })));
  const url = `http://127.0.0.1:${port}`;
  const previous = process.env.NODE_OPTIONS;
  process.env.NODE_OPTIONS = `${previous ?? ""} --import ${TRACE_HOOK}`.trim();
  process.env.MODULE_TRACE = trace;
  try {
    await serveProcess(config, url);
  } finally {
    if (previous === undefined) delete process.env.NODE_OPTIONS;
    else process.env.NODE_OPTIONS = previous;
    delete process.env.MODULE_TRACE;
  }
  return {
    render: async (format: string) => {
      const answer = await api(url, "/v1/render/sync", { key: PROJECT.secretKey, json: { html: TEXT_PAGE, format } });
      expect(answer.status).toBe(200);
      return answer.body;
    },
    loaded: async (pattern: RegExp) => (await readFile(trace, "utf8")).split("\n").filter((address) => pattern.test(address)),
  };
}

describe("renderkit serve on files", () => {
  it("renders a png loading neither @aws-sdk, bullmq, ioredis, puppeteer-core, the ad-block library nor sharp", async () => {
    const server = await tracedServer("files", {});
    const png = await server.render("png");
    // Not a flat page: the blank-page check never needs to decode it (its limit at 1280×1024 is ~30 KB).
    expect(png.size).toBeGreaterThan(40_000);
    expect((await server.loaded(/\/node_modules\/playwright-core\//)).length).toBeGreaterThan(0);
    expect(await server.loaded(/\/node_modules\/(@aws-sdk|bullmq|ioredis|puppeteer-core|@ghostery|sharp)\//)).toEqual([]);
    // A conversion loads sharp then (and the trace sees it).
    await server.render("webp");
    expect((await server.loaded(/\/node_modules\/sharp\//)).length).toBeGreaterThan(0);
  }, 120_000);

  it("with the Puppeteer engine, never loads playwright-core", async () => {
    const server = await tracedServer("puppeteer", { engine: "puppeteer" });
    await server.render("png");
    expect((await server.loaded(/\/node_modules\/puppeteer-core\//)).length).toBeGreaterThan(0);
    expect(await server.loaded(/\/node_modules\/(playwright-core|@ghostery|sharp)\//)).toEqual([]);
  }, 120_000);
});
