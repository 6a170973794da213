import { createHmac } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findChromium } from "@renderkit/core/chromium";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../dist/config/index.js";
import { ProjectStore } from "../dist/projects/store.js";
import { api, listenLocal, startTestServer, type TestServer } from "./helpers.js";

/**
 * Issue 14, findings 1 to 3, as an attacker tries them against render links: script in a
 * rendered document on the service's origin, a published link replayed in another format (or
 * after its time), and token guessing without limit. Each answer is checked as the attacker sees
 * it: status, error code, headers, and the target site that saw (or did not see) a render.
 */

const project = (name: string) => ({
  id: name,
  secretKey: `sk_test_${name}_0123456789abcdef`,
  publishableKey: `pk_test_${name}`,
  webhookSecret: `whsec_${name}_0123456789abcdef`,
  rateLimit: { requests: 1000, perSeconds: 60 },
});
const SIGNED = project("signed");
const LEGACY = { ...project("legacy"), legacyLinkTokens: true, linkFormats: ["png", "jpg"] };
const OPEN = { ...project("open"), allowTokenless: true };
const OPEN_PNG = { ...project("openpng"), allowTokenless: true, linkFormats: ["png"] };
const EXPIRING = { ...project("expiring"), linkMaxAgeSeconds: 600 };
const LIMITED = { ...project("limited"), rateLimit: { requests: 2, perSeconds: 120 } };

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;

