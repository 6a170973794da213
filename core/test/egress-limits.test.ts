import { once } from "node:events";
import { type IncomingMessage, request, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { AddressPolicy, type PageSettings } from "@renderkit/core";
import { authorizedHeaders, type EgressSession, openEgressSession, pageHeaders } from "@renderkit/core/chromium";
import { type FixtureServer, startFixtureServer } from "@renderkit/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// The egress proxy's own slots, not an engine's: `/chromium` does not export them.
import { ConnectionSlots } from "../dist/chromium/network/egress-caps.js";

/** Opens a CONNECT tunnel through the session; resolves with the proxy's status and the socket. */
async function tunnel(session: EgressSession, authority: string): Promise<{ status: number; socket: Socket }> {
  const proxy = new URL(session.proxyUrl);
  const req = request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: authority });
  req.end();
  const [res, socket] = (await once(req, "connect")) as [IncomingMessage, Socket];
  socket.on("error", () => socket.destroy());
  return { status: res.statusCode ?? 0, socket };
}

/** Streams bytes without end until the connection goes. */
function endless(_req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { "content-type": "application/octet-stream" });
  const chunk = Buffer.alloc(64 * 1024, 120);
  const pump = () => {
    while (!res.destroyed && res.write(chunk)) {
      // Fill the buffer, then wait for it to drain.
    }
  };
  res.on("drain", pump);
  pump();
}

describe("egress caps", () => {
  let fixture: FixtureServer;
  const sessions: EgressSession[] = [];
  const open = async (limits: { maxBytes: number; maxConnections: number }) => {
    const session = await openEgressSession(
      new AddressPolicy({ allowPrivate: [`127.0.0.1:${fixture.port}`] }),
      undefined,
      limits,
    );
    sessions.push(session);
    return session;
  };

  beforeAll(async () => {
    fixture = await startFixtureServer({ "/endless": endless, "/hello": { body: "hello" } });
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((s) => s.close()));
  });
  afterAll(() => fixture.close());

  it("past maxBytes every connection is cut, later ones are refused, and limitError names the cap", async () => {
    const session = await open({ maxBytes: 1024 * 1024, maxConnections: 64 });
    const idle = await tunnel(session, `127.0.0.1:${fixture.port}`);
    const idleClosed = new Promise((resolve) => idle.socket.once("close", resolve));
    const proxy = new URL(session.proxyUrl);
    const req = request({ host: proxy.hostname, port: proxy.port, path: `${fixture.url}/endless` });
    req.on("error", () => undefined);
    req.end();
    const [res] = (await once(req, "response")) as [IncomingMessage];
    const cut = new Promise((resolve) => res.once("close", resolve));
    res.on("error", () => undefined).resume();
    // The stream ends because the proxy cut it (left alone it never would), and so does the idle tunnel.
    await Promise.all([cut, idleClosed]);
    expect(session.bytesReceived()).toBeGreaterThan(1024 * 1024);
    const error = session.limitError();
    expect(error).toMatchObject({ name: "RenderError", code: "HTMLProcessError" });
    expect(error?.message).toBe(
      "The page received more than 1 MiB from the network, this server's limit per render; the render was stopped",
    );
    const before = fixture.requests.length;
    const later = request({ host: proxy.hostname, port: proxy.port, path: `${fixture.url}/hello` });
    const refused = new Promise<string>((resolve) => {
      later.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
      later.once("response", (r: IncomingMessage) => resolve(`status ${r.statusCode}`));
    });
    later.end();
    expect(await refused).toMatch(/ECONNRESET|socket hang up|status 503/);
    expect(fixture.requests.length).toBe(before);
  });

  it("at most maxConnections tunnels are open; the next ones wait, in order, for a slot", async () => {
    const session = await open({ maxBytes: 1024 * 1024 * 1024, maxConnections: 2 });
    const target = `127.0.0.1:${fixture.port}`;
    const first = await tunnel(session, target);
    const second = await tunnel(session, target);
    expect([first.status, second.status]).toEqual([200, 200]);
    const waiting = [tunnel(session, target), tunnel(session, target), tunnel(session, target)];
    // Those still waiting at the end are cut by close(): settled here so their failure is expected.
    const settled = Promise.allSettled(waiting);
    await expect.poll(() => session.connections()).toEqual({ open: 2, waiting: 3 });
    first.socket.destroy();
    const next = await waiting[0];
    expect(next?.status).toBe(200);
    expect(session.connections()).toEqual({ open: 2, waiting: 2 });
    await session.close();
    for (const w of await settled) if (w.status === "fulfilled") w.value.socket.destroy();
    for (const s of [second, next]) s?.socket.destroy();
  });
});

