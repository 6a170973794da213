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
 * renders use (playwright-core alone is ~80 MB), and the ad-block library only with a list.
 */

const TRACE_HOOK = fileURLToPath(new URL("../../test/helpers/module-trace/register.mjs", import.meta.url));
const { fresh, serveProcess } = useProcesses("renderkit-lazy-");

/** Starts `renderkit serve` on files with `extra` config, answers one png render, returns the addresses it loaded. */
async function tracedRender(name: string, extra: Record<string, unknown>): Promise<string[]> {
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
  const answer = await api(url, "/v1/render/sync", { key: PROJECT.secretKey, json: { html: "<p>lazy</p>", format: "png" } });
  expect(answer.status).toBe(200);
  return (await readFile(trace, "utf8")).split("\n");
}

const loads = (loaded: string[], pattern: RegExp) => loaded.filter((address) => pattern.test(address));

describe("renderkit serve on files", () => {
  it("answers a render without loading @aws-sdk, bullmq, ioredis, puppeteer-core or the ad-block library", async () => {
    const loaded = await tracedRender("files", {});
    // The trace works: the engine's driver and the image encoder were loaded.
    expect(loads(loaded, /\/node_modules\/playwright-core\//).length).toBeGreaterThan(0);
    expect(loads(loaded, /\/node_modules\/sharp\//).length).toBeGreaterThan(0);
    expect(loads(loaded, /\/node_modules\/(@aws-sdk|bullmq|ioredis|puppeteer-core|@ghostery)\//)).toEqual([]);
  }, 120_000);

  it("with the Puppeteer engine, never loads playwright-core", async () => {
    const loaded = await tracedRender("puppeteer", { engine: "puppeteer" });
    expect(loads(loaded, /\/node_modules\/puppeteer-core\//).length).toBeGreaterThan(0);
    expect(loads(loaded, /\/node_modules\/(playwright-core|@ghostery)\//)).toEqual([]);
  }, 120_000);
});