beforeAll(async () => {
  site = await listenLocal((req) => ({ body: `<body style="margin:0;background:rgb(0,128,0)"><p>page ${req.url}</p></body>` }));
  server = await startTestServer({ projects: [SIGNED, LEGACY, OPEN, OPEN_PNG, EXPIRING, LIMITED] });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

/** The documented token: hex HMAC-SHA256 of `<format>?<query>` keyed with the secret key. */
const sign = (p: { secretKey: string }, format: string, query: string) =>
  createHmac("sha256", p.secretKey).update(`${format}?${query}`).digest("hex");
/** A token of the query alone, as the `urlbox` client makes it (or SHA-1, as older clients do). */
const signQuery = (p: { secretKey: string }, query: string, algorithm: "sha256" | "sha1" = "sha256") =>
  createHmac(algorithm, p.secretKey).update(query).digest("hex");

/** Requests the site saw for `path` (each render of a page there is one). */
const seen = (path: string) => site.requests.filter((r) => r.url === path).length;
const pageQuery = (path: string, extra = "") => `url=${encodeURIComponent(`${site.url}${path}`)}&width=200&height=150${extra}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe("finding 1: render bytes never run as a document on the service's origin", () => {
  const ATTACK = "<img src=x onerror=alert(document.domain)>";
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

  it("the issue's reproduction: a tokenless html link answers under CSP sandbox and nosniff, and runs no script", async () => {
    const path = `/v1/${OPEN.publishableKey}/html?html=${encodeURIComponent(ATTACK)}`;
    const answer = await api(server.url, path);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
    // The snapshot keeps the handler: only the headers stop it.
    expect(answer.text).toContain("onerror");
    expect(answer.headers.get("content-security-policy")).toMatch(/^sandbox; default-src 'none'/);
    expect(answer.headers.get("x-content-type-options")).toBe("nosniff");

    // What a victim's browser does with the link: no dialog, an opaque origin.
    const page = await browser.newPage();
    try {
      const dialogs: string[] = [];
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      // "load" waits for the broken image, whose error handler would run before it.
      const response = await page.goto(`${server.url}${path}`, { waitUntil: "load" });
      expect(response?.status()).toBe(200);
      expect(dialogs).toEqual([]);
      expect(await page.evaluate(() => window.origin)).toBe("null");
    } finally {
      await page.close();
    }
  }, 120_000);

  it("svg, md and mhtml links carry the sandbox too; images carry nosniff only", async () => {
    for (const format of ["svg", "md", "mhtml"]) {
      const answer = await api(server.url, `/v1/${OPEN.publishableKey}/${format}?${pageQuery(`/doc-${format}`)}`);
      expect(answer.status, `${format}: ${answer.text.slice(0, 200)}`).toBe(200);
      expect(answer.headers.get("content-security-policy"), format).toMatch(/^sandbox;/);
      expect(answer.headers.get("x-content-type-options"), format).toBe("nosniff");
    }
    const png = await api(server.url, `/v1/${OPEN.publishableKey}/png?${pageQuery("/doc-png")}`);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    expect(png.headers.get("x-content-type-options")).toBe("nosniff");
    expect(png.headers.get("content-security-policy")).toBeNull();
  }, 120_000);

  it("the sync API's binary and base64 answers and /renders/ send the same headers", async () => {
    const binary = await api(server.url, "/v1/render/sync", {
      key: OPEN.secretKey,
      json: { html: ATTACK, format: "html", response_type: "binary", save_markdown: true },
    });
    expect(binary.status, binary.text).toBe(200);
    expect(binary.headers.get("content-security-policy")).toMatch(/^sandbox;/);
    expect(binary.headers.get("x-content-type-options")).toBe("nosniff");
    const base64 = await api(server.url, "/v1/render/sync", {
      key: OPEN.secretKey,
      json: { html: ATTACK, format: "html", response_type: "base64" },
    });
    expect(base64.status).toBe(200);
    expect(Buffer.from(base64.text, "base64").toString()).toContain("onerror");
    expect(base64.headers.get("x-content-type-options")).toBe("nosniff");
    // The markdown side file, at the server's own address: a document type, served from here
    // (never redirected to a bucket, whatever the storage) and sandboxed.
    const markdownUrl = binary.headers.get("x-render-markdown-url") ?? "";
    expect(markdownUrl).toMatch(/\/renders\/.+\.md$/);
    const side = await fetch(markdownUrl, { redirect: "manual" });
    await side.arrayBuffer();
    expect(side.status).toBe(200);
    expect(side.headers.get("content-security-policy")).toMatch(/^sandbox;/);
    expect(side.headers.get("x-content-type-options")).toBe("nosniff");
  }, 120_000);
});

describe("finding 2: a token covers the format, and may expire", () => {
  const link = (p: { publishableKey: string }, token: string, format: string, query: string) =>
    api(server.url, `/v1/${p.publishableKey}/${token}/${format}?${query}`);

  it("a published png link replayed as /html, /md and costlier formats: 401 TokenNotMatchedError, nothing rendered", async () => {
    const query = pageQuery("/published");
    const token = sign(SIGNED, "png", query);
    const png = await link(SIGNED, token, "png", query);
    expect(png.status, png.text).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    const renders = seen("/published");
    for (const format of ["html", "md", "pdf", "mp4", "mhtml"]) {
      const replay = await link(SIGNED, token, format, query);
      expect(replay.status, format).toBe(401);
      expect(replay.body.error.code, format).toBe("TokenNotMatchedError");
    }
    expect(seen("/published")).toBe(renders);
  }, 60_000);

  it("a query-only (urlbox) token passes only when the query names the path's format", async () => {
    const bare = pageQuery("/urlbox-bare");
    const refused = await link(SIGNED, signQuery(SIGNED, bare), "png", bare);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("TokenNotMatchedError");
    expect(refused.body.error.message).toMatch(/covers the query but not the format png/);
    const named = pageQuery("/urlbox-named", "&format=png");
    const token = signQuery(SIGNED, named);
    expect((await link(SIGNED, token, "png", named)).status).toBe(200);
    const replay = await link(SIGNED, token, "html", named);
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe("TokenNotMatchedError");
    expect(seen("/urlbox-bare")).toBe(0);
    expect(seen("/urlbox-named")).toBe(1);
  }, 60_000);

  it("SHA-1 tokens are refused unless the project is legacy", async () => {
    const query = pageQuery("/sha1");
    const refused = await link(SIGNED, signQuery(SIGNED, query, "sha1"), "png", query);
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe("TokenNotMatchedError");
    expect(refused.body.error.message).toMatch(/SHA-1 tokens are accepted only from projects with legacyLinkTokens/);
    expect(seen("/sha1")).toBe(0);
    const legacy = await link(LEGACY, signQuery(LEGACY, query, "sha1"), "png", query);
    expect(legacy.status, legacy.text).toBe(200);
    expect(legacy.headers.get("content-type")).toBe("image/png");
  }, 60_000);

  it("a legacy project's links replay in another format, narrowed by linkFormats", async () => {
    const query = pageQuery("/legacy");
    const token = signQuery(LEGACY, query);
    expect((await link(LEGACY, token, "png", query)).status).toBe(200);
    // Documented: a legacy token does not cover the format; linkFormats bounds what a replay gets.
    const jpg = await link(LEGACY, token, "jpg", query);
    expect(jpg.status).toBe(200);
    expect(jpg.headers.get("content-type")).toBe("image/jpeg");
    const renders = seen("/legacy");
    const html = await link(LEGACY, token, "html", query);
    expect(html.status).toBe(400);
    expect(html.body.error.code).toBe("OptionNotAvailableOnPlan");
    expect(html.body.error.message).toBe("Format html is not available on this project's render links (allowed: png, jpg)");
    expect(seen("/legacy")).toBe(renders);
  }, 60_000);

  it("expires: 410 RenderLinkExpired after it, 200 before it; a changed expires is a wrong token", async () => {
    const past = pageQuery("/expired", `&expires=${nowSeconds() - 3600}`);
    const expired = await link(SIGNED, sign(SIGNED, "png", past), "png", past);
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe("RenderLinkExpired");
    expect(expired.body.error.message).toMatch(/^The render link expired at \d{4}-\d\d-\d\dT/);
    expect(seen("/expired")).toBe(0);
    const extended = past.replace(/expires=\d+/, `expires=${nowSeconds() + 3600}`);
    const forged = await link(SIGNED, sign(SIGNED, "png", past), "png", extended);
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe("TokenNotMatchedError");
    const future = pageQuery("/not-expired", `&expires=${nowSeconds() + 3600}`);
    const fresh = await link(SIGNED, sign(SIGNED, "png", future), "png", future);
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.headers.get("x-ignored-options")).toBeNull();
    const garbled = pageQuery("/garbled", "&expires=tomorrow");
    const bad = await link(SIGNED, sign(SIGNED, "png", garbled), "png", garbled);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("InvalidQuery");
  }, 60_000);

  it("linkMaxAgeSeconds: a signed link needs expires, at most that far ahead", async () => {
    const none = pageQuery("/max-age-none");
    const missing = await link(EXPIRING, sign(EXPIRING, "png", none), "png", none);
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe("InvalidQuery");
    expect(missing.body.error.message).toMatch(/must carry expires=.*at most 600 s ahead/);
    const far = pageQuery("/max-age-far", `&expires=${nowSeconds() + 86_400}`);
    const tooFar = await link(EXPIRING, sign(EXPIRING, "png", far), "png", far);
    expect(tooFar.status).toBe(400);
    expect(tooFar.body.error.code).toBe("InvalidQuery");
    expect(tooFar.body.error.message).toMatch(/more than 600 s ahead/);
    const near = pageQuery("/max-age-near", `&expires=${nowSeconds() + 300}`);
    expect((await link(EXPIRING, sign(EXPIRING, "png", near), "png", near)).status).toBe(200);
    expect(seen("/max-age-none") + seen("/max-age-far")).toBe(0);
  }, 60_000);

  it("tokenless links have no expiry but respect linkFormats", async () => {
    const withExpiry = pageQuery("/tokenless-expires", `&expires=${nowSeconds() + 3600}`);
    const refused = await api(server.url, `/v1/${OPEN.publishableKey}/png?${withExpiry}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("InvalidQuery");
    expect(refused.body.error.message).toMatch(/expires needs a signed render link/);
    const query = pageQuery("/tokenless-formats");
    const html = await api(server.url, `/v1/${OPEN_PNG.publishableKey}/html?${query}`);
    expect(html.status).toBe(400);
    expect(html.body.error.code).toBe("OptionNotAvailableOnPlan");
    expect(seen("/tokenless-formats")).toBe(0);
    expect((await api(server.url, `/v1/${OPEN_PNG.publishableKey}/png?${query}`)).status).toBe(200);
  }, 60_000);
});

