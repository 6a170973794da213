import { createHmac } from "node:crypto";
import { readdir } from "node:fs/promises";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import type { Storage } from "@renderkit/core";
import { S3Storage } from "@renderkit/storage-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FsStorage } from "../../core/dist/defaults/fs-storage.js";
import { api, listenLocal, PROJECT_A, PROJECT_B, sharedServices, startTestServer, type TestServer } from "./helpers.js";

/**
 * Issue 30, findings 2 and 8, as one project (A, "alpha") tries them against another (B, "beta"),
 * in file mode and in Redis + S3 mode. Finding 2: a render's side files had addresses anyone could
 * work out from its public `renderUrl` (`<id>.png` → `<id>-cookies.json`, `<id>.html`...); now
 * each has a random token of its own, and the files holding credentials (cookies, response
 * headers) are served only to their project's key. Finding 8: a tokenless link's `webhook_url`,
 * `nosniff` on error answers, a repeated `download`.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests inspect answer bodies freely
type Body = any;

const A = PROJECT_A.secretKey;
const B = PROJECT_B.secretKey;
/** The cookie B's page sets: httpOnly, so no script of the page could read it. */
const SESSION = "b-session-secret-4f2a";

/** Every side file: its option, result field, the suffix its old address had, its type, whether it holds credentials. */
const SIDES = [
  { save: "save_html", field: "htmlUrl", old: ".html", type: /^text\/html/, private: false },
  { save: "save_markdown", field: "markdownUrl", old: ".md", type: /^text\/markdown/, private: false },
  { save: "save_mhtml", field: "mhtmlUrl", old: ".mhtml", type: /^multipart\/related/, private: false },
  { save: "save_metadata", field: "metadataUrl", old: ".json", type: /^application\/json/, private: false },
  { save: "save_cookies", field: "cookiesUrl", old: "-cookies.json", type: /^application\/json/, private: true },
  { save: "save_headers", field: "headersUrl", old: "-headers.json", type: /^application\/json/, private: true },
  { save: "save_links", field: "linksUrl", old: "-links.json", type: /^application\/json/, private: false },
  { save: "save_resource_info", field: "resourceInfoUrl", old: "-resources.json", type: /^application\/json/, private: false },
] as const;
const ALL_SIDES = Object.fromEntries(SIDES.map((side) => [side.save, true]));
/**
 * The token of a side file's address `<server>/renders/<renderId>-<token><old suffix>`: 22
 * base64url characters (128 bits); undefined when the address is not of that shape.
 */
function tokenOf(address: unknown, renderId: string, suffix: string): string | undefined {
  const key = String(address).slice(String(address).lastIndexOf("/") + 1);
  if (!key.startsWith(`${renderId}-`) || !key.endsWith(suffix)) return undefined;
  const token = key.slice(renderId.length + 1, key.length - suffix.length);
  return /^[A-Za-z0-9_-]{22}$/.test(token) ? token : undefined;
}

