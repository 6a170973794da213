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

const sign = (query: string, algorithm: "sha256" | "sha1" = "sha256", key = PROJECT_A.secretKey) =>
  createHmac(algorithm, key).update(query).digest("hex");

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

  it("accept SHA-1 tokens, the format from the path, and HEAD", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/sha1`)}`;
    const { response, bytes } = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query, "sha1")}/jpg?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(bytes).metadata()).format).toBe("jpeg");
    const head = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query, "sha1")}/pdf?${query}`, "HEAD");
    expect(head.response.status).toBe(200);
    expect(head.response.headers.get("content-type")).toBe("application/pdf");
    expect(head.bytes.length).toBe(0);
  });

  it("hash the query exactly as sent: repeated keys and encoded characters", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/p?a=1&b=%C3%A9 x`)}&hide_selector=%23nothing&click=%23a&click=%23b&download=shot%20one.png`;
    const { response } = await link(`/v1/${PROJECT_A.publishableKey}/${sign(query)}/png?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(
      `attachment; filename="shot one.png"; filename*=UTF-8''shot%20one.png`,
    );
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
      (await link(`/v1/${PROJECT_A.publishableKey}/${sign(query, "sha256", PROJECT_B.secretKey)}/png?${query}`)).body?.error
        ?.code,
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
});
