import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { S3Storage } from "@renderkit/storage-s3";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, PROJECT_B, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
const A = PROJECT_A.secretKey;

beforeAll(async () => {
  site = await listenLocal((req) => {
    if (req.url?.startsWith("/slow")) return { body: "<h1>slow</h1>", delayMs: 3500 };
    if (req.url?.startsWith("/hang")) return { body: "", delayMs: 60_000 };
    return { body: `<body style="margin:0;background:rgb(0,0,255)"><h1>${req.url}</h1></body>` };
  });
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await site.close();
});

async function fetchRender(url: string, init?: RequestInit) {
  const response = await fetch(url, init);
  return { response, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe("POST /v1/render/sync", () => {
  it("renders from a JSON body and answers 200 with the result fields", async () => {
    const answer = await api(server.url, "/v1/render/sync", { json: { url: `${site.url}/a`, width: 400, height: 300 }, key: A });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      renderUrl: expect.stringMatching(new RegExp(`^${server.url}/renders/.+_s\\.png$`)),
      size: expect.any(Number),
      renderTime: expect.any(Number),
      queueTime: expect.any(Number),
      bandwidth: expect.any(Number),
    });
    expect(answer.body.bandwidth).toBeGreaterThan(0);
    const { response, bytes } = await fetchRender(answer.body.renderUrl);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(Number(response.headers.get("content-length"))).toBe(answer.body.size);
    expect(bytes.length).toBe(answer.body.size);
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([400, 300]);
    expect([data[0], data[1], data[2]]).toEqual([0, 0, 255]);
  });

  it("accepts form bodies and camelCase, with repeated keys as lists", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      form: { url: `${site.url}/form`, format: "jpeg", fullPage: "true", width: "320", height: "200" },
      key: A,
    });
    expect(answer.status).toBe(200);
    const { response, bytes } = await fetchRender(answer.body.renderUrl);
    expect(response.headers.get("content-type")).toBe("image/jpeg");
    expect((await sharp(bytes).metadata()).width).toBe(320);

    // click=#a&click=#b: both buttons are clicked, each paints its half of the page.
    const html = `<body style="margin:0"><div id="l" style="position:fixed;left:0;top:0;width:50%;height:100%"></div>
      <div id="r" style="position:fixed;right:0;top:0;width:50%;height:100%"></div>
      <button id="a" style="position:relative;z-index:1" onclick="l.style.background='rgb(255,0,0)'">a</button>
      <button id="b" style="position:relative;z-index:1" onclick="r.style.background='rgb(0,255,0)'">b</button></body>`;
    const clicked = await api(server.url, "/v1/render/sync", {
      form: { html, width: "200", height: "100", click: ["#a", "#b"] },
      key: A,
    });
    expect(clicked.status).toBe(200);
    const { data } = await sharp((await fetchRender(clicked.body.renderUrl)).bytes)
      .raw()
      .toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...data.subarray((y * 200 + x) * 3, (y * 200 + x) * 3 + 3)];
    expect(at(20, 80)).toEqual([255, 0, 0]);
    expect(at(180, 80)).toEqual([0, 255, 0]);
  });

  it("reports unknown options in X-Ignored-Options", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { html: "<p>x</p>", no_such_option: 1, blockEverything: true },
      key: A,
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("x-ignored-options")).toBe("no_such_option, blockEverything");
  });

  it("answers a failed render with its code: 500 RenderTimeoutError", async () => {
    const answer = await api(server.url, "/v1/render/sync", { json: { url: `${site.url}/hang`, timeout: 5000 }, key: A });
    expect(answer.status).toBe(500);
    expect(answer.body.error.code).toBe("RenderTimeoutError");
  });

  it("redirects with 307 after redirect_after seconds, and the redirect address goes on waiting (POST and GET)", async () => {
    const first = await api(server.url, "/v1/render/sync", { json: { url: `${site.url}/slow`, redirect_after: 1 }, key: A });
    expect(first.status).toBe(307);
    const location = first.headers.get("location");
    expect(location).toMatch(new RegExp(`^${server.url}/v1/render/sync/.+_s$`));
    expect(first.body.redirectUrl).toBe(location);
    const path = new URL(location as string).pathname;
    const again = await api(server.url, path, { method: "POST", key: A });
    expect(again.status).toBe(307);
    expect(again.headers.get("location")).toBe(location);
    let done = again;
    for (let i = 0; i < 5 && done.status === 307; i++) done = await api(server.url, path, { method: "GET", key: A });
    expect(done.status).toBe(200);
    expect(done.body.renderUrl).toMatch(/\.png$/);
    expect((await api(server.url, path, { key: PROJECT_B.secretKey })).status).toBe(404);
  });
});