/** A page that sets an httpOnly session cookie, as a site behind a login would. */
async function cookieSite() {
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    requests.push(req.url ?? "");
    res.writeHead(200, {
      "content-type": "text/html",
      "set-cookie": `sid=${SESSION}; Path=/; HttpOnly; SameSite=Strict`,
    });
    res.end(
      `<!doctype html><title>B's page</title><body style="margin:0;background:rgb(0,0,255)"><h1>B</h1><a href="/next">Next</a></body>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Requests for `path` (each render of it is one). */
    seen: (path: string) => requests.filter((url) => url === path).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** GET (or `method`) of a full address, redirects not followed, with a project's key when given. */
async function get(url: string, init: { key?: string; method?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  const response = await fetch(url, { method: init.method ?? "GET", headers, redirect: "manual" });
  const bytes = Buffer.from(await response.arrayBuffer());
  let body: Body;
  try {
    body = JSON.parse(bytes.toString("utf8"));
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, bytes, text: bytes.toString("utf8"), body };
}

/** The documented link token: hex HMAC-SHA256 of `<format>?<query>` keyed with the secret key. */
const sign = (key: string, format: string, query: string) => createHmac("sha256", key).update(`${format}?${query}`).digest("hex");

describe.each(["file", "redis"] as const)("tenancy: side-file addresses and smaller points [%s]", (mode) => {
  let server: TestServer;
  let site: Awaited<ReturnType<typeof cookieSite>>;
  let receiver: Awaited<ReturnType<typeof listenLocal>>;
  /** An upload address that refuses every PUT, as a presigned address past its time does. */
  let forbidden: Awaited<ReturnType<typeof listenLocal>>;
  /** B's render with every side file, as its sync answer gave it. */
  let render: Body;

  beforeAll(async () => {
    site = await cookieSite();
    receiver = await listenLocal(() => ({ status: 200, body: "" }));
    forbidden = await listenLocal(() => ({
      status: 403,
      type: "application/xml",
      body: "<Error><Code>AccessDenied</Code></Error>",
    }));
    server = await startTestServer(
      {
        projects: [
          // A may use tokenless links (finding 8); B only signed ones.
          { ...PROJECT_A, allowTokenless: true, rateLimit: { requests: 1000, perSeconds: 60 } },
          { ...PROJECT_B, rateLimit: { requests: 1000, perSeconds: 60 } },
        ],
      },
      undefined,
      { mode },
    );
    const answer = await api(server.url, "/v1/render/sync", {
      key: B,
      json: { url: `${site.url}/b-page`, format: "png", width: 200, height: 150, ...ALL_SIDES },
    });
    expect(answer.status, answer.text).toBe(200);
    render = answer.body;
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    await site?.close();
    await receiver?.close();
    await forbidden?.close();
  });

  /** The address of `/renders/<key>` on this server. */
  const renders = (key: string) => `${server.url}/renders/${key}`;

  it("tenancy finding 2: from B's renderUrl nobody can reach its side files: every old address answers 404", async () => {
    const { renderId, renderUrl } = render;
    expect(renderUrl).toBe(renders(`${renderId}.png`));
    for (const { old, field } of SIDES) {
      const address = renders(`${renderId}${old}`);
      // Anyone, and B itself: nothing is stored there.
      for (const key of [undefined, A, B]) {
        const answer = await get(address, { key });
        expect(answer.status, `${old} with ${key ?? "no key"}: ${answer.text.slice(0, 200)}`).toBe(404);
        expect(answer.body.error.code).toBe("NotFound");
        expect(answer.text).not.toContain(SESSION);
      }
      expect((await get(address, { method: "HEAD" })).status, `HEAD ${old}`).toBe(404);
      expect(render[field], field).not.toBe(address);
    }
  }, 60_000);

  it("tenancy finding 2: each side file has a token of its own: no side address follows from another", async () => {
    const { renderId } = render;
    const keys = SIDES.map(({ field }) => {
      const address = String(render[field]);
      expect(address.startsWith(renders("")), field).toBe(true);
      return address.slice(renders("").length);
    });
    const tokens = SIDES.map(({ field, old }) => {
      const token = tokenOf(render[field], renderId, old);
      expect(token, `${field}: ${render[field]}`).toBeDefined();
      return token as string;
    });
    expect(new Set(tokens).size).toBe(SIDES.length);
    // Each token with every other kind's suffix: nothing there, even for B.
    for (const token of tokens) {
      for (const { old } of SIDES) {
        const key = `${renderId}-${token}${old}`;
        if (keys.includes(key)) continue;
        const answer = await get(renders(key), { key: B });
        expect(answer.status, key).toBe(404);
      }
    }
  }, 60_000);

  it("tenancy finding 2: each side file's address serves its bytes; the render's own address works as before", async () => {
    for (const side of SIDES) {
      const answer = await get(render[side.field], side.private ? { key: B } : {});
      expect(answer.status, `${side.field}: ${answer.text.slice(0, 200)}`).toBe(200);
      expect(answer.headers.get("content-type"), side.field).toMatch(side.type);
      expect(answer.headers.get("x-content-type-options"), side.field).toBe("nosniff");
      expect(answer.headers.get("cache-control"), side.field).toBe(side.private ? "private, no-store" : "private, max-age=3600");
      expect(answer.bytes.length, side.field).toBeGreaterThan(0);
    }
    expect((await get(render.htmlUrl)).text).toContain("<h1>B</h1>");
    expect((await get(render.markdownUrl)).text).toContain("# B");
    expect((await get(render.metadataUrl)).body).toMatchObject({ title: "B's page" });
    expect((await get(render.linksUrl)).body).toEqual([{ href: `${site.url}/next`, text: "Next", rel: null }]);
    const requests = (await get(render.resourceInfoUrl)).body as { url: string }[];
    expect(requests[0]?.url).toBe(`${site.url}/b-page`);
    expect((await get(render.headersUrl, { key: B })).body.headers["set-cookie"]).toContain(SESSION);
    // The png: from the server's storage in file mode; a 302 to a fresh presigned address with S3.
    const png = await get(render.renderUrl);
    if (mode === "redis") {
      expect(png.status).toBe(302);
      const location = png.headers.get("location") ?? "";
      expect(location).toMatch(/X-Amz-Signature=/);
      const bytes = await get(location);
      expect(bytes.status).toBe(200);
      expect(bytes.bytes.subarray(1, 4).toString()).toBe("PNG");
    } else {
      expect(png.status).toBe(200);
      expect(png.headers.get("content-type")).toBe("image/png");
    }
  }, 60_000);

  it("tenancy finding 2: the cookie and header files are served to B's secret key only, and never cached", async () => {
    for (const field of ["cookiesUrl", "headersUrl"] as const) {
      const address = render[field] as string;
      const none = await get(address);
      expect(none.status, field).toBe(401);
      expect(none.body.error.code).toBe("NoApiKeySupplied");
      expect(none.text).not.toContain(SESSION);
      const publishable = await get(address, { key: PROJECT_B.publishableKey });
      expect(publishable.status, field).toBe(401);
      expect(publishable.body.error.code).toBe("ApiKeyNotFound");
      // Another project's key: the answer of a file that does not exist.
      const other = await get(address, { key: A });
      expect(other.status, field).toBe(404);
      expect(other.body.error).toEqual({ message: "No such render, or it expired", code: "NotFound" });
      expect((await get(address, { method: "HEAD" })).status, `HEAD ${field}`).toBe(401);
      expect((await get(address, { method: "HEAD", key: A })).status, `HEAD ${field}`).toBe(404);
      expect((await get(address, { headers: { range: "bytes=0-9" } })).status, `range ${field}`).toBe(401);
      // The same key spelled with escapes is the same file, under the same rule.
      const escaped = address.replace(/-/g, "%2D");
      expect((await get(escaped)).status, `escaped ${field}`).toBe(401);
      expect((await get(escaped, { key: A })).status, `escaped ${field}`).toBe(404);
      const own = await get(address, { key: B });
      expect(own.status, field).toBe(200);
      expect(own.headers.get("cache-control")).toBe("private, no-store");
      expect(own.headers.get("location")).toBeNull();
      const part = await get(address, { key: B, headers: { range: "bytes=0-0" } });
      expect(part.status, field).toBe(206);
      expect(part.headers.get("cache-control")).toBe("private, no-store");
    }
    const cookies = (await get(render.cookiesUrl, { key: B })).body as Record<string, unknown>[];
    expect(cookies).toEqual([expect.objectContaining({ name: "sid", value: SESSION, httpOnly: true })]);
  }, 60_000);

  it("tenancy finding 2: project A cannot reach B's side files through its own key, renders or lookups", async () => {
    const { renderId } = render;
    // B's status record and its sync address, asked for with A's key: the answer of an unknown id.
    const status = await api(server.url, `/v1/render/${renderId}`, { key: A });
    expect(status.status).toBe(404);
    expect(status.body.status).toBe("not-found");
    const resume = await api(server.url, `/v1/render/sync/${renderId}`, { key: A });
    expect(resume.status).toBe(404);
    for (const { field, old } of SIDES) {
      const token = tokenOf(render[field], renderId, old) as string;
      expect(status.text).not.toContain(token);
      expect(resume.text).not.toContain(token);
    }
    // A's own render with a cookie file: A reads it, B cannot; its tokens are not B's.
    const mine = await api(server.url, "/v1/render/sync", {
      key: A,
      json: { url: `${site.url}/a-page`, format: "png", width: 120, height: 100, save_cookies: true, save_html: true },
    });
    expect(mine.status, mine.text).toBe(200);
    expect((await get(mine.body.cookiesUrl, { key: A })).status).toBe(200);
    expect((await get(mine.body.cookiesUrl, { key: B })).status).toBe(404);
    const aToken = tokenOf(mine.body.cookiesUrl, mine.body.renderId, "-cookies.json") as string;
    expect(aToken).toBeDefined();
    for (const { field, old } of SIDES) {
      // A's token with B's render id, and A's render id with B's tokens: nothing, for A or B.
      const bToken = tokenOf(render[field], renderId, old) as string;
      for (const key of [A, B]) {
        expect((await get(renders(`${renderId}-${aToken}${old}`), { key })).status, old).toBe(404);
        expect((await get(renders(`${mine.body.renderId}-${bToken}${old}`), { key })).status, old).toBe(404);
      }
    }
    // Names the server refuses outright, whoever asks.
    for (const path of [
      `${renderId}-cookies.JSON`,
      `..%2F${renderId}.png`,
      `${renderId}.png.json`,
      `${renderId}%00-cookies.json`,
    ]) {
      const answer = await get(`${server.url}/renders/${path}`, { key: A });
      expect(answer.status, path).toBe(404);
    }
  }, 120_000);

  it("tenancy finding 2: render links and response_type hand out the new addresses, and they work", async () => {
    const query = `url=${encodeURIComponent(`${site.url}/b-link`)}&width=120&height=100&save_html=true&save_cookies=true&response_type=json`;
    const link = await api(server.url, `/v1/${PROJECT_B.publishableKey}/${sign(B, "png", query)}/png?${query}`);
    expect(link.status, link.text).toBe(200);
    const { renderId, htmlUrl, cookiesUrl } = link.body;
    expect(htmlUrl).toMatch(new RegExp(`^${server.url}/renders/${renderId}-[A-Za-z0-9_-]{22}\\.html$`));
    expect(cookiesUrl).toMatch(new RegExp(`^${server.url}/renders/${renderId}-[A-Za-z0-9_-]{22}-cookies\\.json$`));
    expect((await get(htmlUrl)).status).toBe(200);
    expect((await get(cookiesUrl)).status).toBe(401);
    expect((await get(cookiesUrl, { key: B })).body).toEqual([expect.objectContaining({ name: "sid", value: SESSION })]);
    // A binary answer names them in its headers.
    const binary = await api(server.url, "/v1/render/sync", {
      key: B,
      json: { url: `${site.url}/b-binary`, width: 120, height: 100, save_markdown: true, response_type: "binary" },
    });
    expect(binary.status, binary.text).toBe(200);
    const markdownUrl = binary.headers.get("x-render-markdown-url") ?? "";
    expect(markdownUrl).toMatch(/-[A-Za-z0-9_-]{22}\.md$/);
    expect((await get(markdownUrl)).text).toContain("# B");
  }, 120_000);

  it("tenancy finding 2: side files expire with their render: the sweep removes them by their new keys", async () => {
    const answer = await api(server.url, "/v1/render/sync", {
      key: B,
      json: { url: `${site.url}/b-short`, width: 120, height: 100, ttl: 60, save_html: true, save_cookies: true },
    });
    expect(answer.status, answer.text).toBe(200);
    const { htmlUrl, cookiesUrl } = answer.body;
    expect((await get(htmlUrl)).status).toBe(200);
    expect((await get(cookiesUrl, { key: B })).status).toBe(200);
    // The server's own sweep, run as if two minutes had passed: only what expires by then goes.
    const storage: Storage =
      mode === "redis"
        ? new S3Storage({ ...(await sharedServices()).s3.bucket("renders"), sweep: true })
        : new FsStorage(join(server.dataDir, "renders"));
    try {
      expect(await storage.sweep?.(Date.now() + 120_000)).toBeGreaterThanOrEqual(3);
    } finally {
      await storage.close?.();
    }
    expect((await get(htmlUrl)).status).toBe(404);
    expect((await get(cookiesUrl, { key: B })).status).toBe(404);
    // B's render of 30 days is still there.
    expect((await get(render.htmlUrl)).status).toBe(200);
    expect((await get(render.cookiesUrl, { key: B })).status).toBe(200);
  }, 120_000);

  it("tenancy finding 2: a render that fails after storing side files leaves none behind", async () => {
    // The render's own upload is refused (403) after its side files were stored: the attempt fails.
    const upload = `${forbidden.url}/bucket/shot.png?X-Amz-Signature=0123456789abcdef`;
    const created = await api(server.url, "/v1/render/async", {
      key: B,
      json: { url: `${site.url}/b-failing`, save_html: true, save_cookies: true, save_links: true, s3_presigned_url: upload },
    });
    expect(created.status, created.text).toBe(201);
    const { renderId } = created.body;
    await expect
      .poll(async () => (await api(server.url, `/v1/render/${renderId}`, { key: B })).body.status, { timeout: 60_000 })
      .toBe("failed");
    expect(forbidden.requests.some((r) => r.url.startsWith("/bucket/shot.png?"))).toBe(true);
    expect(site.seen("/b-failing")).toBeGreaterThan(0);
    let left: string[];
    if (mode === "redis") {
      const client = (await sharedServices()).s3.client();
      try {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: "renders", Prefix: renderId }));
        left = (listed.Contents ?? []).map((entry) => entry.Key ?? "");
      } finally {
        client.destroy();
      }
    } else {
      left = (await readdir(join(server.dataDir, "renders"))).filter((name) => name.startsWith(renderId));
    }
    expect(left).toEqual([]);
  }, 120_000);

  it("tenancy finding 8: a tokenless link may not carry webhook_url: 400 InvalidOptions, nothing rendered, no POST", async () => {
    const hook = `${receiver.url}/tokenless`;
    for (const name of ["webhook_url", "webhookUrl", "webhook_url[]", "webhook-url"]) {
      for (const value of [hook, ""]) {
        const query = `url=${encodeURIComponent(`${site.url}/hooked`)}&${name}=${encodeURIComponent(value)}`;
        const answer = await api(server.url, `/v1/${PROJECT_A.publishableKey}/png?${query}`);
        expect(answer.status, `${name}=${value}: ${answer.text}`).toBe(400);
        expect(answer.body.error.code).toBe("InvalidOptions");
        expect(answer.body.error.message).toMatch(/^Option webhook_url needs a signed render link or the API/);
      }
    }
    // A signed link keeps it: its POST arrives, and it is the receiver's only one.
    const query = `url=${encodeURIComponent(`${site.url}/hooked-signed`)}&webhook_url=${encodeURIComponent(`${receiver.url}/signed`)}`;
    const signed = await api(server.url, `/v1/${PROJECT_B.publishableKey}/${sign(B, "png", query)}/png?${query}`);
    expect(signed.status, signed.text).toBe(200);
    const id = signed.headers.get("x-render-id");
    await expect
      .poll(() => receiver.requests.some((r) => r.url === "/signed" && JSON.parse(r.body).renderId === id), { timeout: 30_000 })
      .toBe(true);
    expect(receiver.requests.filter((r) => r.url === "/tokenless")).toEqual([]);
    expect(site.seen("/hooked")).toBe(0);
  }, 120_000);

  it("tenancy finding 8: error answers that repeat the caller's text carry nosniff", async () => {
    const script = "<script>alert(1)</script>";
    const markup = "<img src=x>";
    const answers = {
      "InvalidOptions naming the caller's format": await api(server.url, "/v1/render/sync", {
        key: A,
        json: { html: "<p>x</p>", format: markup },
      }),
      "a link's InvalidOptions": await api(server.url, `/v1/${PROJECT_A.publishableKey}/${encodeURIComponent("<svg>")}?html=x`),
      "the status 404 repeating the id": await api(
        server.url,
        `/v1/render/${encodeURIComponent("<img src=x onerror=alert(1)>")}`,
        {
          key: A,
        },
      ),
      "the route 404": await api(server.url, `/${encodeURIComponent(script)}`),
      "the 405": await api(server.url, "/v1/render/sync", { method: "DELETE", key: A }),
      "a 401": await api(server.url, "/v1/render/sync", { json: { html: script } }),
      "a link's InvalidQuery": await api(server.url, `/v1/${PROJECT_A.publishableKey}/png?html=x&expires=1`),
    };
    for (const [what, answer] of Object.entries(answers)) {
      expect(answer.status, what).toBeGreaterThanOrEqual(400);
      expect(answer.headers.get("content-type"), what).toBe("application/json; charset=utf-8");
      expect(answer.headers.get("x-content-type-options"), what).toBe("nosniff");
    }
    expect(answers["InvalidOptions naming the caller's format"].body.error.code).toBe("InvalidOptions");
    expect(answers["InvalidOptions naming the caller's format"].body.error.message).toMatch(
      /^Option format "<img src=x>" is not available; installed formats: /,
    );
    expect(answers["a link's InvalidOptions"].body.error.message).toContain("svg");
    expect(answers["the status 404 repeating the id"].body.renderId).toBe("<img src=x onerror=alert(1)>");
  }, 60_000);

  it("tenancy finding 8: a repeated download parameter is refused (400 InvalidQuery), not dropped", async () => {
    const page = (path: string) => `url=${encodeURIComponent(`${site.url}${path}`)}&width=120&height=100`;
    for (const extra of ["&download=a.png&download=b.png", "&download[]=a.png", "&download=a.png&download=a.png"]) {
      const query = `${page("/download-twice")}${extra}`;
      const tokenless = await api(server.url, `/v1/${PROJECT_A.publishableKey}/png?${query}`);
      expect(tokenless.status, `${extra}: ${tokenless.text}`).toBe(400);
      expect(tokenless.body.error).toEqual({
        message: "download must appear once, as the file name of the answer",
        code: "InvalidQuery",
      });
      const signed = await api(server.url, `/v1/${PROJECT_B.publishableKey}/${sign(B, "png", query)}/png?${query}`);
      expect(signed.status, `signed ${extra}`).toBe(400);
      expect(signed.body.error.code).toBe("InvalidQuery");
    }
    expect(site.seen("/download-twice")).toBe(0);
    const once = await api(server.url, `/v1/${PROJECT_A.publishableKey}/png?${page("/download-once")}&download=shot.png`);
    expect(once.status, once.text).toBe(200);
    expect(once.headers.get("content-disposition")).toBe('attachment; filename="shot.png"');
  }, 60_000);
});
