import { randomBytes } from "node:crypto";
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
  type JobSecrets,
  keyedJobSecrets,
  QUEUE,
  type QueueJob,
  RenderError,
  type RenderEvent,
  type Renderer,
} from "@renderkit/core";
import { CORE_OPTIONS, secretOptionNames } from "@renderkit/core/internal";
import { RecordingLogger } from "@renderkit/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MemoryQueue } from "../dist/defaults/memory-queue.js";
import { openSecretOptions, sealSecretOptions } from "../dist/job-secrets.js";

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

/** Keeps a copy of every job as it was added (what a durable queue would have stored). */
class RecordingQueue extends MemoryQueue {
  readonly added: QueueJob[] = [];
  override async add(job: QueueJob): Promise<void> {
    this.added.push(JSON.parse(JSON.stringify(job)) as QueueJob);
    return super.add(job);
  }
}

const SECRET_INPUT = {
  url: "https://example.com/",
  format: "png",
  authorization: "Bearer AUTH-0123",
  headers: ["X-Api-Key: HEADER-4567"],
  cookies: ["sid=COOKIE-89ab"],
  proxy: "user:PROXYPASS-cdef@proxy.example.com:3128",
  s3_presigned_url: "https://uploads.example.com/r.png?X-Amz-Signature=SIG-0246",
};
const SECRET_VALUES = ["AUTH-0123", "HEADER-4567", "COOKIE-89ab", "PROXYPASS-cdef", "SIG-0246"];

describe("keyedJobSecrets", () => {
  const key = randomBytes(32);

  it("opens what it sealed for the same render, and a fresh nonce makes each sealing differ", () => {
    const secrets = keyedJobSecrets(key);
    const first = secrets.seal('{"authorization":"Bearer x"}', "r1") as string;
    const second = secrets.seal('{"authorization":"Bearer x"}', "r1") as string;
    expect(first).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain("Bearer");
    expect(secrets.open(first, "r1")).toBe('{"authorization":"Bearer x"}');
    expect(secrets.open(second, "r1")).toBe('{"authorization":"Bearer x"}');
  });

  it("refuses another key, another render's ciphertext, a changed one and an unknown form", () => {
    const sealed = keyedJobSecrets(key).seal("{}", "r1") as string;
    expect(() => keyedJobSecrets(randomBytes(32)).open(sealed, "r1")).toThrow(/do not open with this key/);
    expect(() => keyedJobSecrets(key).open(sealed, "r2")).toThrow(/do not open with this key/);
    const [form, iv, tag, data] = sealed.split(".");
    const flipped = `${form}.${iv}.${tag}.${(data as string).startsWith("A") ? "B" : "A"}${(data as string).slice(1)}`;
    expect(() => keyedJobSecrets(key).open(flipped, "r1")).toThrow(/do not open with this key/);
    expect(() => keyedJobSecrets(key).open(`v0.${iv}.${tag}.${data}`, "r1")).toThrow(/not in a form this version reads/);
    expect(() => keyedJobSecrets(randomBytes(16))).toThrow(RangeError);
  });
});

describe("secret options", () => {
  it("are the credentials of the core catalogue, marked there", () => {
    expect(secretOptionNames(CORE_OPTIONS).sort()).toEqual(
      [
        "authorization",
        "cookies",
        "headers",
        "proxy",
        "s3PresignedUrl",
        "s3PresignedUrlHtml",
        "s3PresignedUrlMarkdown",
        "s3PresignedUrlMetadata",
        "s3PresignedUrlMhtml",
        "s3PresignedUrlResourceInfo",
      ].sort(),
    );
  });

  it("are taken out and sealed, then put back; an old job's plain options are read as they are", async () => {
    const secrets = keyedJobSecrets(randomBytes(32));
    const options = { width: 100, authorization: "Bearer a", headers: ["X: y"], proxy: undefined };
    const names = ["authorization", "headers", "proxy"];
    const queued = await sealSecretOptions(options, names, secrets, "r1");
    expect(queued.options).toEqual({ width: 100, proxy: undefined });
    expect(typeof queued.sealed).toBe("string");
    expect(await openSecretOptions(queued, secrets, "r1")).toEqual({ width: 100, authorization: "Bearer a", headers: ["X: y"] });
    // Nothing secret given, or no jobSecrets: queued as they are, and read back as they are.
    expect(await sealSecretOptions({ width: 100 }, names, secrets, "r1")).toEqual({ options: { width: 100 } });
    expect(await sealSecretOptions(options, names, undefined, "r1")).toEqual({ options });
    expect(await openSecretOptions({ options }, secrets, "r1")).toBe(options);
    await expect(openSecretOptions(queued, undefined, "r1")).rejects.toThrow(/no jobSecrets setting/);
    await expect(openSecretOptions(queued, secrets, "r2")).rejects.toThrow(/do not open/);
  });
});