describe("finding 3: wrong tokens are rate limited", () => {
  it("25 bad tokens against a project limited to 2 per 120 s: 2 x 401, then 429 with Retry-After", async () => {
    const query = pageQuery("/guess");
    const answers = [];
    // One after another: the count, not the timing, decides.
    for (let i = 0; i < 25; i++) {
      const token = i.toString(16).padStart(64, "0");
      answers.push(await api(server.url, `/v1/${LIMITED.publishableKey}/${token}/png?${query}`));
    }
    expect(answers.map((a) => a.status)).toEqual([401, 401, ...Array(23).fill(429)]);
    for (const first of answers.slice(0, 2)) {
      expect(first.body.error).toEqual({ code: "TokenNotMatchedError", message: "The token does not match the query string" });
    }
    for (const refused of answers.slice(2)) {
      expect(refused.body.error.code).toBe("RateLimitExceededError");
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // The limit is the project's: a good token is refused too until the window ends.
    const good = await api(server.url, `/v1/${LIMITED.publishableKey}/${sign(LIMITED, "png", query)}/png?${query}`);
    expect(good.status).toBe(429);
    expect(seen("/guess")).toBe(0);
  }, 60_000);
});

describe("the project fields", () => {
  const base = { dataDir: tmpdir() };
  const configWith = (fields: Record<string, unknown>) =>
    loadConfig({ env: {}, overrides: { ...base, projects: [{ ...project("p"), ...fields }] } as never });

  it("are checked in the config file with clear errors", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ legacyLinkTokens: "yes" }, "projects[0].legacyLinkTokens must be true or false"],
      [{ linkFormats: [] }, "projects[0].linkFormats must be a non-empty list of format names"],
      [{ linkFormats: ["png", "P N G"] }, "projects[0].linkFormats[1] must be a format name such as png"],
      [{ linkMaxAgeSeconds: 0 }, "projects[0].linkMaxAgeSeconds must be a positive integer (at most 31536000)"],
      [{ linkMaxAgeSeconds: "600" }, "projects[0].linkMaxAgeSeconds must be a positive integer (at most 31536000)"],
    ];
    for (const [fields, message] of cases) {
      const error = await configWith(fields).catch((e: unknown) => e);
      expect(error, message).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toContain(message);
    }
    const ok = await configWith({ legacyLinkTokens: true, linkFormats: ["png"], linkMaxAgeSeconds: 600 });
    expect(ok.projects[0]).toMatchObject({ legacyLinkTokens: true, linkFormats: ["png"], linkMaxAgeSeconds: 600 });
  });

  it("are read from a hand-edited projects.json, and a wrong value is named", async () => {
    const dir = await mkdtemp(join(tmpdir(), "renderkit-link-fields-"));
    try {
      const config = await loadConfig({ env: {}, overrides: { dataDir: dir } });
      const masterKey = "ab".repeat(32);
      await ProjectStore.open(config, undefined, { masterKey });
      const file = join(dir, "projects.json");
      const stored = JSON.parse(await readFile(file, "utf8"));
      Object.assign(stored.projects[0], { legacyLinkTokens: true, linkFormats: ["png", "webp"], linkMaxAgeSeconds: 3600 });
      await writeFile(file, JSON.stringify(stored));
      const { store } = await ProjectStore.open(config, undefined, { masterKey });
      expect(store.byId("default")).toMatchObject({
        legacyLinkTokens: true,
        linkFormats: ["png", "webp"],
        linkMaxAgeSeconds: 3600,
      });
      stored.projects[0].linkMaxAgeSeconds = "an hour";
      await writeFile(file, JSON.stringify(stored));
      await expect(ProjectStore.open(config, undefined, { masterKey })).rejects.toThrow(
        `${file}: projects[0].linkMaxAgeSeconds must be a positive integer (at most 31536000)`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
