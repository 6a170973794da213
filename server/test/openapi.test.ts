import { readFileSync } from "node:fs";
import { findChromium } from "@renderkit/core/chromium";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GENERIC_CODES, STATUS } from "../dist/http/errors.js";
import { api, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
// biome-ignore lint/suspicious/noExplicitAny: the test walks the document freely
let doc: any;
const METHODS = ["get", "head", "post", "put", "delete", "patch"];

beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: 4096 });
  const answer = await api(server.url, "/v1/openapi.json");
  expect(answer.status).toBe(200);
  doc = answer.body;
});
afterAll(async () => {
  await server?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: operations are plain JSON
function operations(): Array<[string, string, any]> {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item as object)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => [path, method, op] as [string, string, unknown]),
  );
}

describe("the OpenAPI document", () => {
  it("states the server package's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    expect(doc.info.version).toBe(pkg.version);
  });

  it("has every route, each operation with a unique operationId and a declared tag", () => {
    for (const path of [
      "/health",
      "/ready",
      "/v1/openapi.json",
      "/docs",
      "/v1/render/sync",
      "/v1/screenshot",
      "/v1/render/sync/{renderId}",
      "/v1/render/async",
      "/v1/render",
      "/v1/screenshot/async",
      "/v1/render/{renderId}",
      "/v1/{publishableKey}/{token}/{format}",
      "/v1/{publishableKey}/{format}",
      "/renders/{key}",
    ]) {
      expect(doc.paths[path], path).toBeDefined();
    }
    expect(Object.keys(doc.paths["/v1/render/sync/{renderId}"]).sort()).toEqual(["get", "post"]);
    const declared = doc.tags.map((t: { name: string }) => t.name);
    const ids = new Set<string>();
    for (const [path, method, op] of operations()) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-zA-Z]+$/);
      expect(ids.has(op.operationId), op.operationId).toBe(false);
      ids.add(op.operationId);
      expect(op.tags?.length, `${method} ${path}`).toBeGreaterThan(0);
      for (const tag of op.tags) expect(declared).toContain(tag);
      // Every path parameter is declared.
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        const names = (op.parameters ?? []).map((p: { name: string }) => p.name);
        expect(names, `${method} ${path}`).toContain(name.slice(1, -1));
      }
    }
  });

  it("declares the answers' schemas: 200, 201, 307, the status record and errors", () => {
    const schemas = doc.components.schemas;
    const ref = (content: Record<string, { schema: { $ref?: string } }>) => content["application/json"]?.schema.$ref;
    const sync = doc.paths["/v1/render/sync"].post.responses;
    expect(ref(sync["200"].content)).toBe("#/components/schemas/RenderResult");
    expect(ref(sync["307"].content)).toBe("#/components/schemas/Redirect");
    expect(sync["307"].headers.Location).toBeDefined();
    const created = doc.paths["/v1/render/async"].post.responses["201"];
    expect(ref(created.content)).toBe("#/components/schemas/Created");
    expect(schemas.Created.required).toEqual(["status", "renderId", "statusUrl"]);
    const status = doc.paths["/v1/render/{renderId}"].get.responses;
    expect(ref(status["200"].content)).toBe("#/components/schemas/RenderStatus");
    expect(schemas.RenderStatus.properties.status.enum).toEqual(["created", "retrying", "succeeded", "failed"]);
    expect(ref(status["404"].content)).toBe("#/components/schemas/RenderNotFound");
    expect(schemas.RenderResult.required).toEqual(["renderId", "renderUrl", "size", "renderTime", "queueTime", "bandwidth"]);
    expect(schemas.Error.required).toEqual(["error", "requestId"]);
    expect(ref(doc.paths["/health"].get.responses["200"].content)).toBe("#/components/schemas/Health");
    expect(ref(doc.paths["/ready"].get.responses["200"].content)).toBe("#/components/schemas/Ready");
    // Every answer of every operation, other than raw bytes and HEAD, says what it carries.
    for (const [path, method, op] of operations()) {
      for (const [code, answer] of Object.entries(op.responses) as Array<[string, { description: string; content?: object }]>) {
        expect(answer.description, `${method} ${path} ${code}`).toBeTruthy();
        if (code !== "302") expect(answer.content, `${method} ${path} ${code}`).toBeDefined();
      }
    }
  });

  it("lists the error codes of each status, matching the server's table", () => {
    const codes = (answer: {
      content: Record<
        string,
        { schema: { allOf: Array<{ properties?: { error: { properties: { code: { enum: string[] } } } } }> } }
      >;
    }) => answer.content["application/json"]?.schema.allOf[1]?.properties?.error.properties.code.enum;
    const responses = doc.paths["/v1/render/sync"].post.responses;
    for (const status of [400, 401, 429, 500, 503]) {
      const expected = Object.entries(STATUS)
        .filter(([, s]) => s === status)
        .map(([code]) => code);
      const listed = codes(responses[String(status)]);
      expect(listed, String(status)).toEqual(expect.arrayContaining(expected));
      if (GENERIC_CODES[status]) expect(listed).toContain(GENERIC_CODES[status]);
      for (const code of expected) expect(responses[String(status)].description).toContain(code);
    }
    expect(codes(responses["401"])).toContain("ApiKeyNotFound");
    expect(codes(responses["413"])).toEqual(["PayloadTooLarge"]);
    expect(codes(doc.paths["/v1/{publishableKey}/{format}"].get.responses["400"])).toContain("TokenlessRequestsNotEnabled");
    expect(codes(doc.paths["/renders/{key}"].get.responses["416"])).toEqual(["RangeNotSatisfiable"]);
  });

  it("documents what the server really answers: a 413 and a 405 carry the listed codes", async () => {
    const big = await api(server.url, "/v1/render/async", {
      json: { html: "x".repeat(10_000) },
      key: PROJECT_A.secretKey,
    });
    const listed = (status: number) =>
      doc.paths["/v1/render/async"].post.responses[String(status)].content["application/json"].schema.allOf[1].properties.error
        .properties.code.enum;
    expect(big.status).toBe(413);
    expect(listed(big.status)).toContain(big.body.error.code);
    const wrong = await api(server.url, "/v1/render/async", { method: "PUT" });
    expect(wrong.status).toBe(405);
    expect(listed(405)).toContain(wrong.body.error.code);
  });
});

