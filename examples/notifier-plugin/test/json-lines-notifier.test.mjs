// The core's notifier contract, as every notifier runs it, and this notifier's own options.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { notifierContract, RecordingLogger } from "@renderkit/core/testing";
import { playwright } from "@renderkit/engine-playwright";
import { afterAll, describe, expect, it } from "vitest";
import { JsonLinesNotifier, jsonLinesNotifier } from "../json-lines-notifier.mjs";

const dirs = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

async function freshDir() {
  const dir = await mkdtemp(join(tmpdir(), "renderkit-jsonl-"));
  dirs.push(dir);
  return dir;
}

/** The lines of `file` as objects (none when it does not exist). */
async function linesOf(file) {
  const text = await readFile(file, "utf8").catch(() => "");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

// The receiving side is the file: one entry per line, so a line written twice shows twice.
notifierContract({
  name: "JsonLinesNotifier",
  make: async () => {
    const file = join(await freshDir(), "renders.jsonl");
    return {
      notifier: new JsonLinesNotifier({ file }),
      delivered: async () => (await linesOf(file)).map((line) => line.renderId),
    };
  },
  // A directory where the file should be: every append fails, whoever runs the test (root too).
  failing: async () => {
    const file = join(await freshDir(), "renders.jsonl");
    await mkdir(file);
    return { notifier: new JsonLinesNotifier({ file }) };
  },
});

const succeeded = (renderId) => ({
  type: "render.succeeded",
  renderId,
  job: { projectId: "demo", webhookUrl: "https://hooks.example/x" },
  result: {
    renderId,
    renderUrl: `https://renders.example/${renderId}.png`,
    size: 1234,
    renderTime: 50,
    queueTime: 2,
    bandwidth: 99,
    format: "png",
    contentType: "image/png",
    key: `${renderId}.png`,
    path: `/srv/renders/${renderId}.png`,
  },
  startTime: 1_700_000_000_000,
  endTime: 1_700_000_000_050,
});
const failed = (renderId) => ({
  type: "render.failed",
  renderId,
  job: { projectId: "demo" },
  code: "RenderTimeoutError",
  reason: "The page did not load within 30000 ms",
  startTime: 1_700_000_000_000,
  endTime: 1_700_000_030_000,
});

describe("JsonLinesNotifier", () => {
  it("writes one line per end: what a reader needs, never the local path, key or webhook address", async () => {
    const file = join(await freshDir(), "logs", "renders.jsonl");
    const notifier = new JsonLinesNotifier({ file });
    await notifier.notify(succeeded("r1"));
    await notifier.notify(failed("r2"));
    const text = await readFile(file, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(await linesOf(file)).toEqual([
      {
        event: "render.succeeded",
        renderId: "r1",
        projectId: "demo",
        at: "2023-11-14T22:13:20.050Z",
        result: { renderUrl: "https://renders.example/r1.png", format: "png", size: 1234, renderTime: 50, queueTime: 2 },
      },
      {
        event: "render.failed",
        renderId: "r2",
        projectId: "demo",
        at: "2023-11-14T22:13:50.000Z",
        error: { code: "RenderTimeoutError", message: "The page did not load within 30000 ms" },
      },
    ]);
    expect(text).not.toMatch(/srv\/renders|hooks\.example|"key"/);
  });

  it("writes the same render's end once when the core hands it over again", async () => {
    const file = join(await freshDir(), "renders.jsonl");
    const notifier = new JsonLinesNotifier({ file });
    await Promise.all([notifier.notify(succeeded("twice")), notifier.notify(succeeded("twice"))]);
    await notifier.notify(succeeded("twice"));
    expect((await linesOf(file)).map((line) => line.renderId)).toEqual(["twice"]);
  });

  it("keeps 200 concurrent ends on whole lines", async () => {
    const file = join(await freshDir(), "renders.jsonl");
    const notifier = new JsonLinesNotifier({ file });
    const ids = Array.from({ length: 200 }, (_, i) => `r${i}`);
    await Promise.all(ids.map((id) => notifier.notify(id.endsWith("7") ? failed(id) : succeeded(id))));
    expect((await linesOf(file)).map((line) => line.renderId).sort()).toEqual([...ids].sort());
  });

  it("failuresOnly: logs render.failed only", async () => {
    const file = join(await freshDir(), "renders.jsonl");
    const notifier = new JsonLinesNotifier({ file, failuresOnly: true });
    await notifier.notify(succeeded("ok"));
    await notifier.notify(failed("ko"));
    expect((await linesOf(file)).map((line) => line.event)).toEqual(["render.failed"]);
  });

  it("a file it cannot write does not throw; the lines go out once it can, and what close() cannot write is logged", async () => {
    const dir = await freshDir();
    // A directory where the file should be: every append fails, whoever runs the test (root too).
    const file = join(dir, "renders.jsonl");
    await mkdir(file);
    const logger = new RecordingLogger();
    const notifier = new JsonLinesNotifier({ file, logger });
    await expect(notifier.notify(succeeded("early"))).resolves.toBeUndefined();
    expect(logger.entries.some((entry) => entry.level === "error" && /append failed/.test(entry.message))).toBe(true);
    // The path becomes writable: the kept line goes out with the next one, in order.
    await rm(file, { recursive: true });
    await notifier.notify(failed("later"));
    expect((await linesOf(file)).map((line) => line.renderId)).toEqual(["early", "later"]);

    const stuck = join(dir, "stuck.jsonl");
    await mkdir(stuck);
    const closing = new JsonLinesNotifier({ file: stuck, logger });
    await closing.notify(succeeded("lost"));
    await expect(closing.close()).resolves.toBeUndefined();
    expect(logger.entries.some((entry) => /lost at close/.test(entry.message) && entry.fields?.lost === 1)).toBe(true);
  });
});

describe("jsonLinesNotifier()", () => {
  it("refuses unknown options and wrong types when the factory is called", () => {
    expect(() => jsonLinesNotifier({ fiel: "x" })).toThrow(/unknown option "fiel"/);
    expect(() => jsonLinesNotifier({ file: "" })).toThrow(/file/);
    expect(() => jsonLinesNotifier({ failuresOnly: "yes" })).toThrow(/failuresOnly/);
  });

  it("in a real renderer: a relative file is taken from the data directory, and the render's job reaches the line", async () => {
    const dataDir = await freshDir();
    const renderer = await createRenderer({
      plugins: [playwright(), jsonLinesNotifier({ file: "events/renders.jsonl" })],
      dataDir,
      logger: new ConsoleLogger("silent"),
    });
    let result;
    try {
      result = await renderer.render({ html: "<h1>hi</h1>", format: "pdf" }, { job: { projectId: "reports" } });
      const outOfStock = { html: '<p class="error">x</p>', format: "pdf", wait_for: ".error", fail_if_selector_present: true };
      await expect(renderer.render(outOfStock, { job: { projectId: "reports" } })).rejects.toThrow(/present/);
    } finally {
      await renderer.close();
    }
    const lines = await linesOf(join(dataDir, "events", "renders.jsonl"));
    expect(lines.map((line) => [line.event, line.projectId])).toEqual([
      ["render.succeeded", "reports"],
      ["render.failed", "reports"],
    ]);
    expect(lines[0].result).toMatchObject({ renderUrl: result.renderUrl, size: result.size, format: "pdf" });
    expect(lines[1].error.code).toBe("EngineResponseNotOkError");
  });
});
