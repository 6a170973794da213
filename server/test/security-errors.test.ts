import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOSED_PORT } from "../../test/helpers/closed-port.js";
import { api, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

/*
 * Issue 14, finding 6, as a client sees it: what used to be a 500 (a redirect to `view-source:`,
 * a redirect loop, a 16000 × 16000 px viewport) is a 400 with its spec code, and a `proxy` that
 * cannot be reached is a 502 `ProxyError` (the caller's gateway failed, not this server). Each on
 * both engines (`engine` per request). The renders themselves: test/e2e/security-errors.test.ts.
 */

const A = PROJECT_A.secretKey;
const ENGINES = ["playwright", "puppeteer"] as const;

let server: TestServer;
/** The target site: `/view-source` and `/loop` redirect; it counts every request. */
let site: Server;
let siteUrl: string;
let siteRequests = 0;
/** A loopback port where nothing listens. */
const dead = CLOSED_PORT;

beforeAll(async () => {
  site = createHttpServer((req, res) => {
    siteRequests++;
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/view-source") return void res.writeHead(302, { location: "view-source:http://example.com/" }).end();
    if (path === "/loop") return void res.writeHead(302, { location: "/loop" }).end();
    res.writeHead(200, { "content-type": "text/html" }).end("<p>page</p>");
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
  site?.closeAllConnections();
  await new Promise<void>((resolve) => (site ? site.close(() => resolve()) : resolve()));
});

/** A sync render's error answer. */
async function syncError(options: Record<string, unknown>) {
  const answer = await api(server.url, "/v1/render/sync", { key: A, json: { width: 400, height: 300, ...options } });
  return { status: answer.status, code: answer.body.error?.code as string, message: answer.body.error?.message as string };
}

describe.each(ENGINES)("finding 6 (%s): errors the caller causes get their own status", (engine) => {
  it("a redirect to view-source: is 400 InvalidURLError naming it", async () => {
    const answer = await syncError({ engine, url: `${siteUrl}/view-source` });
    expect(answer).toEqual({
      status: 400,
      code: "InvalidURLError",
      message: "The page redirected to an address that is not http or https (view-source:http://example.com/)",
    });
  });

  it("a redirect loop is 400 InvalidURLError: too many redirects (20)", async () => {
    const answer = await syncError({ engine, url: `${siteUrl}/loop` });
    expect(answer).toEqual({
      status: 400,
      code: "InvalidURLError",
      message: "The address could not be loaded: too many redirects (20)",
    });
  });

  it("a 16000 × 16000 px viewport is 400 InvalidOptions at once, sync and async, and nothing is rendered", async () => {
    const before = siteRequests;
    const options = { engine, url: `${siteUrl}/page`, width: 4000, height: 4000, device_scale_factor: 4 };
    for (const path of ["/v1/render/sync", "/v1/render/async"]) {
      const answer = await api(server.url, path, { key: A, json: options });
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.code, path).toBe("InvalidOptions");
      expect(answer.body.error.message, path).toMatch(
        /^Option device_scale_factor 4 makes the 4000×4000 viewport a 16000×16000 px capture/,
      );
    }
    expect(siteRequests).toBe(before);
  });

  it("an unreachable proxy is 502 ProxyError, not a 500", async () => {
    const answer = await syncError({ engine, url: `${siteUrl}/page`, proxy: `127.0.0.1:${dead}` });
    expect(answer).toEqual({
      status: 502,
      code: "ProxyError",
      message: `The proxy 127.0.0.1:${dead} could not be reached (ECONNREFUSED)`,
    });
  });
});
