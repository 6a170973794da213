import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import S3rver from "s3rver";

/** An S3-compatible server (s3rver) on a free loopback port, with the buckets a test asked for. */
export interface TestS3 {
  /** `http://127.0.0.1:<port>`: use with `forcePathStyle: true`. */
  endpoint: string;
  /** s3rver's fixed credentials. */
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  stop(): Promise<void>;
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
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    region: "us-east-1",
    async stop() {
      await server.close().catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
