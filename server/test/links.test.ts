import { createHmac } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenLocal, PROJECT_A, PROJECT_B, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;

beforeAll(async () => {
  site = await listenLocal((req) => ({ body: `<body style="margin:0;background:rgb(255,0,0)"><p>${req.url}</p></body>` }));
  server = await startTestServer({
    projects: [
      { ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } },
      { ...PROJECT_B, rateLimit: { requests: 1000, perSeconds: 60 }, allowTokenless: true },
    ],
  });
});
afterAll(async () => {
  await server?.close();
  await site.close();
});

/** A link's token: the HMAC-SHA256 of `<format>?<query>` (docs/api.md). */
const sign = (query: string, format = "png", key = PROJECT_A.secretKey) =>
  createHmac("sha256", key).update(`${format}?${query}`).digest("hex");

async function link(path: string, method = "GET") {
  const response = await fetch(`${server.url}${path}`, { method });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: { error?: { code?: string } } | undefined;
  try {
    body = JSON.parse(bytes.toString());
  } catch {}
  return { response, bytes, body };
}

describe("render links", () => {
  it("render with a SHA-256 token and answer the bytes with the right type", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/link`)}&width=300&height=200`;
    const { response, bytes } = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
    expect(response.headers.get("x-render-id")).toMatch(/_l$/);
    const meta = await sharp(bytes).metadata();
    expect([meta.width, meta.height]).toEqual([300, 200]);
  });

  it("take the format from the path, covered by the token, and answer HEAD", async () => {
    // SHA-1 and query-only tokens are legacy now (security-links.test.ts).
    const query = `url=${encodeURIComponent(`${site.url}/jpg`)}`;
    const { response, bytes } = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query, "jpg")}/jpg?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    const head = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query, "pdf")}/pdf?${query}`, "HEAD");
    expect(head.response.status).toBe(200);
    expect(head.response.headers.get("content-type")).toBe("application/pdf");
    expect(head.bytes.length).toBe(0);
  });

  it("hash the query exactly as sent: repeated keys and encoded characters", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/p?a=1&b=%C3%A9 x`)}&hide_selector=%23nothing&click=%23a&click=%23b&download=shot%20one.png`;
    const { response } = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="shot one.png"`);
    expect(site.requests.some((r) => r.url === "/p?a=1&b=%C3%A9%20x" || r.url === "/p?a=1&b=%C3%A9 x")).toBe(true);
    const reordered = `click=%23a&click=%23b&url=${encodeURIComponent(`${site.url}/p?a=1&b=%C3%A9 x`)}&hide_selector=%23nothing&download=shot%20one.png`;
    const mismatch = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${reordered}`);
    expect(mismatch.response.status).toBe(401);
    expect(mismatch.body?.error?.code).toBe("TokenNotMatchedError");
  });

  it("name a download outside ASCII in RFC 8187 form, and report odd option names without failing", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/u`)}&download=%D0%BA%D0%BB.png&%D0%BA=1`;
    const { response } = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="__.png"; filename*=UTF-8''%D0%BA%D0%BB.png`);
    expect(response.headers.get("x-ignored-options")).toBe("%D0%BA");
  });

  it("refuse wrong tokens, another project's key, no query and bad escapes", async () => {
    const query = `url=${encodeURIComponent(site.url)}`;
    expect((await link(`/v1/${PROJECT_A.publishableKey}/${"0".repeat(64)}/png?${query}`)).body?.error?.code).toBe(
      "TokenNotMatchedError",
    );
    expect(
      (await link(`/v1/${PROJECT_A.publishableKey}/${sign(query, "png", PROJECT_B.secretKey)}/png?${query}`)).body?.error?.code,
    ).toBe("TokenNotMatchedError");
    expect((await link(`/v1/pk_unknown/${sign(query)}/png?${query}`)).response.status).toBe(401);
    const none = await link(`/v1/${PROJECT_A.publishableKey}/${sign("")}/png`);
    expect(none.response.status).toBe(400);
    expect(none.body?.error?.code).toBe("NoQuerySent");
    const bad = "url=%zz";
    const badEscape = await link(`/v1/${PROJECT_A.publishableKey}/${sign(bad)}/png?${bad}`);
    expect(badEscape.response.status).toBe(400);
    expect(badEscape.body?.error?.code).toBe("InvalidQuery");
  });

  it("serve tokenless links only to projects that allow them", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/tokenless`)}`;
    const refused = await link(`/v1/${PROJECT_A.publishableKey}/png?${query}`);
    expect(refused.response.status).toBe(400);
    expect(refused.body?.error?.code).toBe("TokenlessRequestsNotEnabled");
    const allowed = await link(`/v1/${PROJECT_B.publishableKey}/png?${query}`);
    expect(allowed.response.status).toBe(200);
    expect(allowed.response.headers.get("content-type")).toBe("image/png");
  });

  it("refuse s3_presigned_url by every spelling: 400 InvalidOptions naming it, nothing rendered or uploaded", async () => {
    const upload = await listenLocal(() => ({ status: 200, body: "" }));
    try {
      // An address the server may reach (loopback is allowed): only the link check stops the upload.
      const local = `${upload.url}/bucket/x.png?X-Amz-Signature=abc`;
      const queries = [
        // The hyphen spelling, which the options parser reads as s3_presigned_url.
        `url=${encodeURIComponent(`${site.url}/presigned-local`)}&s3-presigned-url=${encodeURIComponent(local)}`,
        `url=${encodeURIComponent(`${site.url}/presigned-external`)}&s3-presigned-url=${encodeURIComponent("https://example.com/x")}`,
        `url=${encodeURIComponent(`${site.url}/presigned-camel`)}&s3PresignedUrl=${encodeURIComponent(local)}`,
      ];
      for (const query of queries) {
        const { response, body } = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
        expect(response.status, query).toBe(400);
        const error = (body as { error: { code: string; message: string } }).error;
        expect(error.code).toBe("InvalidOptions");
        expect(error.message).toMatch(/^Option s3_presigned_url cannot be used with render links/);
      }
      expect(upload.requests).toEqual([]);
      expect(site.requests.filter((r) => r.url.startsWith("/presigned-"))).toEqual([]);
    } finally {
      await upload.close();
    }
  });

  it("refuse use_s3 by every spelling on tokenless links; a signed link takes it to the bucket check", async () => {
    for (const name of ["use_s3", "use-s3", "useS3"]) {
      const query = `url=${encodeURIComponent(`${site.url}/tokenless-s3`)}&${name}=true`;
      const tokenless = await link(`/v1/${PROJECT_B.publishableKey}/png?${query}`);
      expect(tokenless.response.status, name).toBe(400);
      const error = (tokenless.body as { error: { code: string; message: string } }).error;
      expect(error.code, name).toBe("InvalidOptions");
      expect(error.message).toMatch(/^Option use_s3 needs a signed render link or the API/);
    }
    expect(site.requests.filter((r) => r.url === "/tokenless-s3")).toEqual([]);
    // Signed, the option passes the link check: project A has no bucket, which the next check says.
    const query = `url=${encodeURIComponent(`${site.url}/signed-s3`)}&use_s3=true`;
    const signed = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
    expect(signed.response.status).toBe(400);
    expect(signed.body?.error?.code).toBe("NoS3BucketConfigured");
  });
});
