import { createHash, randomUUID } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import FilesystemStore from "s3rver/lib/stores/filesystem.js";

/**
 * s3rver 3.7's PutObject answers before the object's file is written (it resolves on `end()` of a
 * buffer, or when its hashing transform finishes, not when the file stream does), so a HEAD or GET
 * right after a PUT can see an empty or partial object: real S3 never does (read-after-write).
 * Here an object is written to a temporary name and renamed into place before the PUT answers.
 */
FilesystemStore.prototype.putObject = async function putObject(object) {
  const objectPath = this.getResourcePath(object.bucket, object.key, "object");
  await mkdir(dirname(objectPath), { recursive: true });
  // Not a name s3rver lists: its object files end in `._S3rver_object`.
  const partial = `${objectPath}.${randomUUID()}.part`;
  const md5 = createHash("md5");
  let size = 0;
  const count = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      md5.update(chunk);
      size += chunk.length;
      callback(null, chunk);
    },
  });
  const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
  try {
    await pipeline(content, count, createWriteStream(partial));
    await rename(partial, objectPath);
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
  const digest = md5.digest("hex");
  await this.putMetadata(object.bucket, object.key, object.metadata, digest);
  return { size, md5: digest };
};

/** An S3-compatible server (s3rver) on a free loopback port, with the buckets a test asked for. */
export interface TestS3 {
  /** `http://127.0.0.1:<port>`: use with `forcePathStyle: true`. */
  endpoint: string;
  /** s3rver's fixed credentials. */
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** The settings of `name` on this server, as S3 options take them (renderkit's `s3` and `storage` keys). */
  bucket(name: string): TestBucket;
  /** An SDK client of this server (path style, its credentials); `config` overrides. The caller destroys it. */
  client(config?: S3ClientConfig): S3Client;
  stop(): Promise<void>;
}

/** A bucket of the test server, with everything needed to reach it. */
export interface TestBucket {
  bucket: string;
  endpoint: string;
  region: string;
  forcePathStyle: true;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Starts s3rver in this process, its files in a fresh temporary directory, with `buckets` created. */
export async function startS3(buckets: string[]): Promise<TestS3> {
  const directory = mkdtempSync(join(tmpdir(), "renderkit-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    resetOnClose: true,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const address = (await server.run()) as AddressInfo;
  let stopping: Promise<void> | undefined;
  const endpoint = `http://127.0.0.1:${address.port}`;
  const accessKeyId = "S3RVER";
  const secretAccessKey = "S3RVER";
  const region = "us-east-1";
  return {
    endpoint,
    accessKeyId,
    secretAccessKey,
    region,
    bucket: (name) => ({ bucket: name, endpoint, region, forcePathStyle: true, accessKeyId, secretAccessKey }),
    client: (config = {}) =>
      new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey }, ...config }),
    // Once only: s3rver's close handler throws on a second close and the promise never settles.
    stop() {
      stopping ??= (async () => {
        await server.close().catch(() => undefined);
        rmSync(directory, { recursive: true, force: true });
      })();
      return stopping;
    },
  };
}
