import { once } from "node:events";
import { type IncomingMessage, request } from "node:http";
import type { Socket } from "node:net";
import { AddressPolicy } from "@renderkit/core";
import { type EgressSession, openEgressSession } from "@renderkit/core/chromium";
import { type FixtureServer, readAll, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// The header the proxy marks its refusals with is the runtime's own: `/chromium` does not export it.
import { DENIED_HEADER } from "../dist/chromium/network/proxy-answers.js";

interface Answer {
  status: number;
  headers: IncomingMessage["headers"];
  body: string;
}

/** Sends `target` (an absolute URL) through the proxy as a browser does for plain HTTP. */
async function viaProxy(
  session: EgressSession,
  target: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const proxy = new URL(session.proxyUrl);
  const req = request({
    host: proxy.hostname,
    port: proxy.port,
    path: target,
    method: init.method ?? "GET",
    // Browsers send the target's Host in absolute-form requests; the proxy forwards it.
    headers: { host: new URL(target, "http://relative.invalid").host, ...init.headers },
  });
  req.end(init.body);
  const [res] = (await once(req, "response")) as [IncomingMessage];
  return { status: res.statusCode ?? 0, headers: res.headers, body: (await readAll(res)).toString() };
}

/** Opens a CONNECT tunnel; resolves with the proxy's answer and the socket. */
async function tunnel(session: EgressSession, authority: string): Promise<{ res: IncomingMessage; socket: Socket }> {
  const proxy = new URL(session.proxyUrl);
  const req = request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: authority });
  req.end();
  const [res, socket] = (await once(req, "connect")) as [IncomingMessage, Socket];
  return { res, socket };
}

describe("egress proxy", () => {
  let fixture: FixtureServer;
  let forbidden: FixtureServer;
  const sessions: EgressSession[] = [];
  const open = async (policy: AddressPolicy) => {
    const session = await openEgressSession(policy);
    sessions.push(session);
    return session;
  };
  const allowFixture = () => new AddressPolicy({ allowPrivate: [`127.0.0.1:${fixture.port}`] });

  beforeAll(async () => {
    fixture = await startFixtureServer({
      "/hello": { body: "hello from the fixture", headers: { "content-type": "text/plain" } },
      "/post": (req, res) => {
        void readAll(req).then((body) => res.end(`got ${body.toString()}`));
      },
      "/hang": (_req, res) => {
        res.writeHead(200);
        res.write("partial");
      },
    });
    forbidden = await startFixtureServer({ "*": "forbidden" });
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });
  afterAll(async () => {
    await fixture.close();
    await forbidden.close();
  });

  it("proxies a plain HTTP request to an allowed address and counts the bytes", async () => {
    const session = await open(allowFixture());
    expect(session.proxyUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await viaProxy(session, `${fixture.url}/hello?x=1`, { headers: { "proxy-authorization": "Basic eA==" } });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe("hello from the fixture");
    expect(answer.headers[DENIED_HEADER]).toBeUndefined();
    expect(session.bytesReceived()).toBeGreaterThanOrEqual("hello from the fixture".length);
    const seen = fixture.requests.at(-1);
    expect(seen?.path).toBe("/hello?x=1");
    expect(seen?.headers["proxy-authorization"]).toBeUndefined();
  });

  it("forwards request bodies", async () => {
    const session = await open(allowFixture());
    const answer = await viaProxy(session, `${fixture.url}/post`, { method: "POST", body: "payload" });
    expect(answer.body).toBe("got payload");
  });

  it("connects to the pinned address of a name from the policy's lookup", async () => {
    const lookup = async () => [{ address: "127.0.0.1", family: 4 as const }];
    const session = await open(new AddressPolicy({ allowPrivate: [`site.test:${fixture.port}`], lookup }));
    const answer = await viaProxy(session, `http://site.test:${fixture.port}/hello`);
    expect(answer.status).toBe(200);
    expect(fixture.requests.at(-1)?.headers.host).toBe(`site.test:${fixture.port}`);
  });

  it("answers 403 with the denied header for a refused address, and never reaches it", async () => {
    const session = await open(allowFixture());
    for (const target of [
      `${forbidden.url}/x`,
      `http://localhost:${forbidden.port}/y`,
      "http://169.254.169.254/latest/meta-data",
    ]) {
      const answer = await viaProxy(session, target);
      expect(answer.status, target).toBe(403);
      expect(answer.headers[DENIED_HEADER], target).toBe("1");
    }
    expect(forbidden.requests).toEqual([]);
  });

  it("refuses requests that are not absolute http addresses", async () => {
    const session = await open(new AddressPolicy({ allowPrivate: true }));
    expect((await viaProxy(session, "/relative")).status).toBe(403);
    expect((await viaProxy(session, `https://127.0.0.1:${fixture.port}/hello`)).status).toBe(403);
  });

  it("answers 502 when an allowed upstream does not answer", async () => {
    const gone = await startFixtureServer();
    await gone.close();
    const session = await open(new AddressPolicy({ allowPrivate: true }));
    expect((await viaProxy(session, `${gone.url}/`)).status).toBe(502);
  });

  it("answers 403 to CONNECT for a refused address", async () => {
    const session = await open(allowFixture());
    const { res, socket } = await tunnel(session, `127.0.0.1:${forbidden.port}`);
    expect(res.statusCode).toBe(403);
    expect(res.headers[DENIED_HEADER]).toBe("1");
    socket.destroy();
    const mapped = await tunnel(session, `[::ffff:127.0.0.1]:${forbidden.port}`);
    expect(mapped.res.statusCode).toBe(403);
    mapped.socket.destroy();
    expect(forbidden.requests).toEqual([]);
  });

  it("tunnels CONNECT to an allowed address", async () => {
    const session = await open(allowFixture());
    const { res, socket } = await tunnel(session, `127.0.0.1:${fixture.port}`);
    expect(res.statusCode).toBe(200);
    socket.end(`GET /hello HTTP/1.1\r\nHost: 127.0.0.1:${fixture.port}\r\nConnection: close\r\n\r\n`);
    const raw = (await readAll(socket)).toString();
    expect(raw).toMatch(/^HTTP\/1\.1 200/);
    expect(raw).toContain("hello from the fixture");
    expect(session.bytesReceived()).toBeGreaterThanOrEqual(raw.length);
  });

  it("close() cuts open tunnels and hanging requests, and is idempotent", async () => {
    const session = await open(allowFixture());
    const { socket } = await tunnel(session, `127.0.0.1:${fixture.port}`);
    const tunnelClosed = new Promise((resolve) => socket.on("error", () => {}).once("close", resolve));
    const proxy = new URL(session.proxyUrl);
    const hanging = request({ host: proxy.hostname, port: proxy.port, path: `${fixture.url}/hang` });
    hanging.end();
    const [res] = (await once(hanging, "response")) as [IncomingMessage];
    res.on("error", () => {}).resume();
    const hangingClosed = new Promise((resolve) => res.once("close", resolve));
    await Promise.all([session.close(), session.close()]);
    // Both close because close() cuts them: left open, they would never end and the test would time out.
    await Promise.all([tunnelClosed, hangingClosed]);
    await expect(viaProxy(session, `${fixture.url}/hello`)).rejects.toThrow(/ECONNREFUSED/);
  });
});
