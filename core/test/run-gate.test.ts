import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRenderer,
  definePlugin,
  ENGINE,
  type Engine,
  FORMATTER,
  type Formatter,
  type PageSession,
  QUEUE,
  RenderError,
  type RenderEvent,
  type Renderer,
  type RunGate,
  type RunGateRequest,
} from "@renderkit/core";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { MemoryQueue } from "../dist/defaults/memory-queue.js";

// The renderer's run gate (`runGate`): asked before each attempt starts and before an attempt
// stores a file. A stub engine whose pages hold until the test lets them go, so a test can change
// the gate's answer while a render runs; no browser is needed to see what the core does.

/** A page that has everything preparation asks of it with default options, and nothing else. */
const session = (): PageSession =>
  ({
    response: { url: "about:blank" },
    bytesReceived: () => 0,
    close: async () => {},
  }) as unknown as PageSession;

/** Pages opened, and what holds them open (`hold` set: each open waits until `release()`). */
const pages = {
  opened: [] as string[],
  hold: undefined as Promise<void> | undefined,
  /** Makes the next page open fail like a crashed browser (retryable), once. */
  crashNext: false,
};
let release: () => void = () => {};
const holdPages = () => {
  pages.hold = new Promise<void>((resolve) => {
    release = resolve;
  });
};

const engine: Engine = {
  name: "stub",
  capabilities: new Set(["screenshot"]),
  start: async () => {},
  open: async (target) => {
    pages.opened.push("html" in target ? String(target.html) : String(target.url));
    if (pages.crashNext) {
      pages.crashNext = false;
      throw new RenderError("EngineResponseNotOkError", "the browser crashed", { retryable: true });
    }
    await pages.hold;
    return session();
  },
  stats: () => ({ browsers: 0, pages: 0, launches: 0 }),
  close: async () => {},
};
const formatter: Formatter = {
  name: "stub-png",
  formats: [{ format: "png", contentType: "image/png", extension: "png", requires: ["screenshot"] }],
  render: async () => ({ body: new Uint8Array([137, 80, 78, 71]) }),
};

/** What the gate answers; the test changes it. Every question is kept in `asked`. */
let answer: (request: RunGateRequest) => Promise<void> = async () => {};
const asked: RunGateRequest[] = [];
const gate: RunGate = (request) => {
  asked.push(request);
  return answer(request);
};

async function stubRenderer(dataDir: string, runGate?: RunGate): Promise<{ renderer: Renderer; events: RenderEvent[] }> {
  const parts = definePlugin(() => ({
    name: "stubs",
    register: ({ container }) => {
      container.register(ENGINE, { useValue: engine });
      container.register(FORMATTER, { useValue: formatter });
      container.register(QUEUE, { useValue: new MemoryQueue(10) });
    },
  }));
  const renderer = await createRenderer({
    dataDir,
    plugins: [parts()],
    logger: { debug() {}, info() {}, warn() {}, error() {} },
    concurrency: 1,
    ...(runGate ? { runGate } : {}),
  });
  const events: RenderEvent[] = [];
  renderer.on((event) => {
    events.push(event);
  });
  return { renderer, events };
}

const refuse = (stage: RunGateRequest["stage"], options: { retryable?: boolean } = {}) =>
  async function refusing(request: RunGateRequest): Promise<void> {
    if (request.stage === stage) throw new RenderError("ProjectNotEnabled", `refused at ${stage}`, options);
  };

