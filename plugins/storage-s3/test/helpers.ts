import { createHash } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { S3Storage, type S3StorageOptions } from "@renderkit/storage-s3";
import { startS3, type TestS3 } from "../../../test/helpers/s3.js";

export { startS3, type TestS3 };

/** Options reaching the test s3rver (path style, its fixed credentials), bounded so a mistake fails fast. */
export function s3Options(s3: TestS3, bucket: string, extra: Partial<S3StorageOptions> = {}): S3StorageOptions {
  return { ...s3.bucket(bucket), maxAttempts: 1, connectionTimeoutMs: 2_000, ...extra };
}

/** A storage on the test s3rver. */
export function testStorage(s3: TestS3, bucket: string, extra: Partial<S3StorageOptions> = {}): S3Storage {
  return new S3Storage(s3Options(s3, bucket, extra));
}

/** Records the SDK command names a client sends, through the SDK's own middleware stack (no mock). */
export function recordCommands(storage: S3Storage): string[] {
  const seen: string[] = [];
  storage.client.middlewareStack.add(
    (next, context) => async (args) => {
      seen.push(String(context.commandName).replace(/Command$/, ""));
      return next(args);
    },
    { step: "initialize", name: "recordCommands" },
  );
  return seen;
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A loopback HTTP server whose answers a test decides; counts connections and requests. */
export interface TestServer {
  port: number;
  url: string;
  connections: number;
  requests: { method?: string; url?: string; host?: string; body: Buffer }[];
  close(): Promise<void>;
}

export async function startServer(
  reply: (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void = (_req, res) => res.end(),
): Promise<TestServer> {
  const state = { connections: 0, requests: [] as TestServer["requests"] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      state.requests.push({ method: req.method, url: req.url, host: req.headers.host, body });
      reply(req, res, body);
    });
  });
  server.on("connection", () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    port,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
