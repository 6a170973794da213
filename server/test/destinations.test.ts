import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { ConsoleLogger, createRenderer, type RenderEvent } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRenderError } from "../../test/helpers/errors.js";
import { startS3, type TestS3 } from "../../test/helpers/s3.js";
import { api, listenLocal, PROJECT_A, PROJECT_B, startTestServer, type TestServer } from "./helpers.js";

/**
 * Render destinations end to end (issue 10, "S3"): `use_s3` and its options, `s3_presigned_url`,
 * render links, through the real server, checked the way a client would: the object in the
 * bucket, its bytes, type and storage class, and the exact statuses and error bodies. The
 * projects' buckets live in an s3rver of this file; in redis mode the server keeps its own
 * renders in another one (helpers.ts), so a project's bucket is never the server's storage.
 */

type Local = Awaited<ReturnType<typeof listenLocal>>;

/** A third project whose bucket has a public base address (a CDN in front of it). */
const PROJECT_C = {
  id: "gamma",
  secretKey: "sk_test_gamma_0123456789abcdef",
  publishableKey: "pk_test_gamma",
  webhookSecret: "whsec_gamma_0123456789abcdef",
};
const PUBLIC_BASE = "https://files.example.com/gamma";
const rateLimit = { requests: 1000, perSeconds: 60 };
const A = PROJECT_A.secretKey;
const B = PROJECT_B.secretKey;
const C = PROJECT_C.secretKey;
/** The page every render shows: one flat colour, so a pixel proves the bytes are the render. */
const COLOUR = [0, 128, 255];

let s3: TestS3;
let client: S3Client;
let site: Local;
let receiver: Local;
let forbidden: Local;
let server: TestServer;
const events: RenderEvent[] = [];
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  s3 = await startS3(["customer", "other", "public"]);
  cleanup.push(() => s3.stop());
  client = s3.client();
  cleanup.push(async () => client.destroy());
  site = await listenLocal(() => ({
    body: `<body style="margin:0;background:rgb(${COLOUR.join(",")})"></body>`,
  }));
  cleanup.push(() => site.close());
  receiver = await listenLocal(() => ({ status: 200, body: "" }));
  cleanup.push(() => receiver.close());
  // A presigned address whose signature the store refuses.
  forbidden = await listenLocal(() => ({
    status: 403,
    type: "application/xml",
    body: "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>",
  }));
  cleanup.push(() => forbidden.close());
  server = await startTestServer({
    projects: [
      { ...PROJECT_A, s3: { ...s3.bucket("customer"), allowedBuckets: ["other", "missing-bucket"] }, rateLimit },
      { ...PROJECT_B, rateLimit },
      { ...PROJECT_C, s3: { ...s3.bucket("public"), publicBaseUrl: `${PUBLIC_BASE}/`, allowedBuckets: ["other"] }, rateLimit },
    ],
  });
  cleanup.push(() => server.close());
  server.running.renderer.on((event) => {
    events.push(event);
  });
});

afterAll(async () => {
  const failures: unknown[] = [];
  for (const step of cleanup.splice(0).reverse()) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
});

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls the status record until the render ended; returns it. */
// biome-ignore lint/suspicious/noExplicitAny: tests inspect answer bodies freely
async function ended(renderId: string, key = A): Promise<any> {
  let status = await api(server.url, `/v1/render/${renderId}`, { key });
  await until(async () => {
    status = await api(server.url, `/v1/render/${renderId}`, { key });
    return status.body?.status === "succeeded" || status.body?.status === "failed";
  }, `render ${renderId} to end`);
  expect(status.status).toBe(200);
  return status.body;
}

async function getObject(bucket: string, key: string) {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
  return { object, bytes };
}

/** HeadObject, or undefined when the key is not there. */
async function headObject(bucket: string, key: string) {
  try {
    return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
    throw error;
  }
}

/** Decodes a PNG: its size and its top-left pixel. */
async function png(bytes: Buffer): Promise<{ format?: string; size: number[]; pixel: number[] }> {
  const { format } = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { format, size: [info.width, info.height], pixel: [...data.subarray(0, 3)] };
}

