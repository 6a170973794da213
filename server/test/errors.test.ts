import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, PROJECT_B, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
const A = PROJECT_A.secretKey;

beforeAll(async () => {
  site = await listenLocal(() => ({ body: "<h1>ok</h1>" }));
  server = await startTestServer({
    projects: [
      { ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 }, formats: ["png", "jpg", "pdf"] },
      { ...PROJECT_B, rateLimit: { requests: 2, perSeconds: 60 } },
      {
        id: "off",
        secretKey: "sk_test_disabled_0123456789",
        publishableKey: "pk_test_off",
        webhookSecret: "whsec_off_0123456789abcdef",
        enabled: false,
      },
    ],
    maxBodyBytes: 4096,
  });
});
afterAll(async () => {
  await server?.close();
  await site.close();
});

function expectError(
  answer: { status: number; body: { error?: { code?: string; message?: string }; requestId?: string }; headers: Headers },
  status: number,
  code?: string,
) {
  expect(answer.status).toBe(status);
  expect(answer.body.error?.message).toEqual(expect.any(String));
  if (code) expect(answer.body.error?.code).toBe(code);
  expect(answer.body.requestId).toMatch(/^req_/);
  expect(answer.headers.get("x-request-id")).toBe(answer.body.requestId);
}

describe("authentication", () => {
  it("refuses a missing key with 401 NoApiKeySupplied", async () => {
    expectError(await api(server.url, "/v1/render/sync", { json: { url: site.url } }), 401, "NoApiKeySupplied");
  });
  it("refuses a malformed Authorization header with 401 ApiKeyWrongFormat", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: site.url },
      headers: { authorization: `Basic ${A}` },
    });
    expectError(answer, 401, "ApiKeyWrongFormat");
  });
  it("refuses an unknown key with 401 ApiKeyNotFound and never echoes it", async () => {
    const answer = await api(server.url, "/v1/render/sync", { json: { url: site.url }, key: "sk_test_unknown_0123456789abcdef" });
    expectError(answer, 401, "ApiKeyNotFound");
    expect(answer.text).not.toContain("sk_test_unknown");
  });
  it("refuses a disabled project with 401 ProjectNotEnabled", async () => {
    expectError(
      await api(server.url, "/v1/render/async", { json: { url: site.url }, key: "sk_test_disabled_0123456789" }),
      401,
      "ProjectNotEnabled",
    );
  });
  it("requires the key for status lookups too", async () => {
    expectError(await api(server.url, "/v1/render/some-id"), 401, "NoApiKeySupplied");
  });
});