describe("a renderer with jobSecrets", () => {
  let dataDir: string;
  const renderers: Renderer[] = [];
  const asked: DestinationRequest[] = [];
  const events: RenderEvent[] = [];

  /** A renderer on `queue` whose destination resolver records what it is asked and fails the render. */
  const make = async (queue: MemoryQueue, jobSecrets?: JobSecrets, logger = new RecordingLogger()) => {
    const parts = definePlugin(() => ({
      name: "stubs",
      register: ({ container }) => {
        container.register(ENGINE, { useValue: engine });
        container.register(FORMATTER, { useValue: formatter });
        container.register(QUEUE, { useValue: queue });
      },
    }));
    const renderer = await createRenderer({
      dataDir,
      plugins: [parts()],
      logger,
      jobSecrets,
      destination: (request) => {
        asked.push(request);
        throw new RenderError("InvalidOptions", "this resolver takes no upload");
      },
    });
    renderer.on((event) => {
      events.push(event);
    });
    renderers.push(renderer);
    return renderer;
  };

  /** The final event of a render. */
  const endOf = async (renderId: string): Promise<RenderEvent> => {
    for (;;) {
      const end = events.find((e) => e.renderId === renderId && (e.type === "render.failed" || e.type === "render.succeeded"));
      if (end) return end;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "renderkit-job-secrets-"));
  });
  afterAll(async () => {
    for (const renderer of renderers) await renderer.close(1_000);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("queues the secret options sealed, bound to the render id, and the attempt gets them opened", async () => {
    const queue = new RecordingQueue(10);
    const renderer = await make(queue, keyedJobSecrets(randomBytes(32)));
    const { renderId } = await renderer.submit(SECRET_INPUT);
    await endOf(renderId);
    const stored = queue.added.find((job) => job.id === renderId);
    const text = JSON.stringify(stored);
    for (const value of SECRET_VALUES) expect(text).not.toContain(value);
    const data = stored?.data as { options: Record<string, unknown>; sealed?: string };
    expect(data.options.width).toBe(1280);
    expect(data.options.authorization).toBeUndefined();
    expect(typeof data.sealed).toBe("string");
    const seen = asked.find((r) => r.renderId === renderId)?.options;
    expect(seen?.authorization).toBe(SECRET_INPUT.authorization);
    expect(seen?.headers).toEqual(SECRET_INPUT.headers);
    expect(seen?.cookies).toEqual(SECRET_INPUT.cookies);
    expect(seen?.proxy).toBe(SECRET_INPUT.proxy);
    expect(seen?.s3PresignedUrl).toBe(SECRET_INPUT.s3_presigned_url);
  });

  it("runs a job queued before sealing (every option in clear) as it was", async () => {
    const queue = new RecordingQueue(10);
    const renderer = await make(queue, keyedJobSecrets(randomBytes(32)));
    const parsed = renderer.parse(SECRET_INPUT);
    await queue.add({
      id: "legacy-plain",
      data: { options: parsed.options, origin: "async" },
      attempt: 1,
      enqueuedAt: Date.now(),
    });
    expect((await endOf("legacy-plain")).type).toBe("render.failed"); // by the resolver, after it was asked
    expect(asked.find((r) => r.renderId === "legacy-plain")?.options.authorization).toBe(SECRET_INPUT.authorization);
  });

  it("without jobSecrets queues the options as given (the library's default is unchanged)", async () => {
    const queue = new RecordingQueue(10);
    const renderer = await make(queue);
    const { renderId } = await renderer.submit(SECRET_INPUT);
    await endOf(renderId);
    const data = queue.added.find((job) => job.id === renderId)?.data as { options: Record<string, unknown>; sealed?: string };
    expect(data.sealed).toBeUndefined();
    expect(data.options.authorization).toBe(SECRET_INPUT.authorization);
  });

  it("refuses a render it cannot seal (ServiceUnavailable), queueing nothing, and logs why", async () => {
    const logger = new RecordingLogger();
    const queue = new RecordingQueue(10);
    const broken: JobSecrets = {
      seal: () => {
        throw new Error("no key here");
      },
      open: () => "{}",
    };
    const renderer = await make(queue, broken, logger);
    await expect(renderer.submit(SECRET_INPUT)).rejects.toMatchObject({
      code: "ServiceUnavailable",
      message: "This server cannot queue renders with secret options (a server configuration fault)",
    });
    expect(queue.added).toEqual([]);
    expect(logger.at("error", "cannot seal the secret options of a render; it is refused")[0]?.fields.error).toMatch(
      /no key here/,
    );
  });

  it("fails a render whose secrets it cannot open (another key, none) with ServiceUnavailable, and logs why", async () => {
    const sealedBy = keyedJobSecrets(randomBytes(32));
    const cases: [string, JobSecrets | undefined, RegExp][] = [
      ["another-key", keyedJobSecrets(randomBytes(32)), /do not open with this key/],
      ["no-setting", undefined, /no jobSecrets setting/],
    ];
    for (const [id, secrets, why] of cases) {
      const logger = new RecordingLogger();
      const queue = new RecordingQueue(10);
      const renderer = await make(queue, secrets, logger);
      const parsed = renderer.parse({ url: "https://example.com/", format: "png" });
      const sealed = await sealedBy.seal(JSON.stringify({ authorization: "Bearer AUTH-0123" }), id);
      await queue.add({ id, data: { options: parsed.options, sealed, origin: "async" }, attempt: 1, enqueuedAt: Date.now() });
      const end = await endOf(id);
      expect(end).toMatchObject({
        type: "render.failed",
        code: "ServiceUnavailable",
        reason: "The render could not be run: this server cannot read its secret options (a server configuration fault)",
      });
      expect(asked.some((r) => r.renderId === id)).toBe(false);
      const logged = logger.at("error", "cannot open the secret options of a queued render; it fails");
      expect(logged).toHaveLength(1);
      expect(logged[0]?.fields).toMatchObject({ renderId: id, error: expect.stringMatching(why) });
    }
  });
});
