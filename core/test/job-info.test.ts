import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createRenderer,
  type DestinationRequest,
  definePlugin,
  ENGINE,
  type Engine,
  FORMATTER,
  type Formatter,
  QUEUE,
  RenderError,
  type RenderEvent,
  type Renderer,
} from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryQueue } from "../dist/defaults/memory-queue.js";

/** An engine no render reaches: the destination resolver below fails every render before a page opens. */
const engine: Engine = {
  name: "stub",
  capabilities: new Set(["screenshot"]),
  start: async () => {},
  open: async () => {
    throw new Error("no page is opened in these tests");
  },
  stats: () => ({ browsers: 0, pages: 0, launches: 0 }),
  close: async () => {},
};
const formatter: Formatter = {
  name: "stub-png",
  formats: [{ format: "png", contentType: "image/png", extension: "png", requires: ["screenshot"] }],
  render: async () => ({ body: new Uint8Array() }),
};

const INPUT = { html: "<p>hello</p>", format: "png", s3_presigned_url: "https://uploads.example.com/r.png?sig=1" };
const JOB = { projectId: "p1", webhookUrl: "https://hooks.example.com/in", redirectAfter: 12 };

describe("RenderJobInfo (`job`)", () => {
  let dataDir: string;
  let renderer: Renderer;
  const queue = new MemoryQueue(10);
  const asked: DestinationRequest[] = [];
  const events: RenderEvent[] = [];

  /** The events of one render, once it has failed (the resolver refuses every destination). */
  const endOf = async (renderId: string): Promise<RenderEvent[]> => {
    for (let i = 0; i < 200 && !events.some((e) => e.renderId === renderId && e.type === "render.failed"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return events.filter((e) => e.renderId === renderId);
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "renderkit-job-info-"));
    const parts = definePlugin(() => ({
      name: "stubs",
      register: ({ container }) => {
        container.register(ENGINE, { useValue: engine });
        container.register(FORMATTER, { useValue: formatter });
        container.register(QUEUE, { useValue: queue });
      },
    }));
    renderer = await createRenderer({
      dataDir,
      plugins: [parts()],
      logger: { debug() {}, info() {}, warn() {}, error() {} },
      destination: (request) => {
        asked.push(request);
        throw new RenderError("InvalidOptions", "this resolver takes no upload");
      },
    });
    renderer.on((event) => {
      events.push(event);
    });
  });
  afterAll(async () => {
    await renderer.close(1_000);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("reaches every event and the destination resolver", async () => {
    const { renderId } = await renderer.submit(INPUT, { job: JOB });
    const seen = await endOf(renderId);
    expect(seen.map((e) => e.type)).toEqual(["render.created", "render.started", "render.failed"]);
    for (const event of seen) expect(event.job).toEqual(JOB);
    expect(asked.find((r) => r.renderId === renderId)?.job).toEqual(JOB);
  });

  it("is read from `meta` in a job queued by a version before `job`", async () => {
    const parsed = renderer.parse(INPUT);
    // What the previous version put in the queue: the same fields, named `meta`.
    const data = { options: parsed.options, origin: "async", meta: JOB };
    await queue.add({ id: "legacy-1", data, attempt: 1, enqueuedAt: Date.now() });
    const seen = await endOf("legacy-1");
    expect(seen.map((e) => e.type)).toEqual(["render.started", "render.failed"]);
    for (const event of seen) expect(event.job).toEqual(JOB);
    expect(asked.find((r) => r.renderId === "legacy-1")?.job).toEqual(JOB);
  });

  it("submitParsed queues what parse() returned and refuses options that skipped it", async () => {
    const parsed = renderer.parse({ ...INPUT, not_an_option: 1 });
    const { renderId, ignored } = await renderer.submitParsed(parsed, { job: JOB });
    expect(ignored).toEqual(["not_an_option"]);
    expect((await endOf(renderId)).at(-1)?.type).toBe("render.failed");
    expect(asked.find((r) => r.renderId === renderId)?.options.s3PresignedUrl).toBe(INPUT.s3_presigned_url);

    const handMade = { options: { ...parsed.options }, ignored: [], sent: { ...parsed.sent } };
    await expect(renderer.submitParsed(handMade)).rejects.toThrow(TypeError);
  });
});