describe("connection slots", () => {
  it("grant in order, refuse past the waiting room, and refuse everything once drained", async () => {
    const slots = new ConnectionSlots(1, 2);
    const a = await slots.acquire();
    const order: string[] = [];
    const noted = (name: string) => (release: (() => void) | undefined) => {
      order.push(name);
      return release;
    };
    const b = slots.acquire().then(noted("b"));
    const c = slots.acquire().then(noted("c"));
    expect(await slots.acquire()).toBeUndefined();
    expect(slots.counts()).toEqual({ open: 1, waiting: 2 });
    a?.();
    a?.();
    const granted = await b;
    expect(granted).toBeTypeOf("function");
    expect(slots.counts()).toEqual({ open: 1, waiting: 1 });
    slots.drain();
    expect(await c).toBeUndefined();
    expect(order).toEqual(["b", "c"]);
    expect(await slots.acquire()).toBeUndefined();
    slots.reset(1);
    granted?.();
    expect(await slots.acquire()).toBeTypeOf("function");
  });
});

describe("the caller's headers", () => {
  const policy = new AddressPolicy();
  const settings = (over: Partial<PageSettings>): PageSettings => ({ headers: {}, ...over, policy }) as unknown as PageSettings;

  it("go to the target's origin only; accept-language goes everywhere; html has no origin", () => {
    const split = pageHeaders(
      { url: "https://site.example/a?b" },
      settings({
        headers: { "x-api-key": "k", "accept-language": "de-DE" },
        authorization: { origin: "https://site.example", value: "Bearer t" },
      }),
    );
    expect(split).toEqual({
      everywhere: { "accept-language": "de-DE" },
      target: { origin: "https://site.example", headers: { "x-api-key": "k", authorization: "Bearer t" } },
    });
    expect(pageHeaders({ html: "<p>" }, settings({ headers: { "x-api-key": "k" } }))).toEqual({ everywhere: {} });
    expect(pageHeaders({ url: "https://site.example/" }, settings({ headers: { "accept-language": "fr" } }))).toEqual({
      everywhere: { "accept-language": "fr" },
    });
  });

  it("are added on the target's origin, replacing the request's own, and taken off a hop elsewhere that kept them", () => {
    const target = { origin: "https://site.example", headers: { "x-api-key": "k", authorization: "Bearer t" } };
    expect(authorizedHeaders("https://site.example/img.png", { Accept: "*/*", "X-Api-Key": "old" }, target)).toEqual({
      Accept: "*/*",
      "x-api-key": "k",
      authorization: "Bearer t",
    });
    // Another origin: ours are removed where they carry our value, the site's own stay.
    expect(
      authorizedHeaders("https://cdn.example/x", { Accept: "*/*", "X-Api-Key": "k", Authorization: "Bearer t" }, target),
    ).toEqual({
      Accept: "*/*",
    });
    expect(authorizedHeaders("https://cdn.example/x", { Accept: "*/*", Authorization: "Basic other" }, target)).toBeUndefined();
    expect(authorizedHeaders("https://site.example:8443/", { Accept: "*/*" }, target)).toBeUndefined();
    expect(authorizedHeaders("https://site.example/", { Accept: "*/*" }, undefined)).toBeUndefined();
  });
});
