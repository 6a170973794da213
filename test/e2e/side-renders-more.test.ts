import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { ResourceRecord } from "@renderkit/core";
import { RecordingLogger } from "@renderkit/core/testing";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

let site: Server;
let base: string;
let png: Buffer;

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Facts</title>
<link rel="stylesheet" href="/style.css"></head>
<body><h1 id="t">Original</h1>
<a href="/one">One</a> <a href="/one">One again</a> <a href="two?x=1" rel="nofollow noopener">  Two
   words </a> <a href="javascript:void(0)">js</a> <a href="mailto:a@b.c">mail</a>
<map name="m"><area href="/area" alt="Area link" shape="rect" coords="0,0,1,1"></map>
<a href="https://example.com/ext" title="External"><img alt="" src="/img.png"></a>
<img src="/missing.png"><img src="http://10.255.255.1/denied.png">
<script src="/blocked.js"></script>
<script>
  document.cookie = "js=from-script; path=/";
  document.body.insertAdjacentHTML("beforeend", "<p id=built>built by script</p>");
  fetch("/api").then((r) => r.json()).then((j) => document.body.insertAdjacentHTML("beforeend", "<p id=fetched>" + j.n + "</p>"));
</script></body></html>`;

const MANY_LINKS = `<body><script>
  let html = "";
  for (let i = 0; i < 100000; i++) html += '<a href="/l/' + (i % 60000) + '">link ' + i + "</a>";
  document.body.innerHTML = html;
</script></body>`;

const MANY_REQUESTS = `<body><script>
  (async () => {
    for (let i = 0; i < 2100; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => fetch("/px?i=" + (i + k)).then((r) => r.text())));
    }
    document.body.insertAdjacentHTML("beforeend", "<p id=done>done</p>");
  })();
