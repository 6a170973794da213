import { verifyWebhookSignature } from "@renderkit/notifier-webhook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
let receiver: Awaited<ReturnType<typeof listenLocal>>;
const verified: { body: Record<string, unknown>; ok: boolean }[] = [];

beforeAll(async () => {
  site = await listenLocal(() => ({ body: "<h1>hook</h1>" }));
  receiver = await listenLocal((req, body) => {
    const ok = verifyWebhookSignature(req.headers["x-service-signature"] as string, body, PROJECT_A.webhookSecret);
    verified.push({ body: JSON.parse(body), ok });
    return { status: ok ? 200 : 400, body: "" };
  });
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  await site.close();
  await receiver.close();
});

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
}

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("webhooks", () => {
  it("send exactly one signed render.succeeded per async render", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await api(server.url, "/v1/render/async", {
        json: { url: `${site.url}/${i}`, webhook_url: `${receiver.url}/hook` },
        key: PROJECT_A.secretKey,
      });
      expect(created.status).toBe(201);
      ids.push(created.body.renderId);
    }
    await until(() => ids.every((id) => verified.some((v) => v.body.renderId === id)));
    await new Promise((r) => setTimeout(r, 1500));
    for (const id of ids) {
      const events = verified.filter((v) => v.body.renderId === id);
      expect(events).toHaveLength(1);
      const [event] = events;
      expect(event?.ok).toBe(true);
      expect(event?.body).toEqual({
        event: "render.succeeded",
        renderId: id,
        result: {
          renderUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/renders\/.+\.png$/),
          size: expect.any(Number),
          renderTime: expect.any(Number),
          queueTime: expect.any(Number),
          bandwidth: expect.any(Number),
          // The image format's own fields, as in the status record.
          width: 1280,
          height: 1024,
          truncated: false,
        },
        meta: { startTime: expect.stringMatching(ISO_MS), endTime: expect.stringMatching(ISO_MS) },
      });
      const status = await api(server.url, `/v1/render/${id}`, { key: PROJECT_A.secretKey });
      const { renderId: _id, statusUrl: _url, status: _status, ...recorded } = status.body;
      expect(recorded).toEqual(event?.body.result);
    }
  });

  it("send render.failed with the reason for a render that fails", async () => {
    const created = await api(server.url, "/v1/render/async", {
      json: { url: `${site.url}/fail`, selector: "#none", fail_if_selector_missing: true, webhook_url: `${receiver.url}/hook` },
      key: PROJECT_A.secretKey,
    });
    await until(() => verified.some((v) => v.body.renderId === created.body.renderId));
    const events = verified.filter((v) => v.body.renderId === created.body.renderId);
    expect(events).toHaveLength(1);
    expect(events[0]?.ok).toBe(true);
    expect(events[0]?.body).toEqual({
      event: "render.failed",
      renderId: created.body.renderId,
      error: { message: expect.stringContaining("#none") },
      meta: { startTime: expect.stringMatching(ISO_MS), endTime: expect.stringMatching(ISO_MS) },
    });
  });

  it("carry side-render addresses and metadata in the result", async () => {
    const created = await api(server.url, "/v1/render/async", {
      json: { url: `${site.url}/side`, save_html: true, metadata: true, webhook_url: `${receiver.url}/hook` },
      key: PROJECT_A.secretKey,
    });
    await until(() => verified.some((v) => v.body.renderId === created.body.renderId));
    const [event] = verified.filter((v) => v.body.renderId === created.body.renderId);
    expect(event?.ok).toBe(true);
    const result = event?.body.result as { htmlUrl: string; metadata: { urlResolved: string } };
    expect(result.htmlUrl).toMatch(/\.html$/);
    expect(result.metadata.urlResolved).toBe(`${site.url}/side`);
  });
});