/** Follows a render's server address by hand: the 302, then the presigned address. */
async function followRedirect(renderUrl: string, bucket: string, key: string): Promise<Buffer> {
  const first = await fetch(renderUrl, { redirect: "manual" });
  expect(first.status).toBe(302);
  expect(first.headers.get("cache-control")).toBe("private, no-store");
  const target = new URL(first.headers.get("location") ?? "");
  expect(`${target.origin}${target.pathname}`).toBe(`${s3.endpoint}/${bucket}/${key}`);
  expect(target.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
  await first.arrayBuffer();
  const second = await fetch(target);
  expect(second.status).toBe(200);
  expect(second.headers.get("content-type")).toBe("image/png");
  return Buffer.from(await second.arrayBuffer());
}

const page = (path: string) => `${site.url}/${path}`;

describe("use_s3: the project's bucket", () => {
  it("stores shots/home.png in the project bucket; renderUrl is the server address, which redirects to it", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: page("home"), width: 320, height: 200, use_s3: true, s3_path: "shots/home" },
      key: A,
    });
    expect(answer.status, answer.text).toBe(200);
    const { renderId, renderUrl, size } = answer.body;
    expect(renderUrl).toBe(`${server.url}/renders/${renderId}.png`);
    // The spec's fields and the image's own (the page is one colour: `blank`); no key, no location, nothing of the bucket.
    expect(Object.keys(answer.body).sort()).toEqual(
      ["bandwidth", "blank", "height", "queueTime", "renderId", "renderTime", "renderUrl", "size", "truncated", "width"].sort(),
    );
    expect(answer.text).not.toContain("customer");
    const { object, bytes } = await getObject("customer", "alpha/shots/home.png");
    expect(object.ContentType).toBe("image/png");
    expect(bytes.length).toBe(size);
    expect(await png(bytes)).toEqual({ format: "png", size: [320, 200], pixel: COLOUR });
    // Nothing in the other bucket, nothing under the render id.
    expect(await headObject("other", "alpha/shots/home.png")).toBeUndefined();
    expect(await headObject("customer", `alpha/${renderId}.png`)).toBeUndefined();

    expect((await followRedirect(renderUrl, "customer", "alpha/shots/home.png")).equals(bytes)).toBe(true);
    const head = await fetch(renderUrl, { method: "HEAD", redirect: "manual" });
    expect(head.status).toBe(302);
    expect(head.headers.get("location")).toContain(`${s3.endpoint}/customer/alpha/shots/home.png?`);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it("keeps bucket internals out of the status record and the webhook", async () => {
    const created = await api(server.url, "/v1/render/async", {
      json: {
        url: page("async"),
        width: 200,
        height: 120,
        use_s3: true,
        s3_path: "shots/async",
        webhook_url: `${receiver.url}/hook`,
      },
      key: A,
    });
    expect(created.status, created.text).toBe(201);
    const { renderId } = created.body;
    const status = await ended(renderId);
    expect(status).toEqual({
      renderId,
      statusUrl: `${server.url}/v1/render/${renderId}`,
      status: "succeeded",
      renderUrl: `${server.url}/renders/${renderId}.png`,
      size: expect.any(Number),
      renderTime: expect.any(Number),
      queueTime: expect.any(Number),
      bandwidth: expect.any(Number),
      width: 200,
      height: 120,
      truncated: false,
      // The page is one colour: the record and the webhook carry `blank` like the other fields.
      blank: true,
    });
    await until(() => receiver.requests.some((r) => r.body.includes(renderId)), "the webhook");
    const delivery = receiver.requests.find((r) => r.body.includes(renderId));
    const hook = JSON.parse(delivery?.body ?? "{}");
    expect(hook.event).toBe("render.succeeded");
    const { renderId: _id, statusUrl: _url, status: _status, ...result } = status;
    expect(hook.result).toEqual(result);
    for (const text of [JSON.stringify(status), delivery?.body ?? ""]) {
      for (const secret of ["location", "customer", "shots/async", s3.endpoint, s3.accessKeyId, "bucket"]) {
        expect(text).not.toContain(secret);
      }
    }
    const { bytes } = await getObject("customer", "alpha/shots/async.png");
    expect(bytes.length).toBe(status.size);
    expect(await png(bytes)).toEqual({ format: "png", size: [200, 120], pixel: COLOUR });
  });

  it("no_suffix keeps the key exactly; s3_storageclass sets the object's storage class", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: {
        url: page("plain"),
        width: 120,
        height: 110,
        use_s3: true,
        s3_path: "shots/home",
        no_suffix: true,
        s3_storageclass: "standard_ia",
      },
      key: A,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.renderUrl).toBe(`${server.url}/renders/${answer.body.renderId}.png`);
    const head = await headObject("customer", "alpha/shots/home");
    expect(head?.StorageClass).toBe("STANDARD_IA");
    expect(head?.ContentType).toBe("image/png");
    expect(head?.ContentLength).toBe(answer.body.size);
    // The earlier shots/home.png is another object, untouched (320 wide, not 120).
    const { bytes: earlier } = await getObject("customer", "alpha/shots/home.png");
    expect((await png(earlier)).size).toEqual([320, 200]);
    const bytes = await followRedirect(answer.body.renderUrl, "customer", "alpha/shots/home");
    expect(await png(bytes)).toEqual({ format: "png", size: [120, 110], pixel: COLOUR });
  });

  it("s3_bucket overrides the bucket with the project's credentials; the address redirects there", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: page("other"), width: 100, height: 130, use_s3: true, s3_bucket: "other" },
      key: A,
    });
    expect(answer.status, answer.text).toBe(200);
    const { renderId, renderUrl } = answer.body;
    expect(renderUrl).toBe(`${server.url}/renders/${renderId}.png`);
    const { object, bytes } = await getObject("other", `alpha/${renderId}.png`);
    expect(object.ContentType).toBe("image/png");
    expect(await png(bytes)).toEqual({ format: "png", size: [100, 130], pixel: COLOUR });
    expect(await headObject("customer", `alpha/${renderId}.png`)).toBeUndefined();
    expect((await followRedirect(renderUrl, "other", `alpha/${renderId}.png`)).equals(bytes)).toBe(true);
  });

  it("cdn_host and a project's publicBaseUrl make renderUrl a lasting public address of the key", async () => {
    const cdn = await api(server.url, "/v1/render/sync", {
      json: { url: page("cdn"), width: 100, height: 100, use_s3: true, s3_path: "cdn/one", cdn_host: "cdn.example.com" },
      key: A,
    });
    expect(cdn.status).toBe(200);
    expect(cdn.body.renderUrl).toBe("https://cdn.example.com/alpha/cdn/one.png");
    const { bytes } = await getObject("customer", "alpha/cdn/one.png");
    expect(await png(bytes)).toEqual({ format: "png", size: [100, 100], pixel: COLOUR });

    const base = await api(server.url, "/v1/render/sync", {
      json: { url: page("public"), width: 100, height: 100, use_s3: true, s3_path: "pub/one" },
      key: C,
    });
    expect(base.status).toBe(200);
    expect(base.body.renderUrl).toBe(`${PUBLIC_BASE}/gamma/pub/one.png`);
    expect((await headObject("public", "gamma/pub/one.png"))?.ContentType).toBe("image/png");

    // The public base address is the project bucket's: another bucket gets the server address.
    const elsewhere = await api(server.url, "/v1/render/sync", {
      json: { url: page("public-other"), width: 100, height: 100, use_s3: true, s3_bucket: "other", s3_path: "pub/two" },
      key: C,
    });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.renderUrl).toBe(`${server.url}/renders/${elsewhere.body.renderId}.png`);
    expect((await followRedirect(elsewhere.body.renderUrl, "other", "gamma/pub/two.png")).length).toBe(elsewhere.body.size);
  });

  it("HTML in the project bucket is served by the server itself, under the sandboxing CSP, with ranges", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: page("document"), format: "html", use_s3: true, s3_path: "pages/home" },
      key: A,
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.renderUrl).toBe(`${server.url}/renders/${answer.body.renderId}.html`);
    const { object, bytes } = await getObject("customer", "alpha/pages/home.html");
    expect(object.ContentType).toMatch(/^text\/html/);
    const served = await fetch(answer.body.renderUrl, { redirect: "manual" });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-security-policy")).toMatch(/^sandbox;/);
    expect(served.headers.get("content-type")).toMatch(/^text\/html/);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    const ranged = await fetch(answer.body.renderUrl, { headers: { range: "bytes=0-9" } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe(`bytes 0-9/${bytes.length}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
  });

  it("a bucket override that does not exist: 400 NoS3BucketConfigured naming s3_bucket, no host or credentials", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: page("missing"), use_s3: true, s3_bucket: "missing-bucket" },
      key: A,
    });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.error.code).toBe("NoS3BucketConfigured");
    expect(answer.body.error.message).toMatch(/^Option s3_bucket names a bucket that does not exist/);
    expect(answer.body.error.message).toContain("NoSuchBucket");
    for (const leak of [s3.endpoint, new URL(s3.endpoint).host, s3.accessKeyId]) expect(answer.text).not.toContain(leak);
  });

  it("a bucket the project's config does not list: 400 InvalidOptions naming s3_bucket, before anything renders", async () => {
    const before = events.length;
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: page("unlisted"), use_s3: true, s3_bucket: "public" },
      key: A,
    });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body.error.code).toBe("InvalidOptions");
    expect(answer.body.error.message).toMatch(/^Option s3_bucket names a bucket this project may not write/);
    expect(events.slice(before)).toEqual([]);
    expect(site.requests.some((r) => r.url === "/unlisted")).toBe(false);
  });
});

describe("refused at submit time", () => {
  it("use_s3 without a project bucket: 400 NoS3BucketConfigured on sync and async, nothing queued", async () => {
    const before = events.length;
    for (const path of ["/v1/render/sync", "/v1/render/async"]) {
      const answer = await api(server.url, path, { json: { url: page("nobucket"), use_s3: true }, key: B });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({
        error: { code: "NoS3BucketConfigured", message: expect.stringContaining("use_s3") },
        requestId: expect.any(String),
      });
      expect(answer.body.renderId).toBeUndefined();
    }
    // No render was created: no event, and the page was never asked for.
    expect(events.slice(before)).toEqual([]);
    expect(site.requests.some((r) => r.url === "/nobucket")).toBe(false);
  });

  it("refuses storage options that cannot work, naming the option", async () => {
    const refused = async (json: Record<string, unknown>, code: string, option: string) => {
      const answer = await api(server.url, "/v1/render/sync", { json: { url: page("refused"), ...json }, key: A });
      expect(answer.status, JSON.stringify(json)).toBe(400);
      expect(answer.body.error.code, JSON.stringify(json)).toBe(code);
      expect(answer.body.error.message, JSON.stringify(json)).toContain(option);
    };
    const before = events.length;
    await refused({ s3_path: "shots/x" }, "InvalidOptions", "s3_path");
    await refused({ s3_storageclass: "standard_ia" }, "InvalidOptions", "s3_storageclass");
    await refused({ use_s3: true, s3_path: "../x" }, "InvalidOptions", "s3_path");
    await refused({ use_s3: true, s3_path: "a b" }, "InvalidOptions", "s3_path");
    await refused({ use_s3: true, s3_endpoint: "http://10.1.2.3:9000" }, "InvalidOptions", "s3_endpoint");
    await refused({ use_s3: true, s3_storageclass: "cold" }, "InvalidOptions", "storageclass");
    expect(events.slice(before)).toEqual([]);
  });

  it("names s3_storageclass, spelled as in the catalogue, when the class is unknown", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: page("refused"), use_s3: true, s3_storageclass: "cold" },
      key: A,
    });
    expect(answer.body.error.message).toMatch(/^Option s3_storageclass /);
  });
});

describe("s3_presigned_url", () => {
  it("uploads the render with PUT to the caller's address; renderUrl is that address without its query", async () => {
    const signed = await getSignedUrl(client, new PutObjectCommand({ Bucket: "other", Key: "uploads/x.png" }), {
      expiresIn: 600,
    });
    const created = await api(server.url, "/v1/render/async", {
      json: { url: page("presigned"), width: 160, height: 100, s3_presigned_url: signed },
      key: A,
    });
    expect(created.status, created.text).toBe(201);
    const status = await ended(created.body.renderId);
    expect(status.status, status.reason).toBe("succeeded");
    expect(status.renderUrl).toBe(`${s3.endpoint}/other/uploads/x.png`);
    expect(JSON.stringify(status)).not.toContain("X-Amz-");
    const { object, bytes } = await getObject("other", "uploads/x.png");
    expect(object.ContentType).toBe("image/png");
    expect(bytes.length).toBe(status.size);
    expect(await png(bytes)).toEqual({ format: "png", size: [160, 100], pixel: COLOUR });
  });

  it("refuses it with use_s3 and toward a private address that is not allowed", async () => {
    const signed = await getSignedUrl(client, new PutObjectCommand({ Bucket: "other", Key: "uploads/y.png" }), {
      expiresIn: 600,
    });
    const both = await api(server.url, "/v1/render/sync", {
      json: { url: page("both"), use_s3: true, s3_presigned_url: signed },
      key: A,
    });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe("InvalidOptions");
    expect(both.body.error.message).toContain("s3_presigned_url");
    const internal = await api(server.url, "/v1/render/async", {
      json: { url: page("internal"), s3_presigned_url: "http://10.1.2.3:9000/bucket/x.png?X-Amz-Signature=abc" },
      key: A,
    });
    expect(internal.status).toBe(400);
    expect(internal.body.error.code).toBe("InvalidOptions");
    expect(internal.body.error.message).toContain("s3_presigned_url");
    expect(await headObject("other", "uploads/y.png")).toBeUndefined();
  });

  it("fails the render when the address answers 403, without leaking its query", async () => {
    const secret = "f00dfacecafe0123456789abcdef";
    const address = `${forbidden.url}/bucket/denied.png?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Signature=${secret}`;
    const created = await api(server.url, "/v1/render/async", {
      json: { url: page("denied"), width: 100, height: 100, s3_presigned_url: address },
      key: A,
    });
    expect(created.status, created.text).toBe(201);
    const status = await ended(created.body.renderId);
    expect(status.status).toBe("failed");
    expect(status.reason).toMatch(/\b403\b/);
    for (const leak of [secret, "AKIDEXAMPLE", "X-Amz-"]) expect(JSON.stringify(status)).not.toContain(leak);
    const put = forbidden.requests.find((r) => r.url.startsWith("/bucket/denied.png?"));
    expect(put?.headers["content-type"]).toBe("image/png");
  });
});

describe("render links", () => {
  const sign = (query: string) => createHmac("sha256", PROJECT_A.secretKey).update(`png?${query}`).digest("hex");

  it("with use_s3: 200 with the PNG, the same bytes as the object in the project bucket", async () => {
    const query = `url=${encodeURIComponent(page("link"))}&width=150&height=140&use_s3=true&s3_path=link/one`;
    const response = await fetch(`${server.url}/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(response.status, bytes.toString()).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
    const { bytes: stored } = await getObject("customer", "alpha/link/one.png");
    expect(bytes.equals(stored)).toBe(true);
    expect(await png(bytes)).toEqual({ format: "png", size: [150, 140], pixel: COLOUR });
  });

  it("with s3_presigned_url: 400 InvalidOptions", async () => {
    const signed = await getSignedUrl(client, new PutObjectCommand({ Bucket: "other", Key: "uploads/link.png" }), {
      expiresIn: 600,
    });
    const query = `url=${encodeURIComponent(page("link-presigned"))}&s3_presigned_url=${encodeURIComponent(signed)}`;
    const response = await fetch(`${server.url}/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("InvalidOptions");
    expect(body.error.message).toContain("s3_presigned_url");
    expect(await headObject("other", "uploads/link.png")).toBeUndefined();
  });
});

describe("library use (no server, no destination setting)", () => {
  it("refuses use_s3 with NoS3BucketConfigured and s3_presigned_url with InvalidOptions", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "renderkit-destinations-"));
    try {
      const renderer = await createRenderer({
        plugins: [playwright(), imageFormats()],
        dataDir,
        logger: new ConsoleLogger("silent"),
      });
      try {
        const html = "<p>library</p>";
        const noBucket = await expectRenderError(renderer.render({ html, use_s3: true }), "NoS3BucketConfigured");
        expect(noBucket.details).toEqual({ option: "use_s3" });
        const presigned = await expectRenderError(
          renderer.render({ html, s3_presigned_url: "https://bucket.example.com/x.png?X-Amz-Signature=abc" }),
          "InvalidOptions",
        );
        expect(presigned.details).toEqual({ option: "s3_presigned_url" });
      } finally {
        await renderer.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
