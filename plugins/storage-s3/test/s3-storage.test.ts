import { randomBytes, randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { HeadObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { readAll } from "@renderkit/core/testing";
import { S3Storage, S3StorageError } from "@renderkit/storage-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordCommands, sha256, startS3, type TestS3, testStorage } from "./helpers.js";

const MiB = 1024 * 1024;
let s3: TestS3;
let storage: S3Storage;
beforeAll(async () => {
  s3 = await startS3(["renders"]);
  storage = testStorage(s3, "renders");
});
afterAll(async () => {
  await storage?.close();
  await s3?.stop();
});
const key = (ext = "bin") => `own-${randomUUID()}.${ext}`;
const head = (Key: string) => storage.client.send(new HeadObjectCommand({ Bucket: "renders", Key }));

describe("S3Storage against s3rver", () => {
  it("sends the storage class in upper case (s3rver keeps it: HeadObject and get show it)", async () => {
    const k = key("png");
    await storage.put(k, Buffer.from("classy"), { contentType: "image/png", storageClass: "standard_ia" });
    expect((await head(k)).StorageClass).toBe("STANDARD_IA");
    const object = await storage.get(k);
    expect(object?.storageClass).toBe("STANDARD_IA");
    object?.body.destroy();

    const streamed = key();
    await storage.put(streamed, Readable.from([Buffer.from("x")]), { contentType: "text/plain", storageClass: "ONEZONE_IA" });
    expect((await head(streamed)).StorageClass).toBe("ONEZONE_IA");
  });

  it("refuses an unknown storage class before sending anything", async () => {
    const k = key();
    const strict = testStorage(s3, "renders");
    const sent = recordCommands(strict);
    const body = Readable.from([Buffer.from("x")]);
    await expect(strict.put(k, Buffer.from("x"), { contentType: "text/plain", storageClass: "cold_closet" })).rejects.toThrow(
      /unknown storage class "cold_closet"/,
    );
    await expect(strict.put(k, body, { contentType: "text/plain", storageClass: "cold_closet" })).rejects.toThrow(RangeError);
    expect(sent).toEqual([]);
    // A refused Readable is released, not left hanging for a reader that never comes.
    expect(body.destroyed).toBe(true);
    expect(await strict.get(k)).toBeUndefined();
    await strict.close();
  });

  it("stores expiresAt and createdAt as metadata and the HTTP Expires header", async () => {
    const k = key("pdf");
    const expiresAt = Date.now() + 3_600_000;
    const before = Date.now();
    await storage.put(k, Buffer.from("%PDF"), { contentType: "application/pdf", expiresAt });
    const answer = await head(k);
    expect(answer.ContentType).toBe("application/pdf");
    expect(answer.Metadata?.["renderkit-expires-at"]).toBe(String(expiresAt));
    expect(Number(answer.Metadata?.["renderkit-created-at"])).toBeGreaterThanOrEqual(before);
    // The header has second precision.
    expect(Math.abs((answer.Expires?.getTime() ?? 0) - expiresAt)).toBeLessThan(1_000);
  });

  it("streams a Readable larger than a part as a multipart upload and reads it back byte-identical", async () => {
    const k = key("mp4");
    const bytes = randomBytes(12 * MiB);
    const big = testStorage(s3, "renders");
    const sent = recordCommands(big);
    // Odd chunk sizes, so parts never line up with what the source yields.
    const chunks = Array.from({ length: Math.ceil(bytes.length / 777_777) }, (_, i) =>
      bytes.subarray(i * 777_777, (i + 1) * 777_777),
    );
    expect(await big.put(k, Readable.from(chunks), { contentType: "video/mp4" })).toEqual({ size: bytes.length });
    expect(sent).toEqual(["CreateMultipartUpload", "UploadPart", "UploadPart", "CompleteMultipartUpload"]);
    const object = await big.get(k);
    expect(object?.size).toBe(bytes.length);
    expect(object?.contentType).toBe("video/mp4");
    expect(sha256(await readAll(object!.body))).toBe(sha256(bytes));
    const tail = await big.get(k, { start: 9 * MiB, end: 12 * MiB - 1 });
    expect(sha256(await readAll(tail!.body))).toBe(sha256(bytes.subarray(9 * MiB)));
    await big.close();
  });

  it("a Readable failing after a first part rejects with its own error, tries to abort, and stores nothing", async () => {
    const k = key();
    const failing = testStorage(s3, "renders", { partSizeBytes: 5 * MiB });
    const sent = recordCommands(failing);
    let pushed = 0;
    const source = new Readable({
      read() {
        // Two full parts reach the uploader before the failure (pipeline drops what is buffered).
        if (pushed >= 12 * MiB) this.destroy(new Error("the encoder died"));
        else this.push(Buffer.alloc(MiB, 1));
        pushed += MiB;
      },
    });
    await expect(failing.put(k, source, { contentType: "video/mp4" })).rejects.toThrow("the encoder died");
    expect(sent).toContain("CreateMultipartUpload");
    // s3rver answers AbortMultipartUpload with MethodNotAllowed; the attempt is what we can check.
    expect(sent).toContain("AbortMultipartUpload");
    expect(await failing.get(k)).toBeUndefined();
    await failing.close();
  });

  it("keeps keys under the prefix inside the bucket", async () => {
    const prefixed = testStorage(s3, "renders", { prefix: "tenant-7/renders/" });
    const k = key("png");
    await prefixed.put(k, Buffer.from("p"), { contentType: "image/png" });
    const listed = await storage.client.send(new ListObjectsV2Command({ Bucket: "renders", Prefix: "tenant-7/" }));
    expect(listed.Contents?.map((c) => c.Key)).toEqual([`tenant-7/renders/${k}`]);
    expect(await storage.get(k)).toBeUndefined();
    expect(prefixed.objectUrl(k)).toBe(`${s3.endpoint}/renders/tenant-7/renders/${k}`);
    await prefixed.close();
  });

  it("objectUrl is the plain address s3rver serves the object at", async () => {
    const k = key("txt");
    await storage.put(k, Buffer.from("plain"), { contentType: "text/plain" });
    expect(storage.objectUrl(k)).toBe(`${s3.endpoint}/renders/${k}`);
    const answer = await fetch(storage.objectUrl(k));
    expect(await answer.text()).toBe("plain");
  });

  it("signedUrl clamps the expiry to 1 s .. 7 days", async () => {
    const expires = async (seconds: number) => new URL(await storage.signedUrl(key(), seconds)).searchParams.get("X-Amz-Expires");
    expect(await expires(10 * 365 * 86_400)).toBe("604800");
    expect(await expires(0)).toBe("1");
    expect(await expires(-5)).toBe("1");
    expect(await expires(299.9)).toBe("299");
    await expect(storage.signedUrl(key(), Number.NaN)).rejects.toThrow(RangeError);
    await expect(storage.signedUrl("../x", 60)).rejects.toThrow(/Invalid storage key/);
  });

  it("publicUrl and sweep exist only when configured", () => {
    expect(storage.publicUrl).toBeUndefined();
    expect(storage.sweep).toBeUndefined();
    expect("publicUrl" in storage).toBe(false);
    const both = testStorage(s3, "renders", { publicBaseUrl: "https://cdn.example.com/r/", sweep: true });
    expect(typeof both.publicUrl).toBe("function");
    expect(typeof both.sweep).toBe("function");
  });

  it("publicUrl joins the base, the prefix and the key with one slash", async () => {
    const cdn = testStorage(s3, "renders", { publicBaseUrl: "https://cdn.example.com/r/", prefix: "a b/" });
    expect(await cdn.publicUrl?.("x/1.png", 60)).toBe("https://cdn.example.com/r/a%20b/x/1.png");
    await expect(cdn.publicUrl?.("../1.png", 60)).rejects.toThrow(/Invalid storage key/);
  });

  it("location() is JSON-safe and holds no credentials", () => {
    const prefixed = testStorage(s3, "renders", { prefix: "p/" });
    const location = prefixed.location();
    expect(location).toEqual({
      bucket: "renders",
      region: "us-east-1",
      endpoint: s3.endpoint,
      forcePathStyle: true,
      prefix: "p/",
    });
    expect(JSON.parse(JSON.stringify(location))).toEqual(location);
    expect(JSON.stringify(location)).not.toContain("S3RVER");
    expect(new S3Storage({ bucket: "bucket-b", region: "eu-west-1" }).location()).toEqual({
      bucket: "bucket-b",
      region: "eu-west-1",
      forcePathStyle: false,
    });
  });

  it("keeps credentials out of JSON.stringify and util.inspect", async () => {
    const { inspect } = await import("node:util");
    const secret = testStorage(s3, "renders", { accessKeyId: "S3RVER", secretAccessKey: "TOP-SECRET-VALUE" });
    await secret.put(key(), Buffer.from("x"), { contentType: "text/plain" }); // the client exists now
    expect(JSON.stringify(secret)).not.toContain("TOP-SECRET");
    expect(inspect(secret, { depth: 5 })).not.toContain("TOP-SECRET");
  });

  it("sweep refuses a `now` that is not a number (NaN would match every object)", async () => {
    const sweeping = testStorage(s3, "renders", { sweep: true });
    await expect(sweeping.sweep?.(Number.NaN)).rejects.toThrow(RangeError);
  });

  it("close() destroys the client; using the storage afterwards fails clearly", async () => {
    const closing = testStorage(s3, "renders");
    await closing.put(key(), Buffer.from("x"), { contentType: "text/plain" });
    await closing.close();
    await expect(closing.get(key())).rejects.toThrow(/used after close/);
  });

  it("S3 errors name the operation, the key and the bucket", async () => {
    const missingBucket = testStorage(s3, "no-such-bucket");
    const error = await missingBucket.put("a.txt", Buffer.from("x"), { contentType: "text/plain" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(S3StorageError);
    expect((error as S3StorageError).message).toMatch(/^S3 PutObject of "a.txt" in bucket "no-such-bucket" failed: NoSuchBucket/);
    expect((error as S3StorageError).status).toBe(404);
    // A missing bucket is a configuration error, not a missing object.
    await expect(missingBucket.get("a.txt")).rejects.toThrow(/NoSuchBucket/);
  });
});
