import { expect } from "vitest";
import type { PageSettings, RequestInfo } from "../contracts/page-settings.js";
import type { AddressPolicy } from "../network/address-policy.js";
import type { EngineHarness } from "./engine-harness.js";

/** A policy of `h` under which `localhost` (the cross-site iframe's host) is the fixture too. */
export function crossSitePolicy(h: EngineHarness): AddressPolicy {
  return h.policy({
    lookup: async (host) => {
      if (host !== "localhost") throw new Error(`unknown host ${host}`);
      return [{ address: "127.0.0.1", family: 4 }];
    },
  });
}

/** Settings whose filter records every request it is asked about and blocks those `block` picks. */
export function recordingFilter(
  block: (request: RequestInfo) => boolean,
  extra: Partial<PageSettings> = {},
): { seen: RequestInfo[]; settings: Partial<PageSettings> } {
  const seen: RequestInfo[] = [];
  const requestFilter = (request: RequestInfo) => {
    seen.push(request);
    return block(request);
  };
  return { seen, settings: { ...extra, requestFilter } };
}

/** The `seen` values the fixture's `/prep/report` got from `frame` (`outer` or `inner`) since `from`. */
function reports(h: EngineHarness, frame: string, from: number): unknown[] {
  return h.fixture
    .requestsTo("/prep/report")
    .slice(from)
    .map((r) => new URL(r.path, "http://x").searchParams)
    .filter((q) => q.get("frame") === frame)
    .map((q) => JSON.parse(q.get("seen") ?? "null"));
}

