import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { ConsoleLogger, createRenderer, type RenderEvent } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRenderError } from "../../test/helpers/errors.js";
import { startS3, type TestS3 } from "../../test/helpers/s3.js";
import { api, listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

/**
 * Side files uploaded to the caller's presigned addresses (issue 11): `s3_presigned_url_html`,
 * `_markdown`, `_metadata`, `_mhtml`, `_resource_info`, each with its `save_*` option, through the
 * real server on both engines. Checked as a client would: the object in the bucket (s3rver), its
 * content and type, the addresses in the result, the status record and the webhook, nothing of
 * it in the server's storage, and the exact refusals.
 */

type Local = Awaited<ReturnType<typeof listenLocal>>;
// biome-ignore lint/suspicious/noExplicitAny: tests inspect answer bodies freely
type Body = any;

const A = PROJECT_A.secretKey;
const PAGE = `<!doctype html><html><head><title>Side files</title><meta name="description" content="Uploaded elsewhere">
<link rel="stylesheet" href="/style.css"></head><body><h1>Side files</h1><p id="late"></p>
<script>document.getElementById("late").textContent = "Written by script"</script></body></html>`;
/** Every side file: its `save_*` option, its upload option, its result field, its server suffix. */
const SIDES = [
  { save: "save_html", upload: "s3_presigned_url_html", field: "htmlUrl", suffix: ".html", type: /^text\/html/ },
  { save: "save_markdown", upload: "s3_presigned_url_markdown", field: "markdownUrl", suffix: ".md", type: /^text\/markdown/ },
  {
    save: "save_metadata",
    upload: "s3_presigned_url_metadata",
    field: "metadataUrl",
    suffix: ".json",
    type: /^application\/json/,
  },
  { save: "save_mhtml", upload: "s3_presigned_url_mhtml", field: "mhtmlUrl", suffix: ".mhtml", type: /^multipart\/related/ },
  {
    save: "save_resource_info",
    upload: "s3_presigned_url_resource_info",
    field: "resourceInfoUrl",
    suffix: "-resources.json",
    type: /^application\/json/,
  },
] as const;

let s3: TestS3;
let client: S3Client;
let site: Local;
let receiver: Local;
let forbidden: Local;
let server: TestServer;
const events: RenderEvent[] = [];
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  s3 = await startS3(["uploads"]);
  cleanup.push(() => s3.stop());
  client = s3.client();
  cleanup.push(async () => client.destroy());
  site = await listenLocal((req) =>
    req.url === "/style.css" ? { type: "text/css", body: "body { margin: 0; background: rgb(0, 128, 0) }" } : { body: PAGE },
  );
  cleanup.push(() => site.close());
  receiver = await listenLocal(() => ({ status: 200, body: "" }));
  cleanup.push(() => receiver.close());
  forbidden = await listenLocal(() => ({
    status: 403,
    type: "application/xml",
    body: "<Error><Code>AccessDenied</Code></Error>",
  }));
  cleanup.push(() => forbidden.close());
  server = await startTestServer();
  cleanup.push(() => server.close());
  server.running.renderer.on((event) => {
    events.push(event);
  });
});

afterAll(async () => {
  const failures: unknown[] = [];
  for (const step of cleanup.splice(0).reverse()) await step().catch((error: unknown) => failures.push(error));
  if (failures.length > 0) throw failures[0];
});

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const ended = (renderId: string): Promise<Body> =>
  until(async () => {
    const status = await api(server.url, `/v1/render/${renderId}`, { key: A });
    return ["succeeded", "failed"].includes(status.body?.status) ? status.body : undefined;
  }, `render ${renderId} to end`);

const sign = (key: string) => getSignedUrl(client, new PutObjectCommand({ Bucket: "uploads", Key: key }), { expiresIn: 600 });

async function getObject(key: string): Promise<{ type?: string; text: string; bytes: Buffer }> {
  const object = await client.send(new GetObjectCommand({ Bucket: "uploads", Key: key }));
  const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? []);
  return { type: object.ContentType, text: bytes.toString("utf8"), bytes };
}

