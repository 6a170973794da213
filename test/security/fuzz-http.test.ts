import "./figures-meta.js";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PROJECT, type ApiServer, startApiServer } from "../helpers/api-server.js";
import { type RawAnswer, rawExchange } from "../helpers/raw-http.js";
import { compactReporter, json, optionObjects, refusedUrl } from "./arbitraries.js";

/**
 * Property-based fuzzing of the running server's HTTP surface: random and broken bodies, form
 * bodies, wrong content types, huge numbers, deep nesting, NUL bytes and invalid UTF-8, random
 * headers and request lines. Every answer is a 4xx with the API's JSON error body (or a 2xx), never
 * a 5xx, and the server stays up. The server runs with its production defaults, so no fuzzed
 * request can render anything: every `url` is refused, no `html` is a renderable string.
 */

const ROUTES = ["/v1/render/sync", "/v1/render/async", "/v1/render", "/v1/screenshot", "/v1/screenshot/async"];
const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/vnd.api+json",
  "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded; charset=latin1",
  "text/plain",
  "text/html",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/octet-stream",
  "",
];

/** The server's body limit (its default, set explicitly): larger bodies are refused with 413. */
const MAX_BODY_BYTES = 6 * 1024 * 1024;

let server: ApiServer;
beforeAll(async () => {
  server = await startApiServer({ maxBodyBytes: MAX_BODY_BYTES });
});
afterAll(() => server?.close());

/** Asserts what every answer must be: a 2xx, or a 4xx whose body is the API's error JSON. */
function expectClientAnswer(status: number, body: string, what: string): void {
  const context = `${what}\n→ ${status} ${body.slice(0, 300)}`;
  if (status >= 200 && status < 300) return;
  expect(status >= 400 && status < 500, context).toBe(true);
  let parsed: { error?: { code?: unknown; message?: unknown } } | undefined;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  expect(typeof parsed?.error?.code, context).toBe("string");
  expect(typeof parsed?.error?.message, context).toBe("string");
}

