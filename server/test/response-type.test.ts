import { createHmac } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
const A = PROJECT_A.secretKey;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

beforeAll(async () => {
  site = await listenLocal((req) => {
    if (req.url?.startsWith("/slow")) return { body: `<body style="margin:0;background:rgb(0,255,0)"></body>`, delayMs: 3500 };
    if (req.url?.startsWith("/missing")) return { status: 404, body: "<h1>gone</h1>" };
    if (req.url?.startsWith("/empty")) return { body: "<html></html>" };
    return { body: `<body style="margin:0;background:rgb(255,0,0)"><h1>${req.url}</h1></body>` };
  });
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await site.close();
});

/** Calls `path` and keeps the raw bytes (the helpers' `api` reads text). */
async function raw(path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${path}`, { redirect: "manual", ...init });
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}
const syncBinary = (body: Record<string, unknown>, path = "/v1/render/sync") =>
  raw(path, {
    method: "POST",
    headers: { authorization: `Bearer ${A}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
/** The stored render at `renderUrl` (the server's storage, or S3 through the 302 in redis mode). */
const stored = async (renderUrl: string) => Buffer.from(await (await fetch(renderUrl)).arrayBuffer());
const sign = (query: string, format: string) => createHmac("sha256", A).update(`${format}?${query}`).digest("hex");
const linkPath = (query: string, format = "png") => `/v1/${PROJECT_A.publishableKey}/${sign(query, format)}/${format}?${query}`;
const linkQuery = (page: string, extra = "") => `url=${encodeURIComponent(`${site.url}${page}`)}&width=320&height=240${extra}`;

async function expectRedPng(bytes: Buffer, width: number, height: number) {
  expect(bytes.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
  expect([info.width, info.height]).toEqual([width, height]);
  expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]);
}

function expectInvalid(status: number, text: string, message: RegExp) {
  expect(status).toBe(400);
  const body = JSON.parse(text);
  expect(body.error.code).toBe("InvalidOptions");
  expect(body.error.message).toMatch(message);
}

