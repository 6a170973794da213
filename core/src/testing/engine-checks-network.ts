import { type AddressInfo, createServer } from "node:net";
import { expect } from "vitest";
import { AddressPolicy } from "../network/address-policy.js";
import { delay, expectRenderError } from "./assertions.js";
import { HOME_PADDING } from "./engine-fixture.js";
import type { EngineHarness } from "./engine-harness.js";

/** Loading, waiting, headers, isolation and the address policy (docs/security.md#decisions). */
export function networkChecks(h: EngineHarness): void {
  h.check("opens a URL and reports the final address and status after redirects", async () => {
    await h.withPage({ url: h.url("/to-home") }, {}, async (s) => {
      expect(s.response.url).toBe(h.url("/"));
      expect(s.response.status).toBe(200);
      expect(await s.evaluate("() => document.title")).toBe("home");
    });
    await h.withPage({ url: h.url("/missing") }, {}, async (s) => {
      expect(s.response.status).toBe(404);
    });
  });

  h.check("opens supplied HTML as about:blank without a status", async () => {
    await h.withPage({ html: "<title>given</title><p>hi</p>" }, {}, async (s) => {
      expect(s.response.url).toBe("about:blank");
      expect(s.response.status).toBeUndefined();
      expect(await s.evaluate("() => document.title")).toBe("given");
    });
  });

  h.check("counts the bytes received for a URL render", async () => {
    await h.withPage({ url: h.url("/") }, {}, async (s) => {
      expect(s.bytesReceived()).toBeGreaterThanOrEqual(HOME_PADDING);
    });
  });

  h.check("sends headers, cookies and user agent with the page and its subresources", async () => {
    const settings = {
      headers: { "x-contract": "yes" },
      cookies: [{ name: "contract", value: "1" }],
      userAgent: "renderkit-contract/1.0",
    };
    await h.withPage({ url: h.url("/echo") }, settings, async (s) => {
      await expect.poll(() => h.fixture.requestsTo("/pixel").length).toBeGreaterThan(0);
      expect(await s.evaluate("() => navigator.userAgent")).toBe("renderkit-contract/1.0");
    });
    for (const path of ["/echo", "/pixel"]) {
      const seen = h.fixture.requestsTo(path).at(-1)?.headers;
      expect(seen?.["x-contract"], path).toBe("yes");
      expect(seen?.cookie, path).toContain("contract=1");
      expect(seen?.["user-agent"], path).toBe("renderkit-contract/1.0");
    }
  });

  h.check("resolves host names through the policy's lookup", async () => {
    const lookup = async (host: string) => {
      if (host !== "fixture.test") throw new Error(`unknown host ${host}`);
      return [{ address: "127.0.0.1", family: 4 as const }];
    };
    const policy = new AddressPolicy({ allowPrivate: [`fixture.test:${h.fixture.port}`], lookup });
    const url = `http://fixture.test:${h.fixture.port}/storage`;
    await h.withPage({ url }, { policy }, async (s) => {
      expect(s.response.status).toBe(200);
      expect(await s.evaluate("() => location.host")).toBe(`fixture.test:${h.fixture.port}`);
    });
    expect(h.fixture.requestsTo("/storage").at(-1)?.headers.host).toBe(`fixture.test:${h.fixture.port}`);
  });

  h.check("shares no cookies or storage between sessions", async () => {
    await h.withPage({ url: h.url("/storage") }, {}, async (s) => {
      await s.evaluate("() => { document.cookie = 'leak=1; path=/; max-age=3600'; localStorage.setItem('leak', '1'); }");
      expect(await s.evaluate("() => document.cookie")).toContain("leak=1");
    });
    await h.withPage({ url: h.url("/storage") }, {}, async (s) => {
      expect(await s.evaluate("() => [document.cookie, localStorage.getItem('leak')]")).toEqual(["", null]);
    });
    expect(h.fixture.requestsTo("/storage").at(-1)?.headers.cookie ?? "").not.toContain("leak");
  });

  h.check("a page that never finishes loading rejects with RenderTimeoutError", async () => {
    const begin = Date.now();
    await expectRenderError(h.open({ url: h.url("/hang") }, { timeoutMs: 2_000 }), "RenderTimeoutError");
    expect(Date.now() - begin).toBeLessThan(12_000);
    await expectRenderError(h.open({ url: h.url("/hang-img") }, { timeoutMs: 2_000 }), "RenderTimeoutError");
    expect(h.engine.stats().pages).toBe(0);
  });

  h.check("waitUntil domloaded does not wait for hanging subresources", async () => {
    await h.withPage({ url: h.url("/hang-img") }, { waitUntil: "domloaded", timeoutMs: 10_000 }, async (s) => {
      expect(await s.evaluate("() => document.getElementById('text').textContent")).toBe("text");
    });
  });

  h.check("waitUntil requestsfinished waits for requests made after load", async () => {
    await h.withPage({ url: h.url("/late-fetch") }, { waitUntil: "requestsfinished" }, async (s) => {
      expect(await s.evaluate("() => document.body.dataset.fetched")).toBe("true");
    });
  });

  h.check("aborting the signal stops a load", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled by the contract")), 300);
    const begin = Date.now();
    await expect(h.engine.open({ url: h.url("/hang") }, h.settings({ timeoutMs: 20_000 }), controller.signal)).rejects.toThrow();
    expect(Date.now() - begin).toBeLessThan(10_000);
    await expect.poll(() => h.engine.stats().pages).toBe(0);
  });

  h.check("refuses a private address when the policy has no allowlist", async () => {
    const before = h.fixture.requestsTo("/storage").length;
    await expectRenderError(h.open({ url: h.url("/storage") }, { policy: new AddressPolicy() }), "InvalidURLError");
    expect(h.fixture.requestsTo("/storage").length).toBe(before);
  });

  h.check("refuses a loopback port the allowlist does not name", async () => {
    await expectRenderError(h.open({ url: `${h.forbidden.url}/direct` }), "InvalidURLError");
    // A name is refused like a name that does not resolve: a caller cannot tell which internal names exist.
    await expectRenderError(h.open({ url: `http://localhost:${h.forbidden.port}/by-name` }), "URLDoesNotResolveError");
    expect(h.forbidden.requests).toEqual([]);
  });

  h.check("refuses non-http schemes", async () => {
    await expectRenderError(h.open({ url: "file:///etc/hostname" }), "InvalidURLError");
  });

  h.check("refuses a redirect from an allowed page to a refused address", async () => {
    await expectRenderError(h.open({ url: h.url("/redirect-out") }), "InvalidURLError");
    expect(h.fixture.requestsTo("/redirect-out").length).toBeGreaterThan(0);
    expect(h.forbidden.requests).toEqual([]);
  });

  h.check("subresources of refused addresses never leave the browser while the page renders", async () => {
    await h.withPage({ url: h.url("/subresources") }, {}, async (s) => {
      expect(s.response.status).toBe(200);
      await expect.poll(() => s.evaluate("() => document.body.dataset.fetched")).toBe("1");
      expect(await s.evaluate("() => document.title")).toBe("subresources");
    });
    const f = h.forbidden.url;
    const html = `<title>given</title><img src="${f}/img.png"><iframe src="${f}/frame"></iframe>
      <img src="${h.url("/pixel")}"><script>fetch("${f}/fetch").catch(() => {})</script>`;
    const before = h.fixture.requestsTo("/pixel").length;
    await h.withPage({ html }, {}, async (s) => {
      expect(await s.evaluate("() => document.title")).toBe("given");
    });
    await delay(300);
    expect(h.fixture.requestsTo("/pixel").length).toBeGreaterThan(before);
    expect(h.forbidden.requests).toEqual([]);
  });

  h.check("an allowed destination that refuses connections fails with EngineResponseNotOkError naming it", async () => {
    const closed = await closedPort();
    const policy = new AddressPolicy({ allowPrivate: true });
    for (const scheme of ["http", "https"]) {
      const error = await expectRenderError(
        h.open({ url: `${scheme}://127.0.0.1:${closed}/` }, { policy }),
        "EngineResponseNotOkError",
      );
      expect(error.message).toContain(`connecting to 127.0.0.1:${closed} failed (ECONNREFUSED)`);
    }
    // A site's own 502 is the site's answer, not a failure to connect.
    await h.withPage({ url: h.url("/status/502") }, {}, async (s) => {
      expect(s.response.status).toBe(502);
    });
  });
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
