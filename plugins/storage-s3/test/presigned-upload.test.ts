import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { GetObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { AddressPolicy } from "@renderkit/core";
import { expectRenderError, readAll } from "@renderkit/core/testing";
import { uploadToPresignedUrl } from "@renderkit/storage-s3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sha256, startS3, startServer, type TestS3, type TestServer } from "./helpers.js";

let s3: TestS3;
let client: S3Client;
const allowLoopback = () => new AddressPolicy({ allowPrivate: ["127.0.0.1"] });
const servers: TestServer[] = [];
beforeAll(async () => {
  s3 = await startS3(["customer"]);
  client = s3.client();
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});
async function server(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const made = await startServer(...args);
  servers.push(made);
  return made;
}

/** What a customer does: presign a PUT of one key in their bucket. */
const presignPut = (Key: string, contentType: string, signer = client) =>
  getSignedUrl(signer, new PutObjectCommand({ Bucket: "customer", Key, ContentType: contentType }), { expiresIn: 600 });

async function stored(Key: string) {
  const answer = await client.send(new GetObjectCommand({ Bucket: "customer", Key }));
  return { type: answer.ContentType, bytes: await readAll(answer.Body as Readable) };
}

describe("uploadToPresignedUrl", () => {
  it("PUTs a Uint8Array to an S3 presigned address: the object arrives byte-identical with its content type", async () => {
    const bytes = new Uint8Array(randomBytes(300_000));
    const url = await presignPut("shots/one.png", "image/png");
    expect(await uploadToPresignedUrl(url, bytes, { contentType: "image/png" }, { policy: allowLoopback() })).toEqual({
      size: 300_000,
    });
    const object = await stored("shots/one.png");
    expect(object.type).toBe("image/png");
    expect(sha256(object.bytes)).toBe(sha256(bytes));
  });

  it("buffers a Readable body to send it with a Content-Length", async () => {
    const parts = [randomBytes(70_000), randomBytes(1), randomBytes(200_000)];
    const url = await presignPut("docs/two.pdf", "application/pdf");
    const result = await uploadToPresignedUrl(
      url,
      Readable.from(parts),
      { contentType: "application/pdf" },
      { policy: allowLoopback() },
    );
    expect(result).toEqual({ size: 270_001 });
    const object = await stored("docs/two.pdf");
    expect(object.type).toBe("application/pdf");
    expect(object.bytes.equals(Buffer.concat(parts))).toBe(true);
  });

  it("refuses a loopback address without an allowlist before any connection", async () => {
    const target = await server();
    const error = await expectRenderError(
      uploadToPresignedUrl(
        `${target.url}/k.png?X-Amz-Signature=secret`,
        Buffer.from("x"),
        { contentType: "image/png" },
        {
          policy: new AddressPolicy(),
        },
      ),
      "InvalidURLError",
    );
    expect(error.message).not.toContain("secret");
    expect(target.connections).toBe(0);
  });

  it("refuses to run without an address policy", async () => {
    await expect(
      uploadToPresignedUrl("https://bucket.example.com/k", Buffer.from("x"), { contentType: "text/plain" }, {} as never),
    ).rejects.toThrow(/options.policy is required/);
  });

  it("refuses schemes other than http and https", async () => {
    for (const url of ["ftp://127.0.0.1/x", "file:///etc/passwd", "not a url"]) {
      await expectRenderError(
        uploadToPresignedUrl(url, Buffer.from("x"), { contentType: "text/plain" }, { policy: allowLoopback() }),
        "InvalidURLError",
      );
    }
  });

  it("a 403 from S3 rejects with the status and S3's code, never the address or its signature", async () => {
    const stranger = s3.client({ credentials: { accessKeyId: "NOT-A-KEY", secretAccessKey: "nope" } });
    const url = await presignPut("denied.png", "image/png", stranger);
    stranger.destroy();
    const error = await expectRenderError(
      uploadToPresignedUrl(url, Buffer.from("x"), { contentType: "image/png" }, { policy: allowLoopback() }),
      "EngineResponseNotOkError",
    );
    expect(error.message).toBe("the presigned upload answered HTTP 403 (InvalidAccessKeyId)");
    expect(error.message).not.toMatch(/\?|X-Amz|Signature|denied\.png/);
    await expect(client.send(new GetObjectCommand({ Bucket: "customer", Key: "denied.png" }))).rejects.toMatchObject({
      name: "NoSuchKey",
    });
  });

  it("does not follow a redirect", async () => {
    const elsewhere = await server();
    const redirecting = await server((_req, res) => res.writeHead(307, { location: `${elsewhere.url}/stolen` }).end());
    const error = await expectRenderError(
      uploadToPresignedUrl(
        `${redirecting.url}/k.png?sig=1`,
        Buffer.from("x"),
        { contentType: "image/png" },
        { policy: allowLoopback() },
      ),
      "EngineResponseNotOkError",
    );
    expect(error.message).toBe("the presigned upload answered HTTP 307 (redirects are not followed)");
    expect(redirecting.requests).toHaveLength(1);
    expect(elsewhere.connections).toBe(0);
  });

  it("connects to the address the policy pinned, keeping the host name in the Host header", async () => {
    const target = await server((_req, res) => res.writeHead(200).end());
    // A resolver of our own: the name resolves to loopback, which the operator allowed for this name only.
    const policy = new AddressPolicy({
      allowPrivate: ["uploads.test"],
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    const url = `http://uploads.test:${target.port}/bucket/key.webp?X-Amz-Signature=abc`;
    await uploadToPresignedUrl(url, Buffer.from("webp"), { contentType: "image/webp" }, { policy });
    expect(target.requests).toEqual([
      {
        method: "PUT",
        url: "/bucket/key.webp?X-Amz-Signature=abc",
        host: `uploads.test:${target.port}`,
        body: Buffer.from("webp"),
      },
    ]);
  });

  it("a server that never answers is cut at timeoutMs with TimedOutError", async () => {
    const silent = await server(() => undefined);
    // Only the timeout ends it (TimedOutError): the silent server never answers or closes.
    await expectRenderError(
      uploadToPresignedUrl(
        `${silent.url}/k`,
        Buffer.from("x"),
        { contentType: "text/plain" },
        { policy: allowLoopback(), timeoutMs: 300 },
      ),
      "TimedOutError",
    );
  });

  it("an aborted signal stops the upload with the signal's reason; a failing Readable rejects", async () => {
    const target = await server();
    const controller = new AbortController();
    controller.abort(new Error("render cancelled"));
    await expect(
      uploadToPresignedUrl(
        `${target.url}/k`,
        Buffer.from("x"),
        { contentType: "text/plain" },
        { policy: allowLoopback(), signal: controller.signal },
      ),
    ).rejects.toThrow("render cancelled");
    const failing = new Readable({
      read() {
        this.destroy(new Error("formatter failed"));
      },
    });
    await expect(
      uploadToPresignedUrl(`${target.url}/k`, failing, { contentType: "text/plain" }, { policy: allowLoopback() }),
    ).rejects.toThrow("formatter failed");
    expect(target.requests).toHaveLength(0);
  });
});