describe("POST /v1/render/async and GET /v1/render/:id", () => {
  it("answers 201 created, then the status record moves to succeeded", async () => {
    const created = await api(server.url, "/v1/render/async", { json: { url: `${site.url}/async`, format: "pdf" }, key: A });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      status: "created",
      renderId: expect.any(String),
      statusUrl: `${server.url}/v1/render/${created.body.renderId}`,
    });
    expect(created.body.renderId).not.toMatch(/_[a-z]$/);
    let status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    expect(status.status).toBe(200);
    for (let i = 0; i < 100 && status.body.status !== "succeeded"; i++) {
      expect(["created", "succeeded"]).toContain(status.body.status);
      await new Promise((r) => setTimeout(r, 200));
      status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    }
    expect(status.body).toMatchObject({
      renderId: created.body.renderId,
      statusUrl: created.body.statusUrl,
      status: "succeeded",
      size: expect.any(Number),
    });
    const { response, bytes } = await fetchRender(status.body.renderUrl);
    expect(response.headers.get("content-type")).toBe("application/pdf");
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
  });

  it("reports a failed render with a human reason", async () => {
    const created = await api(server.url, "/v1/render/async", {
      json: { url: `${site.url}/missing`, fail_on_4xx: true, selector: "#x", fail_if_selector_missing: true },
      key: A,
    });
    let status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    for (let i = 0; i < 100 && status.body.status !== "failed"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    }
    expect(status.body.status).toBe("failed");
    expect(status.body.reason).toContain("#x");
  });

  it("moves to retrying when the browser dies mid-render, then to succeeded", async () => {
    const seen = site.requests.length;
    const created = await api(server.url, "/v1/render/async", { json: { url: `${site.url}/slow-crash` }, key: A });
    expect(created.status).toBe(201);
    // The page is loading (the site holds it 3.5 s): kill the browser under it.
    await expect.poll(() => site.requests.slice(seen).some((r) => r.url === "/slow-crash"), { timeout: 20_000 }).toBe(true);
    const engine = server.running.renderer.engine() as unknown as { browserPids(): number[] };
    for (const pid of engine.browserPids()) process.kill(-pid, "SIGKILL");
    const statuses: string[] = [];
    for (let i = 0; i < 150 && statuses.at(-1) !== "succeeded"; i++) {
      const status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
      if (statuses.at(-1) !== status.body.status) statuses.push(status.body.status);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(statuses).toEqual(["created", "retrying", "succeeded"]);
  });

  it("answers 404 not-found for unknown ids and for another project's renders", async () => {
    const unknown = await api(server.url, "/v1/render/does-not-exist", { key: A });
    expect(unknown.status).toBe(404);
    expect(unknown.body.status).toBe("not-found");
    const created = await api(server.url, "/v1/render/async", { json: { html: "<p>mine</p>" }, key: A });
    const foreign = await api(server.url, `/v1/render/${created.body.renderId}`, { key: PROJECT_B.secretKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ renderId: created.body.renderId, status: "not-found" });
    expect(foreign.text).not.toContain("renderUrl");
  });

  it("accepts the compatibility aliases", async () => {
    expect((await api(server.url, "/v1/render", { json: { html: "<p>a</p>" }, key: A })).status).toBe(201);
    expect((await api(server.url, "/v1/screenshot/async", { json: { html: "<p>b</p>" }, key: A })).status).toBe(201);
    const sync = await api(server.url, "/v1/screenshot", { json: { html: "<p>c</p>" }, key: A });
    expect(sync.status).toBe(200);
    expect(sync.body.renderUrl).toMatch(/_s\.png$/);
  });
});

