import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
const A = PROJECT_A.secretKey;

beforeAll(async () => {
  site = await listenLocal(() => ({
    body: `<!doctype html><title>Formats</title><body style="margin:0;background:rgb(0,0,255)"><h1>Every format</h1>
<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table><a href="/rel">rel</a></body>`,
  }));
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await site.close();
});

async function syncRender(options: Record<string, unknown>) {
  let answer = await api(server.url, "/v1/render/sync", { json: { url: `${site.url}/page`, ...options }, key: A });
  for (let i = 0; i < 10 && answer.status === 307; i++)
    answer = await api(server.url, new URL(answer.headers.get("location") as string).pathname, { key: A });
  expect(answer.status).toBe(200);
  const response = await fetch(answer.body.renderUrl);
  return { answer, response, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe("every format through the API", () => {
  it("md: GFM markdown with absolute links", async () => {
    const { response, bytes } = await syncRender({ format: "md" });
    expect(response.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    const text = bytes.toString();
    expect(text).toContain("# Every format");
    expect(text).toMatch(/\| a \| b \|/);
    expect(text).toContain(`(${site.url}/rel)`);
  });

  it("svg: a vector SVG", async () => {
    const { response, bytes } = await syncRender({ format: "svg", width: 800, height: 600 });
    expect(response.headers.get("content-type")).toBe("image/svg+xml");
    const text = bytes.toString();
    expect(text).toMatch(/<svg[^>]*width="800/);
    expect(text).not.toMatch(/<image[^>]*width="800/);
  });

  it("html: the rendered document", async () => {
    const { response, bytes } = await syncRender({ format: "html" });
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(bytes.toString()).toContain("<h1>Every format</h1>");
  });

  it("md and svg also through render links and async renders", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/link`)}`;
    const token = createHmac("sha256", PROJECT_A.secretKey).update(`md?${query}`).digest("hex");
    const link = await fetch(`${server.url}/v1/${PROJECT_A.publishableKey}/${token}/md?${query}`);
    expect(link.status).toBe(200);
    expect(link.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(await link.text()).toContain("# Every format");
    const created = await api(server.url, "/v1/render/async", {
      json: { url: `${site.url}/async`, format: "svg", save_markdown: true },
      key: A,
    });
    expect(created.status).toBe(201);
    let status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    for (let i = 0; i < 100 && status.body.status !== "succeeded"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    }
    expect(status.body.renderUrl).toMatch(/\.svg$/);
    expect(status.body.markdownUrl).toMatch(/\.md$/);
    expect(await (await fetch(status.body.markdownUrl)).text()).toContain("Every format");
  });

  it("mp4 through an async render: an H.264 video of the requested length", async () => {
    const created = await api(server.url, "/v1/render/async", {
      json: { url: `${site.url}/video`, format: "mp4", video_duration: 1, width: 640, height: 360 },
      key: A,
    });
    expect(created.status).toBe(201);
    let status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    for (let i = 0; i < 150 && status.body.status !== "succeeded" && status.body.status !== "failed"; i++) {
      await new Promise((r) => setTimeout(r, 200));
      status = await api(server.url, `/v1/render/${created.body.renderId}`, { key: A });
    }
    expect(status.body.status).toBe("succeeded");
    const response = await fetch(status.body.renderUrl);
    expect(response.headers.get("content-type")).toBe("video/mp4");
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(4, 8).toString()).toBe("ftyp");
    expect(status.body.frames).toBe(30);
  });

  it("refuses a codec the container cannot hold with 400 before queueing", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: `${site.url}/v`, format: "mp4", video_codec: "vp9" },
      key: A,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("InvalidOptions");
  });
});
