import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

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