describe("run gate (`runGate`)", () => {
  let dataDir: string;
  let gated: { renderer: Renderer; events: RenderEvent[] };
  let plain: { renderer: Renderer; events: RenderEvent[] };

  /** The types of one render's events, once it has ended (one final event, however long it takes). */
  const endOf = async (events: RenderEvent[], renderId: string, timeout = 15_000): Promise<string[]> => {
    const final = (e: RenderEvent) => e.renderId === renderId && (e.type === "render.succeeded" || e.type === "render.failed");
    await vi.waitFor(() => expect(events.some(final)).toBe(true), { timeout, interval: 20 });
    return events.filter((e) => e.renderId === renderId).map((e) => e.type);
  };
  const failureOf = (events: RenderEvent[], renderId: string) =>
    events.find((e) => e.renderId === renderId && e.type === "render.failed") as
      | Extract<RenderEvent, { type: "render.failed" }>
      | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "renderkit-run-gate-"));
    gated = await stubRenderer(join(dataDir, "gated"), gate);
    plain = await stubRenderer(join(dataDir, "plain"));
  });
  afterAll(async () => {
    release();
    await Promise.all([gated?.renderer.close(1_000), plain?.renderer.close(1_000)]);
    await rm(dataDir, { recursive: true, force: true });
  });
  beforeEach(() => {
    answer = async () => {};
    asked.length = 0;
    pages.opened.length = 0;
    pages.hold = undefined;
    pages.crashNext = false;
  });

  it("without the setting, renders run as before", async () => {
    const result = await plain.renderer.render({ html: "<p>plain</p>" });
    expect(await endOf(plain.events, result.renderId)).toEqual(["render.created", "render.started", "render.succeeded"]);
    expect(await plain.renderer.read(result.key)).toBeDefined();
  });

  it("an admitted render is asked about before it starts and before it stores each file", async () => {
    const result = await gated.renderer.render({ html: "<p>admitted</p>", save_headers: true }, { job: { projectId: "p1" } });
    expect(await endOf(gated.events, result.renderId)).toEqual(["render.created", "render.started", "render.succeeded"]);
    const mine = asked.filter((r) => r.renderId === result.renderId);
    expect(mine.map((r) => [r.stage, r.attempt])).toEqual([
      ["start", 1],
      ["store", 1], // the headers side file
      ["store", 1], // the render
    ]);
    expect(mine[0]?.job).toEqual({ projectId: "p1" });
    expect(mine[0]?.options.html).toBe("<p>admitted</p>");
  });

  it("a render refused before it starts ends failed with the gate's code: no page, nothing stored, one final event", async () => {
    answer = refuse("start");
    const done = gated.renderer.render({ html: "<p>refused at start</p>" });
    await expect(done).rejects.toMatchObject({ code: "ProjectNotEnabled", message: "refused at start" });
    const renderId = asked[0]?.renderId as string;
    expect(await endOf(gated.events, renderId)).toEqual(["render.created", "render.failed"]);
    expect(failureOf(gated.events, renderId)).toMatchObject({ code: "ProjectNotEnabled", reason: "refused at start" });
    expect(pages.opened).toEqual([]);
    expect(await gated.renderer.read(`${renderId}.png`)).toBeUndefined();
  });

  it("a render refused while it runs stores nothing and is not retried, even when the refusal says retryable", async () => {
    holdPages();
    const { renderId } = await gated.renderer.submit({ html: "<p>refused mid-way</p>", save_headers: true });
    await vi.waitFor(() => expect(pages.opened).toHaveLength(1), { timeout: 5_000, interval: 10 });
    // The page is open (the render has started); the gate changes its answer before the capture.
    answer = refuse("store", { retryable: true });
    release();
    expect(await endOf(gated.events, renderId)).toEqual(["render.created", "render.started", "render.failed"]);
    expect(failureOf(gated.events, renderId)).toMatchObject({ code: "ProjectNotEnabled", reason: "refused at store" });
    expect(pages.opened).toHaveLength(1);
    expect(await gated.renderer.read(`${renderId}.png`)).toBeUndefined();
    expect(await gated.renderer.read(`${renderId}-headers.json`)).toBeUndefined();
  });

  it("a retry after a failed attempt is asked again, and refused ends the render with the gate's code", async () => {
    pages.crashNext = true;
    answer = async (request) => {
      if (request.attempt > 1) throw new RenderError("ProjectNotEnabled", "disabled during the retry's wait");
    };
    const { renderId } = await gated.renderer.submit({ html: "<p>retry refused</p>" });
    expect(await endOf(gated.events, renderId)).toEqual(["render.created", "render.started", "render.retrying", "render.failed"]);
    expect(failureOf(gated.events, renderId)?.code).toBe("ProjectNotEnabled");
    expect(asked.map((r) => [r.stage, r.attempt])).toEqual([
      ["start", 1],
      ["start", 2],
    ]);
  });

  it("a gate that cannot answer before the start loses no render: the queue hands it out again", async () => {
    let failures = 1;
    answer = async () => {
      if (failures-- > 0) throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
    };
    const { renderId } = await gated.renderer.submit({ html: "<p>gate down at start</p>" });
    // JobNotDone: the queue runs it again after about 5 s, one attempt further.
    const types = await endOf(gated.events, renderId);
    expect(types.filter((t) => t === "render.succeeded" || t === "render.failed")).toEqual(["render.succeeded"]);
    expect(types[0]).toBe("render.created");
    expect(asked[0]).toMatchObject({ stage: "start", attempt: 1 });
    expect(asked[1]).toMatchObject({ stage: "start", attempt: 2 });
    expect(await gated.renderer.read(`${renderId}.png`)).toBeDefined();
  });

  it("a gate that cannot answer before the store loses no render either, and it still ends once", async () => {
    let failures = 1;
    answer = async (request) => {
      if (request.stage === "store" && failures-- > 0) throw new Error("connect ECONNREFUSED 127.0.0.1:6379");
    };
    const { renderId } = await gated.renderer.submit({ html: "<p>gate down at store</p>" });
    const types = await endOf(gated.events, renderId);
    expect(types.filter((t) => t === "render.succeeded" || t === "render.failed")).toEqual(["render.succeeded"]);
    expect(pages.opened).toHaveLength(2);
    expect(await gated.renderer.read(`${renderId}.png`)).toBeDefined();
  });
});