async function exists(key: string): Promise<boolean> {
  try {
    await client.send(new HeadObjectCommand({ Bucket: "uploads", Key: key }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}

describe.each(["playwright", "puppeteer"])("%s: every side file to its own presigned address", (engine) => {
  it("uploads each with its type; the record and the webhook name the addresses; the server keeps none", async () => {
    const addresses = Object.fromEntries(
      await Promise.all(SIDES.map(async (s) => [s.upload, await sign(`${engine}/page${s.suffix}`)] as const)),
    );
    const created = await api(server.url, "/v1/render/async", {
      json: {
        url: `${site.url}/page`,
        engine,
        width: 300,
        height: 200,
        webhook_url: `${receiver.url}/hook`,
        ...Object.fromEntries(SIDES.map((s) => [s.save, true])),
        ...addresses,
      },
      key: A,
    });
    expect(created.status, created.text).toBe(201);
    const id: string = created.body.renderId;
    const record = await ended(id);
    expect(record.status, record.reason).toBe("succeeded");
    for (const s of SIDES) expect(record[s.field], s.field).toBe(`${s3.endpoint}/uploads/${engine}/page${s.suffix}`);
    expect(record.metadata).toMatchObject({ title: "Side files", description: "Uploaded elsewhere" });
    // The render itself stays with the server; no signature in what the client reads back.
    expect(record.renderUrl).toBe(`${server.url}/renders/${id}.png`);
    const delivery = await until(() => receiver.requests.find((r) => r.body.includes(id)), "the webhook");
    const hook = JSON.parse(delivery.body);
    for (const s of SIDES) expect(hook.result[s.field], s.field).toBe(record[s.field]);
    for (const text of [JSON.stringify(record), delivery.body]) expect(text).not.toContain("X-Amz-");

    const files = Object.fromEntries(
      await Promise.all(SIDES.map(async (s) => [s.field, await getObject(`${engine}/page${s.suffix}`)] as const)),
    );
    for (const s of SIDES) expect(files[s.field]?.type, s.field).toMatch(s.type);
    expect(files.htmlUrl?.text).toContain("<h1>Side files</h1>");
    expect(files.htmlUrl?.text).toContain("Written by script");
    expect(files.markdownUrl?.text).toMatch(/^# Side files$/m);
    expect(files.markdownUrl?.text).toContain("Written by script");
    expect(files.markdownUrl?.text).not.toContain("<h1>");
    expect(JSON.parse(files.metadataUrl?.text ?? "")).toMatchObject({ title: "Side files", description: "Uploaded elsewhere" });
    expect(files.mhtmlUrl?.text).toMatch(/^Content-Type: multipart\/related;/m);
    expect(files.mhtmlUrl?.text).toContain(`Content-Location: ${site.url}/style.css`);
    const requests = JSON.parse(files.resourceInfoUrl?.text ?? "") as { url: string; status: number }[];
    expect(requests.filter((r) => !r.url.endsWith("/favicon.ico")).map((r) => [r.url, r.status])).toEqual([
      [`${site.url}/page`, 200],
      [`${site.url}/style.css`, 200],
    ]);

    // Not stored by the server as well: its side-file addresses do not exist.
    for (const s of SIDES) expect((await fetch(`${server.url}/renders/${id}${s.suffix}`)).status, s.suffix).toBe(404);
    const main = await fetch(record.renderUrl);
    expect(main.status).toBe(200);
    expect(main.headers.get("content-type")).toBe("image/png");
    await main.arrayBuffer();
  }, 180_000);
});

describe("with the render's own destinations", () => {
  it("s3_presigned_url takes the render, s3_presigned_url_html the HTML; a side file without an address stays on the server", async () => {
    const [render, html] = await Promise.all([sign("mixed/shot.png"), sign("mixed/page.html")]);
    const answer = await api(server.url, "/v1/render/sync", {
      json: {
        url: `${site.url}/mixed`,
        width: 120,
        height: 100,
        s3_presigned_url: render,
        save_html: true,
        s3_presigned_url_html: html,
        save_metadata: true,
      },
      key: A,
    });
    expect(answer.status, answer.text).toBe(200);
    const { renderId, renderUrl, htmlUrl, metadataUrl } = answer.body;
    expect(renderUrl).toBe(`${s3.endpoint}/uploads/mixed/shot.png`);
    expect(htmlUrl).toBe(`${s3.endpoint}/uploads/mixed/page.html`);
    expect(metadataUrl).toMatch(new RegExp(`^${server.url}/renders/${renderId}-[A-Za-z0-9_-]{22}\\.json$`));
    const shot = await getObject("mixed/shot.png");
    expect(shot.type).toBe("image/png");
    const { data, info } = await sharp(shot.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height, ...data.subarray(0, 3)]).toEqual([120, 100, 0, 128, 0]);
    expect((await getObject("mixed/page.html")).text).toContain("Written by script");
    const metadata = await fetch(metadataUrl);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({ title: "Side files" });
  }, 120_000);

  it("a side address that answers 403 fails the render, without leaking its signature", async () => {
    const secret = "f00dfacecafe0123456789abcdef";
    const address = `${forbidden.url}/bucket/page.html?X-Amz-Credential=AKIDEXAMPLE&X-Amz-Signature=${secret}`;
    const created = await api(server.url, "/v1/render/async", {
      json: { url: `${site.url}/denied`, save_html: true, s3_presigned_url_html: address },
      key: A,
    });
    expect(created.status, created.text).toBe(201);
    const record = await ended(created.body.renderId);
    expect(record.status).toBe("failed");
    expect(record.reason).toMatch(/\b403\b/);
    for (const leak of [secret, "AKIDEXAMPLE", "X-Amz-"]) expect(JSON.stringify(record)).not.toContain(leak);
    const put = forbidden.requests.find((r) => r.url.startsWith("/bucket/page.html?"));
    expect(put?.headers["content-type"]).toBe("text/html; charset=utf-8");
  }, 120_000);
});

describe("refused before anything is queued", () => {
  const refused = async (json: Record<string, unknown>, path = "/v1/render/sync") => {
    const answer = await api(server.url, path, { json: { url: `${site.url}/refused`, ...json }, key: A });
    expect(answer.status, JSON.stringify(json)).toBe(400);
    expect(answer.body.error.code, JSON.stringify(json)).toBe("InvalidOptions");
    return answer.body.error.message as string;
  };

  it("an address without its save option, or with it false; on the format that is the file; twice the same object", async () => {
    const before = events.length;
    const address = await sign("refused/x");
    for (const s of SIDES) {
      const needs = `Option ${s.upload} needs ${s.save}=true`;
      expect(await refused({ [s.upload]: address })).toContain(needs);
      expect(await refused({ [s.upload]: address, [s.save]: "false" })).toContain(needs);
    }
    for (const [format, s] of [
      ["html", SIDES[0]],
      ["md", SIDES[1]],
      ["mhtml", SIDES[3]],
    ] as const) {
      const message = await refused({ format, [s.save]: true, [s.upload]: address });
      expect(message).toBe(
        `Option ${s.upload} cannot be used with format ${format}: the render itself is that file; upload it with s3_presigned_url`,
      );
    }
    const other = await sign("refused/x");
    expect(await refused({ s3_presigned_url: address, save_html: true, s3_presigned_url_html: other })).toBe(
      "Option s3_presigned_url_html uploads to the same object as s3_presigned_url: give each file its own address",
    );
    expect(await refused({ save_html: true, s3_presigned_url_html: "ftp://example.com/x" })).toContain("s3_presigned_url_html");
    expect(events.slice(before)).toEqual([]);
    expect(site.requests.some((r) => r.url === "/refused")).toBe(false);
  });

  it("a private address: the same error as s3_presigned_url, naming the side option", async () => {
    const internal = "http://10.1.2.3:9000/bucket/x?X-Amz-Signature=abc";
    const main = await refused({ s3_presigned_url: internal }, "/v1/render/async");
    expect(main).toMatch(/^Option s3_presigned_url is refused: /);
    for (const s of SIDES) {
      const message = await refused({ [s.save]: true, [s.upload]: internal }, "/v1/render/async");
      expect(message).toBe(main.replace("s3_presigned_url", s.upload));
    }
  });

  it("render links refuse each side address, like s3_presigned_url", async () => {
    const hmac = (query: string) => createHmac("sha256", PROJECT_A.secretKey).update(`png?${query}`).digest("hex");
    for (const s of SIDES) {
      const address = await sign(`link/${s.field}`);
      const query = `url=${encodeURIComponent(`${site.url}/link`)}&${s.save}=true&${s.upload}=${encodeURIComponent(address)}`;
      const response = await fetch(`${server.url}/v1/${PROJECT_A.publishableKey}/${hmac(query)}/png?${query}`);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("InvalidOptions");
      expect(body.error.message).toBe(
        `Option ${s.upload} cannot be used with render links: a link uploads to no address of yours; use the API`,
      );
      expect(await exists(`link/${s.field}`)).toBe(false);
    }
  });

  it("a renderer without a destination resolver (library use) refuses each side address", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "renderkit-side-destinations-"));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const renderer = await createRenderer({
      plugins: [playwright(), imageFormats()],
      dataDir,
      logger: new ConsoleLogger("silent"),
    });
    try {
      for (const s of SIDES) {
        const error = await expectRenderError(
          renderer.render({ html: "<p>x</p>", [s.save]: true, [s.upload]: "https://bucket.example.com/x?X-Amz-Signature=a" }),
          "InvalidOptions",
        );
        expect(error.details).toEqual({ option: s.upload });
      }
    } finally {
      await renderer.close();
    }
  });
});