describe("response_type on POST /v1/render/sync", () => {
  it("binary answers the render's bytes with their type, the same bytes as the stored render", async () => {
    const { response, bytes } = await syncBinary({ url: `${site.url}/binary`, width: 300, height: 200, response_type: "binary" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
    expect(response.headers.get("x-render-id")).toMatch(/_s$/);
    expect(Number(response.headers.get("x-render-size"))).toBe(bytes.length);
    expect(response.headers.get("x-render-width")).toBe("300");
    expect(Number(response.headers.get("x-render-time"))).toBeGreaterThan(0);
    await expectRedPng(bytes, 300, 200);
    const url = response.headers.get("x-render-url") as string;
    expect(url).toMatch(/\.png$/);
    expect((await stored(url)).equals(bytes)).toBe(true);
  });

  it("base64 answers the bytes as text/plain, decoding to the stored render (also on the /v1/screenshot alias, as a form)", async () => {
    const { response, bytes } = await raw("/v1/screenshot", {
      method: "POST",
      headers: { authorization: `Bearer ${A}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ url: `${site.url}/base64`, format: "pdf", responseType: "BASE64" }).toString(),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = bytes.toString("ascii");
    expect(text).toMatch(/^[A-Za-z0-9+/]+=*$/);
    expect(Number(response.headers.get("content-length"))).toBe(text.length);
    const decoded = Buffer.from(text, "base64");
    expect(decoded.subarray(0, 5).toString()).toBe("%PDF-");
    expect(decoded.length).toBe(Number(response.headers.get("x-render-size")));
    expect((await stored(response.headers.get("x-render-url") as string)).equals(decoded)).toBe(true);
  });

  it("X-Render-Blank says a render is one colour, for images and pdf; a render with content has no such header", async () => {
    for (const format of ["png", "pdf"]) {
      const empty = await syncBinary({ url: `${site.url}/empty`, format, width: 320, height: 240, response_type: "none" });
      expect(empty.response.status).toBe(200);
      expect(empty.response.headers.get("x-render-blank"), format).toBe("true");
      const json = await api(server.url, "/v1/render/sync", {
        json: { url: `${site.url}/empty`, format, width: 320, height: 240 },
        key: A,
      });
      expect(json.body.blank, format).toBe(true);
      const content = await syncBinary({ url: `${site.url}/content`, format, width: 320, height: 240, response_type: "binary" });
      expect(content.response.status).toBe(200);
      expect(content.response.headers.has("x-render-blank"), format).toBe(false);
    }
  });

  it("none answers 200 with an empty body; the headers carry the render", async () => {
    const { response, bytes } = await syncBinary({ url: `${site.url}/none`, width: 320, height: 240, response_type: "none" });
    expect(response.status).toBe(200);
    expect(bytes.length).toBe(0);
    expect(response.headers.get("content-length")).toBe("0");
    expect(response.headers.get("x-render-id")).toMatch(/_s$/);
    await expectRedPng(await stored(response.headers.get("x-render-url") as string), 320, 240);
  });

  it("is published in the OpenAPI document with its values", async () => {
    const doc = await api(server.url, "/v1/openapi.json");
    const spec = doc.body.components.schemas.RenderRequest.properties.response_type;
    expect(spec).toMatchObject({ type: "string", enum: ["json", "binary", "base64", "none"] });
    expect(spec.description).toContain("jsondebug");
  });

  it("json stays the default and is accepted by name", async () => {
    for (const body of [{ html: "<p>a</p>" }, { html: "<p>b</p>", response_type: "json" }]) {
      const answer = await api(server.url, "/v1/render/sync", { json: body, key: A });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(answer.body.renderUrl).toMatch(/\.png$/);
    }
  });

  it("refuses bad values, jsondebug, and bytes with s3_presigned_url: 400 naming response_type, nothing rendered", async () => {
    const bad = await api(server.url, "/v1/render/sync", { json: { url: `${site.url}/refused`, response_type: "xml" }, key: A });
    expectInvalid(bad.status, bad.text, /^Option response_type must be one of json, binary, base64, none/);
    const debug = await api(server.url, "/v1/render/sync", {
      json: { url: `${site.url}/refused`, responseType: "jsondebug" },
      key: A,
    });
    expectInvalid(debug.status, debug.text, /^Option response_type jsondebug is not supported/);
    const presigned = await api(server.url, "/v1/render/sync", {
      json: {
        url: `${site.url}/refused`,
        response_type: "binary",
        s3_presigned_url: "https://example.com/b/x.png?X-Amz-Signature=a",
      },
      key: A,
    });
    expectInvalid(presigned.status, presigned.text, /^Option response_type binary cannot be used with s3_presigned_url/);
    expect(site.requests.filter((r) => r.url === "/refused")).toEqual([]);
  });

  it("errors stay JSON with their status whatever the response_type", async () => {
    const failed = await syncBinary({ url: `${site.url}/missing`, fail_on_4xx: true, response_type: "binary" });
    expect(failed.response.status).toBe(500);
    expect(failed.response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(JSON.parse(failed.bytes.toString()).error.code).toBe("EngineResponseNotOkError");
    const unauthorised = await raw("/v1/render/sync", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ html: "<p>x</p>", response_type: "base64" }),
    });
    expect(unauthorised.response.status).toBe(401);
    expect(JSON.parse(unauthorised.bytes.toString()).error.code).toBe("NoApiKeySupplied");
  });

  it("a slow render still gets the 307, and its redirect address answers in the same response_type", async () => {
    const first = await syncBinary({
      url: `${site.url}/slow`,
      width: 200,
      height: 100,
      redirect_after: 1,
      response_type: "binary",
    });
    expect(first.response.status).toBe(307);
    const location = first.response.headers.get("location") as string;
    expect(location).toMatch(new RegExp(`^${server.url}/v1/render/sync/.+_s$`));
    expect(JSON.parse(first.bytes.toString())).toEqual({ redirectUrl: location });
    const path = new URL(location).pathname;
    let done = await raw(path, { headers: { authorization: `Bearer ${A}` } });
    for (let i = 0; i < 10 && done.response.status === 307; i++) {
      done = await raw(path, { headers: { authorization: `Bearer ${A}` } });
    }
    expect(done.response.status).toBe(200);
    expect(done.response.headers.get("content-type")).toBe("image/png");
    expect(done.response.headers.get("x-render-id")).toBe(path.split("/").pop());
    const { data, info } = await sharp(done.bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, data[0], data[1], data[2]]).toEqual([200, 100, 0, 255, 0]);
    // Once ended, the address answers at once, again in the same type (POST, as redirect-following clients send).
    const again = await raw(path, { method: "POST", headers: { authorization: `Bearer ${A}` } });
    expect(again.response.status).toBe(200);
    expect(again.bytes.equals(done.bytes)).toBe(true);
  });
});

describe("response_type on POST /v1/render/async", () => {
  it("refuses binary and base64, pointing to sync and render links", async () => {
    for (const type of ["binary", "base64"]) {
      const answer = await api(server.url, "/v1/render/async", {
        json: { url: `${site.url}/async-refused`, response_type: type },
        key: A,
      });
      expectInvalid(
        answer.status,
        answer.text,
        new RegExp(`^Option response_type ${type} needs the bytes.*/v1/render/sync.*render link`),
      );
    }
    expect(site.requests.filter((r) => r.url === "/async-refused")).toEqual([]);
  });

  it("none answers 201 with an empty body, the id and the status address in headers", async () => {
    const { response, bytes } = await syncBinary({ url: `${site.url}/async-none`, response_type: "none" }, "/v1/render/async");
    expect(response.status).toBe(201);
    expect(bytes.length).toBe(0);
    const renderId = response.headers.get("x-render-id") as string;
    expect(response.headers.get("location")).toBe(`${server.url}/v1/render/${renderId}`);
    let status = await api(server.url, `/v1/render/${renderId}`, { key: A });
    for (let i = 0; i < 150 && status.body.status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await api(server.url, `/v1/render/${renderId}`, { key: A });
    }
    expect(status.body.status).toBe("succeeded");
  });
});

describe("response_type on render links", () => {
  it("binary is the default; json answers the result; base64 and none as on the API", async () => {
    const binary = await raw(linkPath(linkQuery("/link-binary")));
    expect(binary.response.status).toBe(200);
    expect(binary.response.headers.get("content-type")).toBe("image/png");
    await expectRedPng(binary.bytes, 320, 240);

    const json = await raw(linkPath(linkQuery("/link-json", "&response_type=json")));
    expect(json.response.status).toBe(200);
    expect(json.response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(json.response.headers.get("content-length"))).toBe(json.bytes.length);
    const result = JSON.parse(json.bytes.toString());
    expect(result).toMatchObject({ renderId: expect.stringMatching(/_l$/), size: expect.any(Number), width: 320 });
    await expectRedPng(await stored(result.renderUrl), 320, 240);

    const base64 = await raw(linkPath(linkQuery("/link-base64", "&response_type=base64"), "jpg"));
    expect(base64.response.headers.get("content-type")).toMatch(/^text\/plain/);
    const decoded = Buffer.from(base64.bytes.toString("ascii"), "base64");
    expect((await sharp(decoded).metadata()).format).toBe("jpeg");
    expect((await stored(base64.response.headers.get("x-render-url") as string)).equals(decoded)).toBe(true);

    const none = await raw(linkPath(linkQuery("/link-none", "&responseType=none")));
    expect([none.response.status, none.bytes.length]).toEqual([200, 0]);
    expect(none.response.headers.get("x-render-id")).toMatch(/_l$/);
  });

  it("HEAD answers the headers of GET with the right content-length and no body", async () => {
    const cases: [string, (size: number) => number][] = [
      ["binary", (size) => size],
      ["base64", (size) => 4 * Math.ceil(size / 3)],
      ["none", () => 0],
    ];
    for (const [type, length] of cases) {
      const head = await raw(linkPath(linkQuery(`/link-head-${type}`, `&response_type=${type}`)), { method: "HEAD" });
      expect(head.response.status, type).toBe(200);
      expect(head.bytes.length, type).toBe(0);
      const size = Number(head.response.headers.get("x-render-size"));
      expect(size, type).toBeGreaterThan(0);
      expect(Number(head.response.headers.get("content-length")), type).toBe(length(size));
    }
    const json = await raw(linkPath(linkQuery("/link-head-json", "&response_type=json")), { method: "HEAD" });
    expect(json.response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(Number(json.response.headers.get("content-length"))).toBeGreaterThan(50);
    expect(json.bytes.length).toBe(0);
  });

  it("download works with binary and is refused with other types; bad values are refused", async () => {
    const named = await raw(linkPath(linkQuery("/link-download", "&download=shot.png")));
    expect(named.response.headers.get("content-disposition")).toBe(`attachment; filename="shot.png"`);
    await expectRedPng(named.bytes, 320, 240);
    const refused = await raw(linkPath(linkQuery("/link-refused", "&download=shot.png&response_type=base64")));
    expectInvalid(refused.response.status, refused.bytes.toString(), /^Option response_type base64 cannot be used with download/);
    const bad = await raw(linkPath(linkQuery("/link-refused", "&response_type=file")));
    expectInvalid(bad.response.status, bad.bytes.toString(), /^Option response_type must be one of/);
    expect(site.requests.filter((r) => r.url === "/link-refused")).toEqual([]);
  });
});
