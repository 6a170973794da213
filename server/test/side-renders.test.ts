import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
let receiver: Awaited<ReturnType<typeof listenLocal>>;
const hooks: Record<string, unknown>[] = [];
const A = PROJECT_A.secretKey;

const PAGE = `<!doctype html><title>side</title><link rel="stylesheet" href="/style.css">
<body><a href="/next" rel="next">Next page</a>
<script>document.cookie = "visited=yes; path=/"</script></body>`;

beforeAll(async () => {
  site = await listenLocal((req) => {
    if (req.url === "/style.css") return { type: "text/css", body: "body { background: rgb(0, 128, 0) }" };
    return { body: PAGE };
  });
  receiver = await listenLocal((_req, body) => {
    hooks.push(JSON.parse(body));
    return { status: 200, body: "" };
  });
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await site.close();
  await receiver.close();
});

async function until<T>(check: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Cookies and headers hold credentials: fetched with the project's key (`key`). */
async function fetchText(url: string, key?: string): Promise<{ type: string | null; text: string }> {
  const response = await fetch(url, key ? { headers: { authorization: `Bearer ${key}` } } : {});
  expect(response.status).toBe(200);
  return { type: response.headers.get("content-type"), text: await response.text() };
}

const FIELDS = ["mhtmlUrl", "cookiesUrl", "headersUrl", "linksUrl", "resourceInfoUrl"] as const;

describe("side renders through the API", () => {
  it("an async render's status record and webhook carry the addresses of every side file, and each is served", async () => {
    const created = await api(server.url, "/v1/render/async", {
      json: {
        url: `${site.url}/page`,
        format: "png",
        save_mhtml: true,
        save_cookies: true,
        save_headers: true,
        save_links: true,
        save_resource_info: true,
        webhook_url: `${receiver.url}/hook`,
      },
      key: A,
    });
    expect(created.status).toBe(201);
    const id = created.body.renderId as string;
    const record = await until(async () => {
      const status = await api(server.url, `/v1/render/${id}`, { key: A });
      expect(["created", "succeeded"]).toContain(status.body.status);
      return status.body.status === "succeeded" ? status.body : undefined;
    });
    for (const field of FIELDS)
      expect(record[field], field).toMatch(
        new RegExp(`^${server.url}/renders/${id}-[A-Za-z0-9_-]{22}(-[a-z]+)?\\.(mhtml|json)$`),
      );

    const hook = await until(() => hooks.find((h) => h.renderId === id));
    const result = hook.result as Record<string, unknown>;
    for (const field of FIELDS) expect(result[field], field).toBe(record[field]);

    const mhtml = await fetchText(record.mhtmlUrl);
    expect(mhtml.type).toBe("multipart/related");
    expect(mhtml.text).toMatch(/^Content-Type: multipart\/related;/m);
    expect(mhtml.text).toContain(`Content-Location: ${site.url}/style.css`);

    const cookies = await fetchText(record.cookiesUrl, A);
    expect(cookies.type).toBe("application/json; charset=utf-8");
    expect(JSON.parse(cookies.text)).toMatchObject([{ name: "visited", value: "yes", domain: "127.0.0.1" }]);

    const headers = JSON.parse((await fetchText(record.headersUrl, A)).text);
    expect(headers).toMatchObject({
      source: "url",
      url: `${site.url}/page`,
      status: 200,
      headers: { "content-type": "text/html" },
    });

    expect(JSON.parse((await fetchText(record.linksUrl)).text)).toEqual([
      { href: `${site.url}/next`, text: "Next page", rel: "next" },
    ]);

    const requests = JSON.parse((await fetchText(record.resourceInfoUrl)).text) as { url: string; status: number }[];
    // Chromium may ask for /favicon.ico after the load, depending on timing.
    const own = requests.filter((r) => !r.url.endsWith("/favicon.ico"));
    expect(own.map((r) => [r.url, r.status])).toEqual([
      [`${site.url}/page`, 200],
      [`${site.url}/style.css`, 200],
    ]);
  }, 120_000);
});
