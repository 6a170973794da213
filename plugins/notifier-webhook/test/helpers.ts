import { mkdtemp, rm } from "node:fs/promises";
import http, { type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RenderEvent, RenderJobInfo, RenderResult } from "@renderkit/core";
import { verifyWebhookSignature, type WebhookOptions } from "@renderkit/notifier-webhook";
import type { Cleanup } from "../../../test/helpers/cleanup.js";

export const SECRET = "whsec_test_0123456789";

/** One request the receiver got, with the verdict of `verifyWebhookSignature` on its raw bytes. */
export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
}

/** How the receiver answers a hit: a status, no answer at all, or a hand-written answer. */
export type Reply = number | "hang" | ((res: ServerResponse) => void);

export interface Receiver {
  port: number;
  url(path?: string): string;
  hits: Hit[];
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback that verifies every signature, as a user's server would. */
export async function startReceiver(reply: (index: number, hit: Hit) => Reply = () => 200, port = 0): Promise<Receiver> {
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks);
      const signature = req.headers["x-service-signature"];
      const hit: Hit = {
        path: req.url ?? "",
        headers: req.headers,
        body: raw.toString("utf8"),
        verified: verifyWebhookSignature(typeof signature === "string" ? signature : undefined, raw, SECRET),
      };
      hits.push(hit);
      const answer = reply(hits.length - 1, hit);
      if (answer === "hang") return;
      if (typeof answer === "function") return answer(res);
      res.writeHead(answer, { "Content-Type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    port: bound,
    url: (path = "/hook") => `http://127.0.0.1:${bound}${path}`,
    hits,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A receiver (on `port`, default any) closed after the test. */
export async function receiver(cleanup: Cleanup, reply?: Parameters<typeof startReceiver>[0], port?: number): Promise<Receiver> {
  const made = await startReceiver(reply, port);
  cleanup.push(() => made.close());
  return made;
}

/** A loopback port nothing listens on (connections are refused). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `check` until it returns true; fails after `ms`. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function tempDir(cleanup: Cleanup): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "rk-webhook-"));
  cleanup.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A logger that keeps every line, to check what is (and is not) logged. */
export function recordingLogger() {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const at = (level: string) => (message: string, fields?: Record<string, unknown>) => lines.push({ level, message, fields });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error"), text: () => JSON.stringify(lines) };
}

/**
 * What every test notifier (file or BullMQ) starts from: project `p1` has the test secret, others
 * none; loopback allowed only for the receiver's `port`; short schedule, no jitter; a recording logger.
 */
export function notifierDefaults(port: number | undefined) {
  return {
    secretFor: ((projectId) => (projectId === "p1" ? SECRET : undefined)) satisfies WebhookOptions["secretFor"],
    allowPrivate: port === undefined ? false : [`127.0.0.1:${port}`],
    schedule: [50, 50, 50],
    jitter: 0,
    timeoutMs: 2_000,
    logger: recordingLogger(),
  };
}

export const START = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
export const END = START + 1_234;

export function result(renderId: string, extra: Partial<RenderResult> = {}): RenderResult {
  return {
    renderId,
    renderUrl: `https://renders.example.com/renders/${renderId}.png`,
    size: 12_345,
    renderTime: 812,
    queueTime: 4,
    bandwidth: 98_765,
    format: "png",
    contentType: "image/png",
    key: `${renderId}.png`,
    path: `/data/renders/${renderId}.png`,
    ...extra,
  };
}

export function succeeded(renderId: string, job?: RenderJobInfo, extra?: Partial<RenderResult>): RenderEvent {
  return { type: "render.succeeded", renderId, result: result(renderId, extra), startTime: START, endTime: END, job };
}

export function failed(renderId: string, job?: RenderJobInfo): RenderEvent {
  return {
    type: "render.failed",
    renderId,
    code: "EngineAsyncResponseNotOkError",
    reason: "The page answered 502",
    startTime: START,
    endTime: END,
    job,
  };
}