describe("render addresses", () => {
  it("serve HEAD and byte ranges", async () => {
    const answer = await api(server.url, "/v1/render/sync", { json: { html: "<h1>range</h1>" }, key: A });
    const head = await fetch(answer.body.renderUrl, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("accept-ranges")).toBe("bytes");
    expect(Number(head.headers.get("content-length"))).toBe(answer.body.size);
    const { response, bytes } = await fetchRender(answer.body.renderUrl, { headers: { range: "bytes=0-7" } });
    expect(response.status).toBe(206);
    expect(response.headers.get("content-range")).toBe(`bytes 0-7/${answer.body.size}`);
    expect(bytes).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const outside = await fetch(answer.body.renderUrl, { headers: { range: `bytes=${answer.body.size + 10}-` } });
    expect(outside.status).toBe(416);
  });

  it("answers 404 at a render address once the render expired", async () => {
    let answer = await api(server.url, "/v1/render/sync", { json: { url: `${site.url}/expire` }, key: A });
    for (let i = 0; i < 10 && answer.status === 307; i++)
      answer = await api(server.url, new URL(answer.headers.get("location") as string).pathname, { key: A });
    expect(answer.status).toBe(200);
    expect((await fetch(answer.body.renderUrl)).status).toBe(200);
    const key = new URL(answer.body.renderUrl).pathname.split("/").pop() as string;
    const storage = server.config.storage;
    if (storage.kind === "s3") {
      // The same object again, its expiry in the past (the redis test mode keeps renders in S3).
      const s3 = new S3Storage({ ...storage, secretAccessKey: storage.secretAccessKey });
      const bytes = (await fetchRender(answer.body.renderUrl)).bytes;
      await s3.put(key, bytes, { contentType: "image/png", expiresAt: Date.now() - 1000 });
      await s3.close();
    } else {
      const metaFile = join(server.dataDir, "renders", `${key}.meta.json`);
      const meta = JSON.parse(readFileSync(metaFile, "utf8"));
      writeFileSync(metaFile, JSON.stringify({ ...meta, expiresAt: Date.now() - 1000 }));
    }
    const expired = await fetch(answer.body.renderUrl);
    expect(expired.status).toBe(404);
    expect((await expired.json()).error.message).toContain("expired");
  });

  it("adds side renders to the sync result and the status record, served like the render", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: `${site.url}/side`, save_html: true, save_metadata: true },
      key: A,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.htmlUrl).toMatch(new RegExp(`^${server.url}/renders/.+_s-[A-Za-z0-9_-]{22}\\.html$`));
    expect(answer.body.metadataUrl).toMatch(new RegExp(`^${server.url}/renders/.+_s-[A-Za-z0-9_-]{22}\\.json$`));
    expect(answer.body.metadata.urlResolved).toBe(`${site.url}/side`);
    const html = await fetch(answer.body.htmlUrl);
    expect(html.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await html.text()).toContain("/side");
    const meta = await fetch(answer.body.metadataUrl);
    expect((await meta.json()).statusCode).toBe(200);
    const status = await api(server.url, `/v1/render/${answer.body.renderId}`, { key: A });
    expect(status.body.htmlUrl).toBe(answer.body.htmlUrl);
    expect(status.body.metadataUrl).toBe(answer.body.metadataUrl);
  });
});