</script></body>`;

beforeAll(async () => {
  png = await sharp({ create: { width: 4, height: 4, channels: 3, background: "#00f" } })
    .png()
    .toBuffer();
  site = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    const send = (status: number, type: string, body: string | Buffer, extra: Record<string, string | string[]> = {}) => {
      res.writeHead(status, { "content-type": type, ...extra });
      res.end(body);
    };
    if (path === "/redirect") {
      res.writeHead(302, { location: "/page" });
      return res.end();
    }
    if (path === "/page") {
      return send(200, "text/html; charset=utf-8", PAGE, {
        "x-custom": "hello",
        "set-cookie": ["srv=server-secret; Path=/; HttpOnly; SameSite=Strict", "keep=1; Path=/; Max-Age=3600"],
      });
    }
    if (path === "/style.css") return send(200, "text/css", "h1 { color: rgb(255, 0, 0) }");
    if (path === "/img.png") return send(200, "image/png", png);
    if (path === "/blocked.js") return send(200, "text/javascript", "window.loaded = 1;");
    if (path === "/api") return send(200, "application/json", JSON.stringify({ n: 42 }));
    if (path === "/many-links") return send(200, "text/html", MANY_LINKS);
    if (path === "/many-requests") return send(200, "text/html", MANY_REQUESTS);
    if (path === "/px") return send(200, "text/plain", "x");
    send(404, "text/plain", "not found");
  });
  await new Promise<void>((r) => site.listen(0, "127.0.0.1", () => r()));
  base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => site.close(() => r())));

const read = (url: unknown) => readFileSync(fileURLToPath(String(url)));
const readJson = (url: unknown) => JSON.parse(read(url).toString("utf8"));

/** One MIME part of an MHTML archive, its body decoded. */
interface Part {
  type: string;
  location: string;
  body: Buffer;
}

/** Splits Chromium's MHTML into its parts and decodes them (quoted-printable or base64). */
function mhtmlParts(text: string): { header: string; parts: Part[] } {
  const boundary = /boundary="([^"]+)"/.exec(text)?.[1];
  if (!boundary) throw new Error("no MIME boundary in the MHTML header");
  const [header = "", ...rest] = text.split(`--${boundary}`);
  const parts = rest
    .filter((chunk) => !chunk.startsWith("--"))
    .map((chunk) => {
      const at = chunk.indexOf("\r\n\r\n");
      const head = chunk.slice(0, at);
      const raw = chunk.slice(at + 4);
      const field = (name: string) => new RegExp(`^${name}: *(.*)$`, "im").exec(head)?.[1]?.trim() ?? "";
      const encoding = field("Content-Transfer-Encoding").toLowerCase();
      const body =
        encoding === "base64"
          ? Buffer.from(raw.replace(/\s+/g, ""), "base64")
          : encoding === "quoted-printable"
            ? Buffer.from(
                raw
                  .replace(/=\r?\n/g, "")
                  .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))),
                "latin1",
              )
            : Buffer.from(raw, "latin1");
      return { type: field("Content-Type"), location: field("Content-Location"), body };
    });
  return { header, parts };
}

/** Checks an MHTML snapshot of PAGE after its preparation: the DOM as scripts and the `js` option left it, with its resources. */
function expectSnapshotOfPage(mhtml: Buffer): void {
  const { header, parts } = mhtmlParts(mhtml.toString("latin1"));
  expect(header).toMatch(/^Content-Type: multipart\/related;/m);
  const [main] = parts;
  expect(main?.type).toBe("text/html");
  expect(main?.location).toBe(`${base}/page`);
  const html = main?.body.toString("utf8") ?? "";
  expect(html).toContain("built by script");
  expect(html).toContain("Changed by the js option");
  expect(html).not.toContain(">Original<");
  const css = parts.find((p) => p.location === `${base}/style.css`);
  expect(css?.body.toString("utf8")).toContain("rgb(255, 0, 0)");
  const image = parts.find((p) => p.location === `${base}/img.png`);
  expect(image?.type).toBe("image/png");
  expect(image?.body.equals(png)).toBe(true);
}

const JS = "document.getElementById('t').textContent = 'Changed by the js option'";

forEachEngine((engine) => {
  let rk: TestRenderer;
  const logger = new RecordingLogger();
  const once = onOneEngine(engine);
  beforeAll(async () => {
    rk = await startRenderer([new URL(base).host], { logger }, engine);
  });
  afterAll(() => rk?.close());

  describe("mhtml", () => {
    it("format mhtml is Chromium's MHTML archive of the prepared page, as multipart/related", async () => {
      const result = await rk.renderer.render({ url: `${base}/page`, format: "mhtml", js: JS, save_mhtml: true });
      expect(result.contentType).toBe("multipart/related");
      expect(result.renderUrl).toMatch(new RegExp(`${result.renderId}\\.mhtml$`));
      expect(result.mhtmlUrl).toBe(result.renderUrl);
      expectSnapshotOfPage(read(result.renderUrl));
    });

    it("save_mhtml stores the snapshot beside a png and adds mhtmlUrl", async () => {
      const result = await rk.renderer.render({ url: `${base}/page`, format: "png", js: JS, save_mhtml: true });
      expect(result.contentType).toBe("image/png");
      expect((await sharp(read(result.renderUrl)).metadata()).format).toBe("png");
      expect(result.mhtmlUrl).toMatch(new RegExp(`${result.renderId}-[A-Za-z0-9_-]{22}\\.mhtml$`));
      expectSnapshotOfPage(read(result.mhtmlUrl));
    });
  });

  describe("cookies and headers", () => {
    it("save_cookies stores every cookie of the page: the request's, the response's (httpOnly too) and the script's", async () => {
      const result = await rk.renderer.render({ url: `${base}/page`, save_cookies: true, cookies: ["opt=from-client"] });
      expect(result.cookiesUrl).toMatch(new RegExp(`${result.renderId}-[A-Za-z0-9_-]{22}-cookies\\.json$`));
      const cookies = readJson(result.cookiesUrl) as Record<string, unknown>[];
      const byName = Object.fromEntries(cookies.map((c) => [c.name, c]));
      expect(Object.keys(byName).sort()).toEqual(["js", "keep", "opt", "srv"]);
      expect(byName.srv).toEqual({
        name: "srv",
        value: "server-secret",
        domain: "127.0.0.1",
        path: "/",
        expires: -1,
        httpOnly: true,
        secure: false,
        sameSite: "Strict",
      });
      expect(byName.js).toMatchObject({ value: "from-script", httpOnly: false, expires: -1, sameSite: "Lax" });
      expect(byName.opt).toMatchObject({ value: "from-client", domain: "127.0.0.1" });
      const keep = byName.keep as { expires: number };
      expect(keep.expires).toBeGreaterThan(Date.now() / 1000 + 3_000);
      expect(keep.expires).toBeLessThan(Date.now() / 1000 + 3_700);
    });

    it("save_headers stores the main document's final address, status and headers, set-cookie included", async () => {
      const result = await rk.renderer.render({ url: `${base}/redirect`, save_headers: true });
      expect(result.headersUrl).toMatch(new RegExp(`${result.renderId}-[A-Za-z0-9_-]{22}-headers\\.json$`));
      const saved = readJson(result.headersUrl);
      expect(saved).toMatchObject({ source: "url", url: `${base}/page`, status: 200 });
      expect(saved.headers["x-custom"]).toBe("hello");
      expect(saved.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(saved.headers["set-cookie"].split("\n")).toEqual([
        "srv=server-secret; Path=/; HttpOnly; SameSite=Strict",
        "keep=1; Path=/; Max-Age=3600",
      ]);
      expect(Object.keys(saved.headers).every((name) => name === name.toLowerCase())).toBe(true);
    });

    it("save_headers on supplied html says there is no response instead of failing", async () => {
      const result = await rk.renderer.render({ html: "<p>inline</p>", save_headers: true });
      expect(readJson(result.headersUrl)).toEqual({
        source: "html",
        url: null,
        status: null,
        headers: null,
        note: "The page was supplied as html: it has no HTTP response.",
      });
    });

    once("never logs the cookie and header values it stores", async () => {
      const result = await rk.renderer.render({
        url: `${base}/page`,
        save_cookies: true,
        save_headers: true,
        cookies: ["k=client-token"],
      });
      expect(read(result.cookiesUrl).toString()).toContain("client-token");
      const logged = JSON.stringify(logger.entries);
      expect(logger.entries.length).toBeGreaterThan(0);
      expect(logged).not.toContain("server-secret");
      expect(logged).not.toContain("client-token");
    });
  });

  describe("links", () => {
    it("save_links stores the page's links: absolute, deduplicated, no javascript:, with text and rel", async () => {
      const result = await rk.renderer.render({ url: `${base}/page`, format: "jpg", save_links: true });
      expect(result.linksUrl).toMatch(new RegExp(`${result.renderId}-[A-Za-z0-9_-]{22}-links\\.json$`));
      expect(readJson(result.linksUrl)).toEqual([
        { href: `${base}/one`, text: "One", rel: null },
        { href: `${base}/two?x=1`, text: "Two words", rel: "nofollow noopener" },
        { href: "mailto:a@b.c", text: "mail", rel: null },
        { href: `${base}/area`, text: "Area link", rel: null },
        { href: "https://example.com/ext", text: "External", rel: null },
      ]);
    });

    once("save_links keeps the first 5,000 distinct links of a page with 100,000", async () => {
      const result = await rk.renderer.render({ url: `${base}/many-links`, save_links: true });
      const links = readJson(result.linksUrl) as { href: string; text: string }[];
      expect(links).toHaveLength(5_000);
      expect(links[0]).toEqual({ href: `${base}/l/0`, text: "link 0", rel: null });
      expect(links[4_999]).toEqual({ href: `${base}/l/4999`, text: "link 4999", rel: null });
    });
  });

  describe("resource info", () => {
    it("save_resource_info lists the page's requests with status, type, size, and the blocked and failed ones", async () => {
      const result = await rk.renderer.render({
        url: `${base}/redirect`,
        save_resource_info: true,
        block_scripts: true,
        wait_for: "#fetched",
      });
      expect(result.resourceInfoUrl).toMatch(new RegExp(`${result.renderId}-[A-Za-z0-9_-]{22}-resources\\.json$`));
      expect(result.resourceInfoOmitted).toBeUndefined();
      const requests = readJson(result.resourceInfoUrl) as ResourceRecord[];
      const at = (path: string) => requests.find((r) => r.url === (path.startsWith("http") ? path : `${base}${path}`));
      const ok = { method: "GET", status: 200, fromCache: false, finished: true, failed: false, blocked: false, reason: null };
      expect(requests[0]).toMatchObject({ url: `${base}/redirect`, type: "document", status: 302, blocked: false });
      expect(at("/page")).toMatchObject({ ...ok, type: "document", mimeType: "text/html" });
      expect(at("/style.css")).toMatchObject({ ...ok, type: "stylesheet", mimeType: "text/css" });
      expect(at("/img.png")).toMatchObject({ ...ok, type: "image", mimeType: "image/png" });
      expect(at("/api")).toMatchObject({ ...ok, type: "fetch", mimeType: "application/json" });
      expect(at("/missing.png")).toMatchObject({ type: "image", status: 404, failed: false });
      expect(at("/blocked.js")).toMatchObject({ type: "script", status: null, failed: true, blocked: true });
      expect(at("/blocked.js")?.reason).toContain("net::ERR_BLOCKED_BY_CLIENT");
      expect(at("http://10.255.255.1/denied.png")).toMatchObject({
        status: 403,
        blocked: true,
        reason: "refused by the address policy",
      });
      // Bytes received include the headers: more than the body.
      expect(at("/img.png")?.size).toBeGreaterThan(png.length);
      expect(at("/page")?.size).toBeGreaterThan(PAGE.length);
    });

    once(
      "save_resource_info lists the first 2,000 requests and counts the rest",
      async () => {
        const result = await rk.renderer.render({
          url: `${base}/many-requests`,
          save_resource_info: true,
          wait_for: "#done",
          wait_timeout: 30_000,
        });
        const requests = readJson(result.resourceInfoUrl) as ResourceRecord[];
        expect(requests).toHaveLength(2_000);
        expect(requests[0]?.url).toBe(`${base}/many-requests`);
        // The page, its fetches in the order they were made, and maybe /favicon.ico (Chromium asks after the load).
        const fetches = requests.filter((r) => r.url.startsWith(`${base}/px?i=`));
        const others = requests.slice(1).filter((r) => !r.url.startsWith(`${base}/px?i=`));
        expect(others.every((r) => r.url === `${base}/favicon.ico`)).toBe(true);
        expect(new Set(fetches.map((r) => r.url))).toEqual(new Set(fetches.map((_, i) => `${base}/px?i=${i}`)));
        expect(fetches.every((r) => r.status === 200 && r.finished)).toBe(true);
        // 2,101 requests (2,102 with the favicon), 2,000 listed.
        const missing = 2_100 - fetches.length;
        expect(result.resourceInfoOmitted).toBeGreaterThanOrEqual(missing);
        expect(result.resourceInfoOmitted).toBeLessThanOrEqual(missing + 1);
      },
      120_000,
    );
  });
});
