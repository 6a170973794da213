import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

const A = PROJECT_A.secretKey;
const RED = "rgb(255,0,0)";
const GREEN = "rgb(0,255,0)";

/** Two red boxes that turn green when clicked, and an image under /ads/ that covers a third cell in green. */
const PAGE = `<!doctype html><body style="margin:0;background:#fff">
<div class="box" style="position:absolute;left:0;top:0;width:100px;height:100px;background:${RED}" onclick="this.style.background='${GREEN}'"></div>
<div class="box" style="position:absolute;left:100px;top:0;width:100px;height:100px;background:${RED}" onclick="this.style.background='${GREEN}'"></div>
<img alt="" src="/ads/banner.svg" style="position:absolute;left:200px;top:0;width:100px;height:100px">
</body>`;
const BANNER = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="${GREEN}"/></svg>`;

let server: TestServer;
let site: FixtureServer;

beforeAll(async () => {
  site = await startFixtureServer({
    "/page": PAGE,
    "/ads/banner.svg": { headers: { "content-type": "image/svg+xml" }, body: BANNER },
  });
  // The test server allows 127.0.0.1 (any port), so the fixture server is reachable.
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

/** RGB at (x, y) of a PNG. */
async function pixel(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const i = (y * info.width + x) * info.channels;
  return [data[i] ?? -1, data[i + 1] ?? -1, data[i + 2] ?? -1];
}

describe("page preparation options through the API", () => {
  it("POST /v1/render/sync with block_urls and click_all blocks the ad and clicks every box", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: `${site.url}/page`, width: 400, height: 300, block_urls: ["*/ads/*"], click_all: ".box" },
      key: A,
    });
    expect(answer.status).toBe(200);
    const png = Buffer.from(await (await fetch(answer.body.renderUrl)).arrayBuffer());
    expect(await pixel(png, 50, 50)).toEqual([0, 255, 0]);
    expect(await pixel(png, 150, 50)).toEqual([0, 255, 0]);
    // The blocked banner leaves the white page background.
    expect(await pixel(png, 250, 50)).toEqual([255, 255, 255]);
    expect(site.requestsTo("/page").length).toBeGreaterThan(0);
    expect(site.requestsTo("/ads/banner.svg")).toHaveLength(0);
  });

  it("answers 400 InvalidOptions for disable_js with js, before rendering", async () => {
    const before = site.requests.length;
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: `${site.url}/page`, disable_js: true, js: "document.title = 'x'" },
      key: A,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: "InvalidOptions" } });
    expect(site.requests.length).toBe(before);
  });

  it("answers 400 InvalidOptions for a malformed block_urls pattern", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      json: { url: `${site.url}/page`, block_urls: "ftp://example.com/*" },
      key: A,
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: "InvalidOptions" } });
    expect(answer.body.error.message).toContain("block_urls");
  });
});
