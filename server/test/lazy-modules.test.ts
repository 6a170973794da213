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
 * ~150 ms and ~12 MB of a server's start).
 */

const TRACE_HOOK = fileURLToPath(new URL("../../test/helpers/module-trace/register.mjs", import.meta.url));
const { fresh, serveProcess } = useProcesses("renderkit-lazy-");

describe("renderkit serve on files", () => {
  it("answers a render without loading @aws-sdk, bullmq or ioredis", async () => {
    const dir = await fresh("files");
    const trace = join(dir, "modules.txt");
    const port = await freePort();
    const config = join(dir, "renderkit.json");
    await writeFile(config, JSON.stringify(settings(join(dir, "data"), { port })));
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
    const loaded = (await readFile(trace, "utf8")).split("\n");
    // The trace works: the engine's driver and the image encoder were loaded.
    expect(loaded.some((address) => address.includes("/node_modules/playwright-core/"))).toBe(true);
    expect(loaded.some((address) => address.includes("/node_modules/sharp/"))).toBe(true);
    const heavy = loaded.filter((address) => /\/node_modules\/(@aws-sdk|bullmq|ioredis)\//.test(address));
    expect(heavy).toEqual([]);
  }, 120_000);
});