describe("bad requests", () => {
  const cases: [string, unknown, string][] = [
    ["no url or html", { format: "png" }, "NoUrlSupplied"],
    ["a url that is not a string", { url: 42 }, "UrlWasNotAStringError"],
    ["html that is not a string", { html: { tag: "p" } }, "HTMLProcessError"],
    ["a javascript: url", { url: "javascript:alert(1)" }, "InvalidURLError"],
    ["a private address", { url: "http://10.0.0.1/" }, "InvalidURLError"],
    ["a host that does not resolve", { url: "http://no-such-host.invalid/" }, "URLDoesNotResolveError"],
    ["a width out of bounds", { url: "http://example.com", width: 99999 }, "InvalidOptions"],
    ["an unknown format", { url: "http://example.com", format: "bmp" }, "InvalidOptions"],
    ["redirect_after out of bounds", { url: "http://example.com", redirect_after: 0 }, "InvalidOptions"],
    ["redirect_after as a boolean", { url: "http://example.com", redirect_after: true }, "InvalidOptions"],
    ["redirect_after in hexadecimal", { url: "http://example.com", redirect_after: "0x5" }, "InvalidOptions"],
    ["a fractional redirect_after", { url: "http://example.com", redirect_after: 2.5 }, "InvalidOptions"],
    ["a width in exponent notation", { url: "http://example.com", width: "1e3" }, "InvalidOptions"],
    ["a private webhook_url", { url: "http://example.com", webhook_url: "http://169.254.169.254/" }, "InvalidOptions"],
  ];
  for (const [what, body, code] of cases) {
    it(`answers 400 ${code} for ${what}`, async () => {
      expectError(await api(server.url, "/v1/render/async", { json: body, key: A }), 400, code);
    });
  }
  it("names the offending option", async () => {
    const answer = await api(server.url, "/v1/render/async", { json: { url: site.url, full_page: "maybe" }, key: A });
    expectError(answer, 400, "InvalidOptions");
    expect(answer.body.error.message).toContain("full_page");
  });
  it("answers 400 for malformed JSON and for a JSON array", async () => {
    expectError(await api(server.url, "/v1/render/async", { json: "{not json", key: A }), 400, "InvalidOptions");
    expectError(await api(server.url, "/v1/render/async", { json: "[1,2]", key: A }), 400, "InvalidOptions");
  });
  it("answers 413 for a body over the limit", async () => {
    expectError(
      await api(server.url, "/v1/render/async", { json: { html: "x".repeat(10_000) }, key: A }),
      413,
      "PayloadTooLarge",
    );
  });
  it("a client that sends its whole body before reading gets the 413, not a reset connection", async () => {
    // As Python's http.client and many others do: the answer is read only once all 30 MiB went out.
    // A server that closed on its 413 at once would reset the upload (EPIPE / ECONNRESET).
    const { port } = new URL(server.url);
    const body = Buffer.alloc(30 * 1024 * 1024, "x");
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1");
      socket.pause();
      let text = "";
      socket.on("error", reject);
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        // The answer is chunked: its last chunk ends it.
        if (text.endsWith("\r\n0\r\n\r\n")) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.write(
        `POST /v1/render/async HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${A}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      socket.write(body, (error) => (error ? reject(error) : socket.resume()));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413/);
    expect(answer).toContain('"code":"PayloadTooLarge"');
    // Read to the end, that connection stays usable.
    expect(answer.toLowerCase()).not.toContain("connection: close");
  });
  it("answers 413 to a chunked body over the limit, closes that connection and stays up", async () => {
    const { port } = new URL(server.url);
    const head = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk: Buffer) => {
        answer += chunk.toString();
      });
      socket.on("error", () => undefined); // the server may cut the upload short
      socket.on("close", () => resolve(answer));
      setTimeout(() => reject(new Error(`no close; got ${answer}`)), 10_000).unref();
      socket.write(
        `POST /v1/render/async HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${A}\r\n` +
          "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      );
      const chunk = "x".repeat(64 * 1024);
      for (let i = 0; i < 4; i++) socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    });
    expect(head).toMatch(/^HTTP\/1\.1 413/);
    expect(head.toLowerCase()).toContain("connection: close");
    expect(head).toContain('"code":"PayloadTooLarge"');
    await new Promise((r) => setTimeout(r, 200));
    expect((await api(server.url, "/health")).status).toBe(200);
  });
  it("answers what Node refuses itself (huge headers, a malformed Content-Length) with the error body", async () => {
    const { port } = new URL(server.url);
    const raw = (request: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(Number(port), "127.0.0.1");
        let answer = "";
        socket.on("data", (chunk: Buffer) => {
          answer += chunk.toString();
        });
        socket.on("error", () => undefined);
        socket.on("close", () => resolve(answer));
        socket.write(request);
      });
    const huge = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(70_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf("\r\n\r\n") + 4))).toMatchObject({ error: { code: "HeadersTooLarge" } });
    const badLength = await raw("POST /v1/render/async HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n");
    expect(badLength).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(badLength.slice(badLength.indexOf("\r\n\r\n") + 4))).toMatchObject({
      error: { code: "BadRequest" },
      requestId: expect.stringMatching(/^req_/),
    });
    expect((await api(server.url, "/health")).status).toBe(200);
  });
  it("answers 400 with the error body for a malformed escape in the path", async () => {
    for (const path of ["/v1/render/%E0%A4%A", "/renders/%E0%A4%A.png", "/nope%E0%A4%A"]) {
      expectError(await api(server.url, path, { key: A }), 400);
    }
  });
  it("answers 400 OptionNotAvailableOnPlan for a format outside the project's plan", async () => {
    expectError(
      await api(server.url, "/v1/render/async", { json: { url: site.url, format: "webp" }, key: A }),
      400,
      "OptionNotAvailableOnPlan",
    );
  });
  it("answers 400 NoRenderIdProvided without an id", async () => {
    expectError(await api(server.url, "/v1/render/", { key: A }), 400, "NoRenderIdProvided");
  });
});

describe("routes", () => {
  it("answers 404 with the error body for unknown routes", async () => {
    expectError(await api(server.url, "/nope/nothing/here/at/all/x", { key: A }), 404, "NotFound");
  });
  it("answers 405 for a wrong method on a known path, with Allow", async () => {
    const get = await api(server.url, "/v1/render/sync", { method: "GET", key: A });
    expectError(get, 405, "MethodNotAllowed");
    expect(get.headers.get("allow")).toBe("POST");
    expectError(await api(server.url, "/v1/render/async", { method: "PUT", key: A }), 405, "MethodNotAllowed");
  });
  it("answers HEAD wherever GET works, with GET's status and no body", async () => {
    for (const path of ["/health", "/ready", "/v1/openapi.json"]) {
      const head = await fetch(`${server.url}${path}`, { method: "HEAD" });
      expect(head.status, path).toBe(200);
      expect(await head.text(), path).toBe("");
    }
    const created = await api(server.url, "/v1/render/async", { json: { html: "<p>x</p>" }, key: A });
    const head = await fetch(`${server.url}/v1/render/${created.body.renderId}`, {
      method: "HEAD",
      headers: { authorization: `Bearer ${A}` },
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toContain("application/json");
    const unknown = await fetch(`${server.url}/v1/render/nope`, { method: "HEAD", headers: { authorization: `Bearer ${A}` } });
    expect(unknown.status).toBe(404);
  });
  it("names ignored options a header cannot carry percent-encoded, never answering 500", async () => {
    const answer = await api(server.url, "/v1/render/async", {
      json: { html: "<p>x</p>", ключ: 1, "a\r\nX-Injected: 1": 2, "😀": 3 },
      key: A,
    });
    expect(answer.status).toBe(201);
    expect(answer.headers.get("x-injected")).toBeNull();
    expect(answer.headers.get("x-ignored-options")).toBe(
      `${encodeURIComponent("ключ")}, ${encodeURIComponent("a\r\nX-Injected: 1")}, ${encodeURIComponent("😀")}`,
    );
  });
  it("serves /health, /ready and the OpenAPI document", async () => {
    expect((await api(server.url, "/health")).status).toBe(200);
    // Without the operator's (metrics) token, only the status: no figures (issue 14, finding 7).
    expect((await api(server.url, "/ready")).body).toEqual({ status: "ready" });
    expect((await api(server.url, "/health", { method: "HEAD" })).status).toBe(200);
    expect((await api(server.url, "/ready")).body.status).toBe("ready");
    const doc = await api(server.url, "/v1/openapi.json");
    expect(doc.body.openapi).toBe("3.1.0");
    const props = doc.body.components.schemas.RenderRequest.properties;
    expect(props.width).toMatchObject({ type: "integer", minimum: 100, maximum: 4000, default: 1280 });
    expect(props.full_page).toMatchObject({ type: "boolean", default: false });
    // The server's own options, with this server's bounds (maxRedirectAfter 95 by default).
    expect(props.redirect_after).toMatchObject({ type: "integer", minimum: 1, maximum: 95, default: 95 });
    expect(props.webhook_url.description).not.toContain("not yet used");
    for (const path of ["/v1/render/sync/{renderId}", "/v1/render", "/v1/screenshot", "/v1/{publishableKey}/{token}/{format}"]) {
      expect(doc.body.paths[path], path).toBeDefined();
    }
  });
  it("answers 404 at an unknown render address", async () => {
    expectError(await api(server.url, "/renders/00000000-0000-4000-8000-000000000000.png"), 404);
  });
});

describe("rate limits", () => {
  it("counts per project, sends the headers and answers 429 with Retry-After", async () => {
    const key = PROJECT_B.secretKey;
    const first = await api(server.url, "/v1/render/async", { json: { html: "<p>1</p>" }, key });
    expect(first.status).toBe(201);
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
    // Status lookups report the limit without using it up.
    for (let i = 0; i < 3; i++) {
      const status = await api(server.url, `/v1/render/${first.body.renderId}`, { key });
      expect(status.status).toBe(200);
      expect(status.headers.get("x-ratelimit-limit")).toBe("2");
      expect(status.headers.get("x-ratelimit-remaining")).toBe("1");
    }
    expect((await api(server.url, "/v1/render/async", { json: { html: "<p>2</p>" }, key })).status).toBe(201);
    const third = await api(server.url, "/v1/render/async", { json: { html: "<p>3</p>" }, key });
    expectError(third, 429, "RateLimitExceededError");
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(third.headers.get("x-ratelimit-remaining")).toBe("0");
    const other = await api(server.url, "/v1/render/async", { json: { html: "<p>a</p>" }, key: A });
    expect(other.status).toBe(201);
  });
});
