import { crc32, deflateSync } from "node:zlib";
import { AddressPolicy, RenderError } from "@renderkit/core";
import { decodePng, expectRenderError, isPng, makePageSettings, pngSize, startFixtureServer } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";

function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "latin1");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** Encodes RGBA pixels as a PNG, using filter `y % 5` on row y, so the decoder meets all five. */
function encodePng(width: number, height: number, rgba: (x: number, y: number) => number[]): Buffer {
  const stride = width * 4;
  const pixels = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) pixels.set(rgba(x, y), y * stride + x * 4);
  const raw = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const filter = y % 5;
    raw[y * (stride + 1)] = filter;
    for (let i = 0; i < stride; i++) {
      const at = y * stride + i;
      const a = i >= 4 ? (pixels[at - 4] ?? 0) : 0;
      const b = y > 0 ? (pixels[at - stride] ?? 0) : 0;
      const c = i >= 4 && y > 0 ? (pixels[at - stride - 4] ?? 0) : 0;
      const p = a + b - c;
      const paeth =
        Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
      const predicted = [0, a, b, (a + b) >> 1, paeth][filter] ?? 0;
      raw[y * (stride + 1) + 1 + i] = ((pixels[at] ?? 0) - predicted) & 255;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 6, 0, 0, 0], 8);
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", new Uint8Array())]);
}

describe("png helpers", () => {
  const colour = (x: number, y: number) => [(x * 37) & 255, (y * 53) & 255, (x * y) & 255, x < 3 ? 0 : 255];

  it("reads the size from IHDR and decodes every filter type", () => {
    const png = encodePng(13, 11, colour);
    expect(isPng(png)).toBe(true);
    expect(pngSize(png)).toEqual({ width: 13, height: 11 });
    const image = decodePng(new Uint8Array(png));
    for (let y = 0; y < 11; y++) for (let x = 0; x < 13; x++) expect(image.pixel(x, y)).toEqual(colour(x, y));
  });

  it("refuses what is not a PNG", () => {
    expect(isPng(Buffer.from("%PDF-1.7 and then some more bytes"))).toBe(false);
    expect(() => pngSize(Buffer.from("definitely not a png image"))).toThrow(/PNG/);
  });
});

describe("startFixtureServer", () => {
  it("serves routes, records requests and answers 404 otherwise", async () => {
    const server = await startFixtureServer({
      "/": "<p>home</p>",
      "/teapot": { status: 418, headers: { "x-kind": "teapot" }, body: "short and stout" },
      "/fn": (_req, res, url) => res.end(`q=${url.searchParams.get("q")}`),
    });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
      const home = await fetch(`${server.url}/`);
      expect(home.headers.get("content-type")).toContain("text/html");
      expect(await home.text()).toBe("<p>home</p>");
      const teapot = await fetch(`${server.url}/teapot`);
      expect([teapot.status, teapot.headers.get("x-kind"), await teapot.text()]).toEqual([418, "teapot", "short and stout"]);
      expect(await (await fetch(`${server.url}/fn?q=1`)).text()).toBe("q=1");
      expect((await fetch(`${server.url}/nope`, { headers: { "x-test": "yes" } })).status).toBe(404);
      expect(server.requests.map((r) => r.path)).toEqual(["/", "/teapot", "/fn?q=1", "/nope"]);
      expect(server.requestsTo("/fn")).toHaveLength(1);
      expect(server.requests.at(-1)?.headers["x-test"]).toBe("yes");
    } finally {
      await server.close();
    }
  });

  it("close() cuts hanging responses", async () => {
    const server = await startFixtureServer({ "*": (_req, res) => res.writeHead(200).write("partial") });
    const answer = await fetch(`${server.url}/anything`);
    const body = answer.text();
    await server.close();
    await expect(body).rejects.toThrow();
    await server.close();
  });
});

describe("expectRenderError", () => {
  it("passes for the code, fails for another code or a resolution (closing what resolved)", async () => {
    await expectRenderError(Promise.reject(new RenderError("InvalidURLError", "no")), "InvalidURLError");
    await expect(
      expectRenderError(Promise.reject(new RenderError("InvalidURLError", "no")), "RenderTimeoutError"),
    ).rejects.toThrow();
    let closed = false;
    const resolved = Promise.resolve({
      close: async () => {
        closed = true;
      },
    });
    await expect(expectRenderError(resolved, "InvalidURLError")).rejects.toThrow(/resolved/);
    expect(closed).toBe(true);
  });
});

describe("makePageSettings", () => {
  it("fills the contract defaults", () => {
    const policy = new AddressPolicy();
    expect(makePageSettings(policy, { width: 300 })).toEqual({
      width: 300,
      height: 600,
      deviceScaleFactor: 1,
      headers: {},
      cookies: [],
      colorScheme: "light",
      reducedMotion: false,
      javaScriptEnabled: true,
      media: "screen",
      waitUntil: "loaded",
      timeoutMs: 15_000,
      policy,
    });
  });
});
