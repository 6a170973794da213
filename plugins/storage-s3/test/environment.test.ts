import net from "node:net";
import { createRenderer } from "@renderkit/core";
import { readAll } from "@renderkit/core/testing";
import { S3Storage, S3StorageError, s3Storage } from "@renderkit/storage-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { s3Options, startS3, type TestS3 } from "./helpers.js";

const AWS_VARS = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_PROFILE"] as const;
const saved = Object.fromEntries(AWS_VARS.map((name) => [name, process.env[name]]));
let s3: TestS3;
beforeAll(async () => {
  s3 = await startS3(["env"]);
});
afterAll(async () => {
  await s3?.stop();
});
afterEach(() => {
  for (const name of AWS_VARS) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** Storage on s3rver with no credentials in its options: the SDK's default chain finds them. */
function fromEnvironment(): S3Storage {
  const { accessKeyId: _a, secretAccessKey: _s, region: _r, ...rest } = s3Options(s3, "env");
  return new S3Storage(rest);
}

describe("credentials and region from the environment", () => {
  it("uses AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and AWS_REGION when none are passed", async () => {
    process.env.AWS_ACCESS_KEY_ID = "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
    process.env.AWS_REGION = "eu-central-1";
    const storage = fromEnvironment();
    expect(storage.location().region).toBe("eu-central-1");
    await storage.put("env.txt", Buffer.from("from env"), { contentType: "text/plain" });
    const object = await storage.get("env.txt");
    expect((await readAll(object!.body)).toString()).toBe("from env");
    await storage.close();
  });

  it("the key really comes from the environment: s3rver refuses an unknown one", async () => {
    process.env.AWS_ACCESS_KEY_ID = "NOT-A-KEY";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
    const storage = fromEnvironment();
    await expect(storage.put("env2.txt", Buffer.from("x"), { contentType: "text/plain" })).rejects.toThrow(/InvalidAccessKeyId/);
    await storage.close();
  });

  it("region defaults to us-east-1 without AWS_REGION", () => {
    delete process.env.AWS_REGION;
    expect(new S3Storage({ bucket: "renders" }).location().region).toBe("us-east-1");
  });
});

describe("an unreachable endpoint fails clearly and in bounded time", () => {
  it("connection refused: S3StorageError naming the operation and the cause", async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as net.AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const storage = new S3Storage({ ...s3Options(s3, "env"), endpoint: `http://127.0.0.1:${port}`, maxAttempts: 2 });
    const error = await storage.put("x.txt", Buffer.from("x"), { contentType: "text/plain" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3StorageError);
    // Bounded by the attempts it names, not by a clock: retrying forever would never reject.
    expect(String(error)).toMatch(/S3 PutObject of "x.txt" in bucket "env" failed after 2 attempts: ECONNREFUSED/);
    await storage.close();
  });

  it("a server that accepts and never answers: the idle-socket timeout ends the request", async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as net.AddressInfo;
    const storage = new S3Storage({ ...s3Options(s3, "env"), endpoint: `http://127.0.0.1:${port}`, socketTimeoutMs: 300 });
    // Only the idle-socket timeout ends it (TimeoutError): the silent server never answers or closes.
    await expect(storage.get("x.txt")).rejects.toThrow(/S3 GetObject of "x.txt" in bucket "env" failed: TimeoutError/);
    await storage.close();
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });
});

describe("s3Storage() plugin", () => {
  it("registers the S3Storage as the renderer's storage", async () => {
    const writer = new S3Storage(s3Options(s3, "env"));
    await writer.put("plugin.txt", Buffer.from("through the renderer"), { contentType: "text/plain" });
    const renderer = await createRenderer({ plugins: [s3Storage(s3Options(s3, "env"))], worker: false, logger: quiet });
    try {
      const object = await renderer.read("plugin.txt");
      expect(object?.contentType).toBe("text/plain");
      expect((await readAll(object!.body)).toString()).toBe("through the renderer");
    } finally {
      await renderer.close();
      await writer.close();
    }
  });
});

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