const auth = fc.oneof(
  { weight: 8, arbitrary: fc.constant(`Bearer ${API_PROJECT.secretKey}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "Bearer",
      "Bearer sk_test_nope",
      `Basic ${Buffer.from(`${API_PROJECT.secretKey}:`).toString("base64")}`,
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: fc.constantFrom(..."abcXYZ019_- "), maxLength: 60 }).map((s) => `Bearer ${s}`) },
);

/**
 * Sends `body` with fetch and checks the answer. Every body gets one, a body over the server's
 * limit too (the server reads and drops the rest before its 413): a failure to get it fails.
 */
async function post(path: string, body: Uint8Array | string, type: string, authorization: string, method = "POST") {
  const headers: Record<string, string> = {};
  if (type) headers["content-type"] = type;
  if (authorization) headers.authorization = authorization;
  const payload = typeof body === "string" ? body : new Uint8Array(body);
  const size = typeof payload === "string" ? Buffer.byteLength(payload) : payload.byteLength;
  const shown = typeof body === "string" ? body.slice(0, 200) : `${body.byteLength} bytes`;
  let response: Response;
  try {
    response = await fetch(`${server.url}${path}`, { method, headers, body: payload, redirect: "manual" });
  } catch (error) {
    throw new Error(`no answer to ${method} ${path} (${type}, ${size} bytes): ${shown}`, { cause: error });
  }
  expectClientAnswer(response.status, await response.text(), `${method} ${path} (${type}): ${shown}`);
}

describe("HTTP bodies and headers", () => {
  let options: fc.Arbitrary<Record<string, unknown>>;
  beforeAll(() => {
    const { renderer } = server.running;
    options = optionObjects(renderer.optionTable, renderer.formats, { urls: refusedUrl, htmlStrings: false });
  });

  it("JSON option objects of every shape, on every render route", async ({ task }) => {
    const runs = 200;
    task.meta.fuzz = { subject: "HTTP bodies and headers", runs };
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), options, auth, async (path, body, authorization) => {
        await post(path, JSON.stringify(body), "application/json", authorization);
      }),
      { numRuns: runs, reporter: compactReporter },
    );
  });

  it("raw bodies: random bytes, broken JSON, forms, huge numbers, deep nesting, NUL bytes, invalid UTF-8", async ({ task }) => {
    const runs = 200;
    task.meta.fuzz = { subject: "HTTP bodies and headers", runs };
    const jsonText = options.map((o) => JSON.stringify(o));
    const broken = fc
      .tuple(jsonText, fc.nat(), fc.constantFrom("", "}", "{", "\u0000", "\uFFFF", '"', ",", "\\"))
      .map(([text, at, insert]) => text.slice(0, at % (text.length + 1)) + insert + text.slice((at % (text.length + 1)) + 1));
    // A form carries no html at all: every value is a string there, and a string html would render.
    const form = options.map((o) => {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(o)) {
        if (k === "html") continue;
        // Megabyte values stay in JSON bodies: percent-encoded, they would make 30 MB uploads here.
        for (const item of (Array.isArray(v) ? v : [v]).filter((i) => typeof i !== "string" || i.length < 200_000)) {
          // JSON text for non-strings: String() of an object with a `toString` key would throw here.
          params.append(Array.isArray(v) ? `${k}[]` : k, typeof item === "string" ? item : (JSON.stringify(item) ?? ""));
        }
      }
      return params.toString();
    });
    const depth = fc.integer({ min: 1, max: 200_000 });
    const body = fc.oneof(
      fc.uint8Array({ maxLength: 2_048 }),
      jsonText,
      broken,
      form,
      json.map((v) => JSON.stringify(v) ?? ""),
      depth.map((n) => "[".repeat(n) + "]".repeat(n)),
      depth.map((n) => '{"a":'.repeat(n) + "1" + "}".repeat(n)),
      // Deep nesting as the value of a known option.
      depth.map((n) => `{"url": "http://10.0.0.1/", "metadata": {"a": ${"[".repeat(n)}${"]".repeat(n)}}}`),
      fc.constantFrom(
        '{"url": "http://10.0.0.1/", "width": 1e999999}',
        '{"url": "http://10.0.0.1/", "width": 123456789012345678901234567890, "height": -1e-999}',
        '{"url": "http://10.0.0.1/", "delay": 9007199254740993, "quality": -0}',
        '{"url": "http://10.0.0.1/\u0000", "\u0000": "\u0000"}',
        "url=http%3A%2F%2F10.0.0.1%2F&width=1e999999&width[]=2",
        "url=%00&html[]=&__proto__[polluted]=1&constructor[prototype][polluted]=1",
      ),
      fc.constantFrom(
        Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x22, 0x00]),
        Buffer.concat([Buffer.from('{"url": "http://10.0.0.1/'), Buffer.from([0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from('"}')]),
        Buffer.concat([Buffer.from("url=http://"), Buffer.from([0xe9, 0xff]), Buffer.from(".invalid/")]),
      ),
    );
    const type = fc.oneof(
      fc.constantFrom(...CONTENT_TYPES),
      fc.string({ unit: fc.constantFrom(..."abcdefghij/+;=- "), maxLength: 40 }),
    );
    const method = fc.oneof({ weight: 4, arbitrary: fc.constant("POST") }, fc.constantFrom("PUT", "PATCH", "DELETE"));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ROUTES), body, type, auth, method, async (path, b, t, a, m) => {
        await post(path, b, t, a, m);
      }),
      { numRuns: runs, reporter: compactReporter },
    );
  });

  it("raw request lines and headers on a socket: bad bytes, conflicting lengths, huge values", async ({ task }) => {
    const runs = 150;
    task.meta.fuzz = { subject: "HTTP bodies and headers", runs };
    const tchar = fc.string({
      unit: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz-_!#$%&'*+.^`|~0123456789"),
      minLength: 1,
      maxLength: 20,
    });
    // Header value bytes: anything but CR and LF (NUL, control and obs-text bytes included).
    const valueBytes = fc
      .uint8Array({ maxLength: 80 })
      .map((bytes) => Buffer.from(bytes.filter((b) => b !== 0x0d && b !== 0x0a)));
    const header = fc.oneof(
      fc.tuple(tchar, valueBytes).map(([n, v]) => Buffer.concat([Buffer.from(`${n}: `), v])),
      fc
        .constantFrom(
          "content-type: application/json\u0000",
          "content-length: 5",
          "content-length: 2, 3",
          "transfer-encoding: chunked",
          "transfer-encoding: gzip, chunked",
          "x-forwarded-for: 127.0.0.1",
          "host: 169.254.169.254",
          "authorization: Bearer \u00ff\u00fe",
          `authorization: Bearer ${API_PROJECT.secretKey}`,
          `x-huge: ${"a".repeat(20_000)}`,
        )
        .map((h) => Buffer.from(h, "latin1")),
    );
    const path = fc.oneof(
      fc.constantFrom(
        ...ROUTES,
        "/v1/render/sync/x",
        "/v1/render/%zz",
        `/v1/${API_PROJECT.publishableKey}/png`,
        "/renders/..%2f..%2fetc%2fpasswd",
      ),
      fc.string({ unit: fc.constantFrom(..."/abc%?&=.01"), maxLength: 40 }).map((s) => `/v1/${s}`),
      tchar.map((s) => `/${s}?url=http://10.0.0.1/&${s}=%00`),
    );
    const method = fc.oneof(
      fc.constantFrom("GET", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE"),
      tchar.map((s) => s.toUpperCase()),
    );
    const request = fc
      .tuple(method, path, fc.array(header, { maxLength: 6 }), fc.uint8Array({ maxLength: 256 }))
      .map(([m, p, headers, body]) => {
        const chunked = headers.some((h) => /^transfer-encoding:/i.test(h.toString("latin1")));
        const lengthGiven = headers.some((h) => /^content-length:/i.test(h.toString("latin1")));
        // A body shorter than a declared length would only make the server wait for the rest: the
        // declared lengths above are refused as conflicting or padded to fit.
        const payload = chunked ? Buffer.from("zz\r\n") : lengthGiven ? Buffer.alloc(5, 0x7b) : Buffer.from(body);
        const lines = [Buffer.from(`${m} ${p} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n`)];
        for (const h of headers) lines.push(h, Buffer.from("\r\n"));
        if (!lengthGiven && !chunked) lines.push(Buffer.from(`content-length: ${payload.length}\r\n`));
        return Buffer.concat([...lines, Buffer.from("\r\n"), payload]);
      });
    await fc.assert(
      fc.asyncProperty(request, async (bytes) => {
        const answer: RawAnswer = await rawExchange(server.port, bytes);
        expectClientAnswer(
          answer.status,
          answer.body.toString("utf8"),
          JSON.stringify(bytes.subarray(0, 300).toString("latin1")),
        );
      }),
      { numRuns: runs, reporter: compactReporter },
    );
  });

  it("the server is still up and answering after the fuzzing", async () => {
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    // A declared body over the limit is refused before any of it is read.
    const big = await rawExchange(
      server.port,
      Buffer.from(
        `POST /v1/render/sync HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${API_PROJECT.secretKey}\r\n` +
          `content-type: application/json\r\ncontent-length: ${MAX_BODY_BYTES + 1}\r\nconnection: close\r\n\r\n{`,
      ),
    );
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body.toString("utf8"))).toMatchObject({ error: { code: "PayloadTooLarge" } });
    const response = await fetch(`${server.url}/v1/render/sync`, {
      method: "POST",
      headers: { authorization: `Bearer ${API_PROJECT.secretKey}`, "content-type": "application/json" },
      body: JSON.stringify({ url: "http://10.0.0.1/" }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "InvalidURLError" } });
  });
});
