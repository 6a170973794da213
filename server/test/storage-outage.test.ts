import { DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { startS3, type TestS3 } from "../../test/helpers/s3.js";
import type { RunningServer } from "../dist/serve.js";
import { api } from "./helpers.js";
import { configOf, PROJECT, settings, useProcesses } from "./processes.js";

/**
 * The server's S3 storage fails under a running server (file mode, storage on an s3rver of the
 * test): a render address answers 503 ServiceUnavailable with Retry-After and a message naming
 * neither bucket nor endpoint, never the storage's own status as if the client were wrong; the
 * process stays up.
 */

const { cleanup, fresh, server } = useProcesses("renderkit-storage-outage-");

/** A name that appears nowhere else, so a message naming the bucket is caught. */
const BUCKET = "outage-bucket-7f3a";

/** An s3rver of one test, stopped after it (also when the test stopped it already). */
async function s3Server(): Promise<TestS3> {
  const s3 = await startS3([BUCKET]);
  cleanup.push(() => s3.stop());
  return s3;
}

/** A file-mode server keeping its renders in `s3`'s bucket; one PNG rendered (sync). */
async function serverWithRender(s3: TestS3): Promise<{ running: RunningServer; renderUrl: string; key: string }> {
  const dataDir = await fresh("server");
  const running = await server(await configOf(settings(dataDir, { storage: { kind: "s3", ...s3.bucket(BUCKET) } })));
  const answer = await api(running.url, "/v1/render/sync", {
    key: PROJECT.secretKey,
    json: { html: "<p>stored</p>", format: "png", width: 160, height: 120 },
  });
  expect(answer.status, answer.text).toBe(200);
  const renderUrl = answer.body.renderUrl as string;
  expect(renderUrl.startsWith(`${running.url}/renders/`)).toBe(true);
  // While the storage works, the address hands out the object (a presigned redirect).
  const working = await fetch(renderUrl, { redirect: "manual" });
  await working.arrayBuffer();
  expect(working.status).toBe(302);
  return { running, renderUrl, key: renderUrl.slice(renderUrl.lastIndexOf("/") + 1) };
}

/** The render address answers the generic 503 body, naming nothing of the storage. */
async function expectUnavailable(running: RunningServer, renderUrl: string, s3: TestS3): Promise<void> {
  const response = await fetch(renderUrl, { redirect: "manual" });
  const text = await response.text();
  expect(response.status, text).toBe(503);
  expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(JSON.parse(text)).toEqual({
    error: { code: "ServiceUnavailable", message: expect.any(String) },
    requestId: expect.any(String),
  });
  const { message } = (JSON.parse(text) as { error: { message: string } }).error;
  for (const leak of [BUCKET, s3.endpoint, new URL(s3.endpoint).host, new URL(s3.endpoint).port]) {
    expect(message).not.toContain(leak);
  }
  expect((await fetch(`${running.url}/health`)).status).toBe(200);
}

describe("the server's storage fails", () => {
  it("S3 unreachable: the render address answers 503 ServiceUnavailable with Retry-After; /health stays 200", async () => {
    const s3 = await s3Server();
    const { running, renderUrl } = await serverWithRender(s3);
    await s3.stop();
    await expectUnavailable(running, renderUrl, s3);
  });

  it("the bucket gone (S3 answers 404 NoSuchBucket): 503 as well, not a 404 of the client's", async () => {
    const s3 = await s3Server();
    const { running, renderUrl, key } = await serverWithRender(s3);
    const client = s3.client();
    cleanup.push(async () => client.destroy());
    const listed = await client.send(new ListObjectsV2Command({ Bucket: BUCKET }));
    const keys = (listed.Contents ?? []).map((o) => o.Key ?? "");
    expect(
      keys.some((k) => k.endsWith(key)),
      `no object ending in ${key} among ${keys.join(", ")}`,
    ).toBe(true);
    // s3rver deletes only an empty bucket.
    for (const k of keys) await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: k }));
    await client.send(new DeleteBucketCommand({ Bucket: BUCKET }));
    await expectUnavailable(running, renderUrl, s3);
  });
});