describe("the API reference page at /docs", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: findChromium(),
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"],
    });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("serves Scalar's bundle from the installed package", async () => {
    const script = await fetch(`${server.url}/docs/scalar.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("javascript");
    expect((await script.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    const page = await fetch(`${server.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain('src="/docs/scalar.js"');
    expect(html).not.toMatch(/https?:\/\//);
  }, 60_000);

  it("loads offline in Chromium, lists every endpoint and shows the request schema", async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const origin = new URL(server.url).origin;
    const outside: string[] = [];
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(error.message));
    // The page's Content-Security-Policy would also refuse any other origin: it must never have to.
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy/i.test(message.text())) errors.push(message.text());
    });
    const documentLoaded = page.waitForResponse((r) => r.url() === `${origin}/v1/openapi.json` && r.status() === 200, {
      timeout: 90_000,
    });
    const answer = await page.goto(`${server.url}/docs`, { timeout: 90_000 });
    expect(answer?.status()).toBe(200);
    await documentLoaded;
    await page.getByText("renderkit render API").first().waitFor({ timeout: 90_000 });
    // biome-ignore lint/performance/useDomNodeTextContent: what the reader sees, laid out
    const text = await page.evaluate(() => document.body.innerText);
    for (const [path, method, op] of operations()) {
      expect(text, `${method} ${path}`).toContain(path);
      if (method !== "head") expect(text, `${method} ${path}`).toContain(op.summary);
    }
    for (const path of ["/v1/render/sync", "/v1/render/async", "/health", "/ready"]) expect(text).toContain(path);
    // The request schema: option names of the RenderRequest model.
    expect(text).toContain("RenderRequest");
    // Opening an operation shows its request body, option by option.
    await page.getByText("Render and wait", { exact: true }).first().click();
    const option = page.getByText("full_page", { exact: true }).first();
    await option.waitFor({ state: "visible", timeout: 60_000 });
    await option.scrollIntoViewIfNeeded();
    // biome-ignore lint/performance/useDomNodeTextContent: what the reader sees, laid out
    const schemaText = await page.evaluate(() => document.body.innerText);
    for (const name of ["full_page", "response_type", "redirect_after"]) expect(schemaText).toContain(name);
    expect(errors.join("\n")).toBe("");
    expect(outside).toEqual([]);
    await context.close();
  }, 180_000);
});
