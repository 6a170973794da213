import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type FixtureRoute, type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { CLOSED_PORT } from "../helpers/closed-port.js";
import { expectRenderError } from "../helpers/errors.js";
import { type ForwardProxy, startForwardProxy } from "../helpers/forward-proxy.js";
import { forEachEngine, onOneEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/** `localhost` is this machine in these tests (a second site: cross-origin and cross-site to 127.0.0.1). */
const lookup = async (host: string) => {
  if (host === "localhost") return [{ address: "127.0.0.1", family: 4 as const }];
  throw new Error(`${host} does not resolve in this test`);
};

const SMALL = { width: 400, height: 300 };
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const png: FixtureRoute = { headers: { "content-type": "image/png" }, body: PNG };
const page = (body: string) => `<!doctype html><body style="margin:0;background:#fff">${body}</body>`;
/** A script reporting `fields` to its own server as an image request (the load event waits for it). */
const report = (fields: string) => `<script>new Image().src = "/report?" + new URLSearchParams(${fields});</script>`;
const PLATFORM_REPORT = report(
  `{ where: location.port + location.pathname, p: navigator.platform, hint: navigator.userAgentData ? navigator.userAgentData.platform : "none" }`,
);

/** A loopback port with a counter of the TCP connections it accepted; it answers nothing useful. */
async function countingServer(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((_req, res) => res.end("outside"));
  server.on("connection", (s: Socket) => {
    connections++;
    sockets.add(s);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return { port: (server.address() as AddressInfo).port, connections: () => connections, close };
}

forEachEngine((engine) => {
  const once = onOneEngine(engine);
  /** The target site (127.0.0.1:A) and another site (localhost:B). */
  let site: FixtureServer;
  let other: FixtureServer;
  /** A forward proxy the renderer may use (it wants `user:p@ss`), and one it may not. */
  let proxy: ForwardProxy;
  let refusedProxy: ForwardProxy;
  /** A private port nobody allowed, and an allowed port where nothing listens. */
  let outside: Awaited<ReturnType<typeof countingServer>>;
  const deadPort = CLOSED_PORT;
  let started: TestRenderer;
  const otherUrl = (path: string) => `http://localhost:${other.port}${path}`;
  const render = (path: string, options: Record<string, unknown> = {}) =>
    started.renderer.render({ url: `${site.url}${path}`, ...SMALL, ...options });
  const reports = (server: FixtureServer) =>
    server.requestsTo("/report").map((r) => Object.fromEntries(new URLSearchParams(r.path.split("?")[1])));

  beforeAll(async () => {
    other = await startFixtureServer({
      "/img.png": png,
      "/frame": page(`<img src="/frame.png">`),
      "/frame.png": png,
      "/landing": page("<p>landed</p>"),
      "/platform-frame": page(PLATFORM_REPORT),
      "/report": { status: 204 },
    });
    site = await startFixtureServer({
      "/page": page(`<img src="/own.png"><img src="${otherUrl("/img.png")}"><iframe src="${otherUrl("/frame")}"></iframe>`),
      "/own.png": png,
      "/hop": { status: 302, headers: { location: "/page" } },
      "/away": { status: 302, headers: { location: otherUrl("/landing") } },
      "/platform": page(
        `${PLATFORM_REPORT}<iframe src="/platform-frame"></iframe><iframe src="${otherUrl("/platform-frame")}"></iframe>`,
      ),
      "/platform-frame": page(PLATFORM_REPORT),
      "/geo": page(`<script>
        const done = (fields) => navigator.permissions.query({ name: "geolocation" }).then((s) => {
          const img = new Image();
          img.onload = img.onerror = () => document.body.append(Object.assign(document.createElement("p"), { id: "done", textContent: "done" }));
          img.src = "/report?" + new URLSearchParams({ ...fields, perm: s.state });
        });
        navigator.geolocation.getCurrentPosition(
          (p) => done({ lat: p.coords.latitude, lon: p.coords.longitude, acc: p.coords.accuracy }),
          (e) => done({ error: e.code + " " + e.message }));
      </script>`),
      "/report": { status: 204 },
    });
    outside = await countingServer();
    proxy = await startForwardProxy("user:p@ss");
    refusedProxy = await startForwardProxy();
    const allow = [site.port, other.port, proxy.port, deadPort].map((port) => `127.0.0.1:${port}`);
    started = await startRenderer(allow, { lookup }, engine);
  });
  afterAll(async () => {
    await started?.close();
    await Promise.all([site?.close(), other?.close(), proxy?.close(), refusedProxy?.close(), outside?.close()]);
  });
  beforeEach(() => {
    for (const list of [site.requests, other.requests, proxy.requests]) list.splice(0);
  });

  describe("authorization", () => {
    const auth = (server: FixtureServer, path: string) => server.requestsTo(path).map((r) => r.headers.authorization);

    it("goes to the target's origin (the page, its image, a same-origin redirect) and to no other origin", async () => {
      await render("/hop", { authorization: "Bearer s3cret" });
      expect(auth(site, "/hop")).toEqual(["Bearer s3cret"]);
      expect(auth(site, "/page")).toEqual(["Bearer s3cret"]);
      expect(auth(site, "/own.png")).toEqual(["Bearer s3cret"]);
      // The other origin's image, iframe and the iframe's own image were requested, without it.
      for (const path of ["/img.png", "/frame", "/frame.png"]) expect(auth(other, path), path).toEqual([undefined]);
    });

    it("is not carried by a redirect to another origin", async () => {
      const result = await render("/away", { authorization: "Basic dXNlcjpwdw==" });
      expect(result.size).toBeGreaterThan(0);
      expect(auth(site, "/away")).toEqual(["Basic dXNlcjpwdw=="]);
      expect(auth(other, "/landing")).toEqual([undefined]);
    });

    it("still works with a request filter on (both intercept the same requests)", async () => {
      await render("/page", { authorization: "Bearer s3cret", block_urls: ["*/frame.png"] });
      expect(auth(site, "/page")).toEqual(["Bearer s3cret"]);
      expect(auth(site, "/own.png")).toEqual(["Bearer s3cret"]);
      expect(auth(other, "/img.png")).toEqual([undefined]);
      expect(other.requestsTo("/frame.png")).toEqual([]);
    });

    once("without the option no request carries an Authorization header", async () => {
      await render("/page");
      expect(site.requests.length).toBeGreaterThanOrEqual(2);
      expect([...site.requests, ...other.requests].map((r) => r.headers.authorization)).toEqual(
        [...site.requests, ...other.requests].map(() => undefined),
      );
    });

    once("is refused with html (no target origin), with an Authorization header entry, and with control characters", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ html: "<p>x</p>", authorization: "Bearer x" }, "authorization"],
        [{ url: site.url, authorization: "Bearer x", headers: ["Authorization=Bearer y"] }, "authorization"],
        [{ url: site.url, authorization: "Bearer x\r\nX-Evil: 1" }, "authorization"],
      ];
      for (const [options, option] of cases) {
        const error = await expectRenderError(started.renderer.render(options), "InvalidOptions");
        expect(error.details?.option).toBe(option);
      }
      expect(site.requests).toHaveLength(0);
    });
  });

  describe("platform", () => {
    it("navigator.platform (and the client-hint platform) answer it in the page, a same-site iframe and a cross-site iframe", async () => {
      await render("/platform", { platform: "Win32" });
      const seen = [...reports(site), ...reports(other)].sort((a, b) => String(a.where).localeCompare(String(b.where)));
      expect(seen).toHaveLength(3);
      for (const r of seen) expect(r, String(r.where)).toMatchObject({ p: "Win32", hint: "Windows" });
      // Control: the browser's own value is something else.
      site.requests.splice(0);
      await render("/platform");
      expect(reports(site).map((r) => r.p)).not.toContain("Win32");
    });

    once("is refused with control characters, when too long, and with disable_js", async () => {
      for (const options of [
        { platform: "Win\u000132" },
        { platform: "x".repeat(65) },
        { platform: "Win32", disable_js: true },
      ]) {
        const error = await expectRenderError(render("/platform", options), "InvalidOptions");
        expect(error.details?.option).toBe("platform");
      }
    });
  });

  describe("geolocation", () => {
    it("navigator.geolocation answers the position, with the permission granted", async () => {
      await render("/geo", { latitude: 48.8584, longitude: 2.2945, accuracy: 25, wait_for: "#done" });
      expect(reports(site)).toEqual([{ lat: "48.8584", lon: "2.2945", acc: "25", perm: "granted" }]);
    });

    once("latitude and longitude only together; accuracy only with both; bounds hold", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ latitude: 10 }, "latitude"],
        [{ longitude: 10 }, "longitude"],
        [{ accuracy: 5 }, "accuracy"],
        [{ latitude: 91, longitude: 0 }, "latitude"],
        [{ latitude: 0, longitude: -181 }, "longitude"],
        [{ latitude: 0, longitude: 0, accuracy: -1 }, "accuracy"],
      ];
      for (const [options, option] of cases) {
        const error = await expectRenderError(render("/geo", options), "InvalidOptions");
        expect(error.details?.option, JSON.stringify(options)).toBe(option);
      }
    });
  });

  describe("proxy", () => {
    const basic = `Basic ${Buffer.from("user:p@ss").toString("base64")}`;
    const via = () => `user:p%40ss@127.0.0.1:${proxy.port}`;

    it("carries the page's http requests (absolute form) and https tunnels (CONNECT), with the credentials", async () => {
      site.requests.splice(0);
      await render("/page", { proxy: `http://${via()}` });
      const targets = proxy.requests.map((r) => `${r.method} ${r.target}`);
      expect(targets).toContain(`GET ${site.url}/page`);
      expect(targets).toContain(`GET ${site.url}/own.png`);
      expect(targets).toContain(`GET ${otherUrl("/frame")}`);
      expect(proxy.requests.every((r) => r.auth === basic)).toBe(true);
      // The site got what the proxy relayed, and nothing by any other way.
      expect(site.requestsTo("/page")).toHaveLength(1);
      expect(site.requests.length).toBe(proxy.requests.filter((r) => r.target.startsWith(site.url)).length);

      // An https image goes through a CONNECT tunnel to the address the policy pinned.
      proxy.requests.splice(0);
      await started.renderer.render({ html: page(`<img src="https://localhost:${other.port}/x.png">`), ...SMALL, proxy: via() });
      expect(proxy.requests).toContainEqual({ method: "CONNECT", target: `127.0.0.1:${other.port}`, auth: basic });
    });

    it("does not take a request to a refused address to the proxy: not the page, not its images", async () => {
      await expectRenderError(render("/page", { url: `http://127.0.0.1:${outside.port}/`, proxy: via() }), "InvalidURLError");
      const html = page(`<img src="http://127.0.0.1:${outside.port}/a.png"><img src="https://127.0.0.1:${outside.port}/b.png">`);
      const result = await started.renderer.render({ html, ...SMALL, proxy: via(), wait_until: "requestsfinished" });
      expect(result.size).toBeGreaterThan(0);
      expect(proxy.requests.filter((r) => r.target.includes(`:${outside.port}`))).toEqual([]);
      expect(outside.connections()).toBe(0);
    });

    it("refuses a proxy on a private address the server does not allow", async () => {
      const error = await expectRenderError(render("/page", { proxy: `127.0.0.1:${refusedProxy.port}` }), "InvalidURLError");
      expect(error.message).toContain(`proxy 127.0.0.1:${refusedProxy.port}`);
      expect(error.details?.option).toBe("proxy");
      expect(refusedProxy.connections).toBe(0);
      expect(site.requests).toHaveLength(0);
    });

    // Issue 14: the caller's proxy failing is `ProxyError` (502), not an engine failure (500).
    it("fails with a clear error when the proxy is unreachable or refuses the credentials", async () => {
      const dead = await expectRenderError(render("/page", { proxy: `127.0.0.1:${deadPort}` }), "ProxyError");
      expect(dead.message).toMatch(new RegExp(`proxy 127\\.0\\.0\\.1:${deadPort} could not be reached \\(ECONNREFUSED\\)`));
      const wrong = await expectRenderError(render("/page", { proxy: `user:wrong@127.0.0.1:${proxy.port}` }), "ProxyError");
      expect(wrong.message).toContain("the proxy refused the credentials (407)");
      expect(site.requests).toHaveLength(0);
    });

    once("a malformed proxy value is InvalidOptions naming proxy", async () => {
      for (const value of ["socks5://127.0.0.1:1080", "https://127.0.0.1:3128", "127.0.0.1", "a b:80", "host:99999", "h/p:80"]) {
        const error = await expectRenderError(render("/page", { proxy: value }), "InvalidOptions");
        expect(error.details?.option, value).toBe("proxy");
      }
    });
  });
});
