import { AddressPolicy, ConsoleLogger, type PageSettings, type PageTarget, type RequestInfo } from "@renderkit/core";
import { makePageSettings, startFixtureServer } from "@renderkit/core/testing";
import { PlaywrightEngine } from "@renderkit/engine-playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A spare page (`prewarm`) exists before the render's settings are known: filter and init scripts must still apply. */
const engine = new PlaywrightEngine({ prewarm: true }, new ConsoleLogger("silent"));
const fixture = await startFixtureServer({
  "/page": `<!doctype html><title>page</title><img src="/image.png" alt="">
    <script>document.title = JSON.stringify(window.__rk ?? null)</script>`,
  "/image.png": { status: 204 },
});
const policy = () => new AddressPolicy({ allowPrivate: [`127.0.0.1:${fixture.port}`] });

/** Waits until the engine holds a ready spare, so the next open takes it. */
async function spareReady(): Promise<void> {
  const spare = (engine as unknown as { spare?: { ready: Promise<unknown> } }).spare;
  expect(spare, "the engine keeps a spare page").toBeDefined();
  expect(await spare?.ready).toBeDefined();
}

async function render(target: PageTarget, settings: Partial<PageSettings>) {
  const session = await engine.open(target, makePageSettings(policy(), settings), new AbortController().signal);
  try {
    return { title: await session.evaluate<string>("() => document.title"), blocked: session.blockedRequests() };
  } finally {
    await session.close();
  }
}

beforeAll(async () => {
  await render({ html: "<title>first</title>" }, {});
});
afterAll(async () => {
  await engine.close();
  await fixture.close();
});

describe("PlaywrightEngine prewarm", () => {
  it("a spare page gets the request filter and init scripts before it navigates", async () => {
    await spareReady();
    const seen: RequestInfo[] = [];
    const requestFilter = (r: RequestInfo) => {
      seen.push(r);
      return r.kind === "image";
    };
    const result = await render({ url: `${fixture.url}/page` }, { initScripts: ["window.__rk = ['spare']"], requestFilter });
    expect(result).toEqual({ title: '["spare"]', blocked: 1 });
    expect(fixture.requestsTo("/image.png")).toEqual([]);
    expect(seen.find((r) => r.mainDocument)).toMatchObject({ url: `${fixture.url}/page`, kind: "document" });
  });

  it("init scripts apply to supplied HTML on a spare page", async () => {
    await spareReady();
    const html = `<title>t</title><script>document.title = JSON.stringify(window.__rk ?? null)</script>`;
    expect(await render({ html }, { initScripts: ["window.__rk = ['html']"] })).toEqual({ title: '["html"]', blocked: 0 });
  });

  it("a later render without a filter or scripts on a spare is not affected by the previous ones", async () => {
    await spareReady();
    const before = fixture.requestsTo("/image.png").length;
    expect(await render({ url: `${fixture.url}/page` }, {})).toEqual({ title: "null", blocked: 0 });
    expect(fixture.requestsTo("/image.png").length).toBe(before + 1);
  });
});