/** The request filter and init scripts (`PageSettings.requestFilter`, `initScripts`). */
export function prepareChecks(h: EngineHarness): void {
  h.check("a filter blocking images by kind keeps them from the network and counts them", async () => {
    const before = h.fixture.requestsTo("/prep/style.css").length;
    const { seen, settings } = recordingFilter((r) => r.kind === "image", { headers: { "x-contract": "filtered" } });
    await h.withPage({ url: h.url("/prep/resources") }, settings, async (s) => {
      expect(await s.evaluate("() => document.body.dataset.script")).toBe("ran");
      expect(await s.evaluate("() => getComputedStyle(document.getElementById('styled')).color")).toBe("rgb(0, 128, 0)");
      expect(await s.evaluate("() => document.getElementById('img').complete")).toBe(true);
      expect(s.blockedRequests()).toBe(1);
    });
    expect(h.fixture.requestsTo("/prep/blocked.png")).toEqual([]);
    expect(h.fixture.requestsTo("/prep/style.css").length).toBe(before + 1);
    // Requests the filter lets through leave as they would without one (extra headers included).
    expect(h.fixture.requestsTo("/prep/style.css").at(-1)?.headers["x-contract"]).toBe("filtered");
    const kinds = Object.fromEntries(seen.map((r) => [new URL(r.url).pathname, r.kind]));
    expect(kinds).toMatchObject({
      "/prep/resources": "document",
      "/prep/blocked.png": "image",
      "/prep/style.css": "stylesheet",
      "/prep/script.js": "script",
    });
    const image = seen.find((r) => r.url.endsWith("/prep/blocked.png"));
    expect(image).toMatchObject({ frameUrl: h.url("/prep/resources"), mainDocument: false });
  });

  h.check("the filter sees the main document, its redirects included, as mainDocument", async () => {
    const { seen, settings } = recordingFilter(() => false);
    await h.withPage({ url: h.url("/to-home") }, settings, async (s) => {
      expect(s.response.url).toBe(h.url("/"));
      expect(s.blockedRequests()).toBe(0);
    });
    const main = seen.filter((r) => r.mainDocument);
    expect(main.map((r) => r.url)).toEqual([h.url("/to-home"), h.url("/")]);
    expect(main.every((r) => r.kind === "document")).toBe(true);
  });

  h.check("the filter blocks a subresource of a cross-site iframe", async () => {
    const port = h.fixture.port;
    const inner = `http://localhost:${port}/prep/inner`;
    const before = h.fixture.requestsTo("/prep/inner").length;
    const { seen, settings } = recordingFilter((r) => r.url.endsWith("/prep/inner.png"), { policy: crossSitePolicy(h) });
    await h.withPage({ url: h.url("/prep/outer") }, settings, async (s) => {
      await expect.poll(() => s.blockedRequests()).toBe(1);
    });
    expect(h.fixture.requestsTo("/prep/inner").length).toBe(before + 1);
    expect(h.fixture.requestsTo("/prep/inner.png")).toEqual([]);
    expect(seen.find((r) => r.url === `http://localhost:${port}/prep/inner.png`)).toMatchObject({
      kind: "image",
      frameUrl: inner,
      mainDocument: false,
    });
    expect(seen.find((r) => r.url === h.url("/prep/outer"))).toMatchObject({ kind: "document", mainDocument: true });
  });

  h.check("the filter can block a cross-site iframe's document", async () => {
    const inner = `http://localhost:${h.fixture.port}/prep/inner`;
    const before = h.fixture.requestsTo("/prep/inner").length;
    const { seen, settings } = recordingFilter((r) => r.url === inner, { policy: crossSitePolicy(h) });
    await h.withPage({ url: h.url("/prep/outer") }, settings, async (s) => {
      expect(await s.evaluate("() => document.title")).toBe("outer");
      expect(s.blockedRequests()).toBe(1);
    });
    expect(h.fixture.requestsTo("/prep/inner").length).toBe(before);
    expect(seen.find((r) => r.url === inner)).toEqual({
      url: inner,
      kind: "document",
      frameUrl: h.url("/prep/outer"),
      mainDocument: false,
    });
  });

  h.check("a filter that throws blocks nothing; without a filter nothing is counted", async () => {
    const before = h.fixture.requestsTo("/prep/blocked.png").length;
    const throwing = () => {
      throw new Error("filter bug");
    };
    await h.withPage({ url: h.url("/prep/resources") }, { requestFilter: throwing }, async (s) => {
      expect(await s.evaluate("() => document.body.dataset.script")).toBe("ran");
      expect(s.blockedRequests()).toBe(0);
    });
    expect(h.fixture.requestsTo("/prep/blocked.png").length).toBe(before + 1);
    await h.withPage({ url: h.url("/prep/resources") }, {}, async (s) => {
      expect(await s.evaluate("() => document.body.dataset.script")).toBe("ran");
      expect(await s.evaluate("() => getComputedStyle(document.getElementById('styled')).color")).toBe("rgb(0, 128, 0)");
      expect(s.blockedRequests()).toBe(0);
    });
    expect(h.fixture.requestsTo("/prep/blocked.png").length).toBe(before + 2);
  });

  h.check("init scripts run in order before the page's scripts, in the main frame and a cross-site iframe", async () => {
    const from = h.fixture.requestsTo("/prep/report").length;
    const big = `window.__rk.push("big:" + "${"x".repeat(1_000_000)}".length);`;
    const initScripts = ["window.__rk = ['first'];", "window.__rk.push('second');", big];
    const expected = ["first", "second", "big:1000000"];
    await h.withPage({ url: h.url("/prep/outer") }, { initScripts, policy: crossSitePolicy(h) }, async (s) => {
      expect(await s.evaluate("() => window.__rk")).toEqual(expected);
      await expect.poll(() => reports(h, "inner", from)).toEqual([expected]);
    });
    expect(reports(h, "outer", from)).toEqual([expected]);
    const inner = h.fixture.requestsTo("/prep/report").filter((r) => r.path.includes("frame=inner"));
    expect(inner.at(-1)?.headers.host).toBe(`localhost:${h.fixture.port}`);
  });

  h.check("init scripts and a filter work together; init scripts also apply to supplied HTML", async () => {
    const html = `<!doctype html><title>t</title><img src="${h.url("/prep/blocked.png")}" alt="">
      <script>document.title = JSON.stringify(window.__rk ?? null)</script>`;
    const before = h.fixture.requestsTo("/prep/blocked.png").length;
    const settings = { initScripts: ["window.__rk = ['given'];"], requestFilter: (r: RequestInfo) => r.kind === "image" };
    await h.withPage({ html }, settings, async (s) => {
      expect(await s.evaluate("() => document.title")).toBe('["given"]');
      expect(s.blockedRequests()).toBe(1);
    });
    expect(h.fixture.requestsTo("/prep/blocked.png").length).toBe(before);
  });
}
