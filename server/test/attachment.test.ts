import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import contentDisposition from "content-disposition";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attachment } from "../dist/http/respond.js";
import { listenLocal, PROJECT_A, startTestServer, type TestServer } from "./helpers.js";

/** RFC 8187 ext-value with UTF-8: only attr-char and %XX may follow `UTF-8''`. */
const EXT_VALUE = /^UTF-8''(?:%[0-9A-F]{2}|[A-Za-z0-9!#$&+.^_`|~-])*$/;
/** RFC 6266 / 7230 quoted-string made of printable ASCII only. */
const QUOTED_ASCII = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;

/** Splits a header into its parameters, the way a strict RFC 6266 reader sees them. */
function params(header: string): Record<string, string> {
  const [type, ...rest] = header.split(/;\s*(?=filename\*?=)/);
  expect(type).toBe("attachment");
  return Object.fromEntries(rest.map((part) => [part.slice(0, part.indexOf("=")), part.slice(part.indexOf("=") + 1)]));
}

/** The name a client recovers: `filename*` when present, else the quoted `filename`. */
function readBack(header: string): string {
  return contentDisposition.parse(header).parameters.filename as string;
}

/** Sends the header from a real HTTP server and reads it back with Node's fetch (undici). */
async function overHttp(value: string): Promise<string | null> {
  const server = createServer((_req, res) => {
    res.setHeader("content-disposition", value);
    res.end("x");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await response.arrayBuffer();
    return response.headers.get("content-disposition");
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe("attachment()", () => {
  it("reads back exactly for names with '()* , spaces, quotes and non-ASCII", async () => {
    const names = [
      "it's (1)*.png",
      "café.png",
      "кл.png",
      'say "hi" \\ now.pdf',
      "100% done.webp",
      "emoji 😀.png",
      "tab\there.png",
    ];
    for (const name of names) {
      const header = attachment(name);
      expect(header, name).toMatch(/^[\x20-\x7e]+$/);
      const p = params(header);
      expect(p.filename, name).toMatch(QUOTED_ASCII);
      if (p["filename*"] !== undefined) expect(p["filename*"], name).toMatch(EXT_VALUE);
      expect(await overHttp(header), name).toBe(header);
      expect(readBack(header), name).toBe(name);
    }
  });

  it("percent-encodes ' ( ) * in filename* and keeps an ASCII fallback", () => {
    expect(attachment("it's (1)*.png")).toBe(`attachment; filename="it's (1)*.png"`);
    expect(attachment("it's (1)*é.png")).toBe(
      `attachment; filename="it's (1)*_.png"; filename*=UTF-8''it%27s%20%281%29%2A%C3%A9.png`,
    );
    expect(attachment("café.png")).toBe(`attachment; filename="caf_.png"; filename*=UTF-8''caf%C3%A9.png`);
  });

  it("keeps the base name, cuts long names and survives lone surrogates and line breaks", () => {
    expect(readBack(attachment("../../etc/passwd"))).toBe("passwd");
    const long = "é".repeat(300);
    expect(readBack(attachment(long))).toBe("é".repeat(200));
    expect(readBack(attachment("a\ud83d.png"))).toBe("a\ufffd.png");
    const broken = attachment("a\r\nSet-Cookie: x=1.png");
    expect(broken).not.toMatch(/[\r\n]/);
    expect(readBack(broken)).toBe("a\r\nSet-Cookie: x=1.png");
  });
});

/** Percent-encodes `'()*!` as well, so the query fetch sends is the one that was signed. */
const strictEncode = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

describe("download on a render link", () => {
  let server: TestServer;
  let site: Awaited<ReturnType<typeof listenLocal>>;
  beforeAll(async () => {
    site = await listenLocal(() => ({ body: `<body style="margin:0;background:rgb(0,0,255)"></body>` }));
    server = await startTestServer({ projects: [{ ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 } }] });
  });
  afterAll(async () => {
    await server?.close();
    await site?.close();
  });

  it("names the file so fetch and an RFC 6266 parser read the name back", async () => {
    for (const name of ["it's (1)*.png", "café.png"]) {
      const query = `url=${encodeURIComponent(`${site.url}/d`)}&width=200&height=100&download=${strictEncode(name)}`;
      const token = createHmac("sha256", PROJECT_A.secretKey).update(`png?${query}`).digest("hex");
      const response = await fetch(`${server.url}/v1/${PROJECT_A.publishableKey}/${token}/png?${query}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(response.status, name).toBe(200);
      const header = response.headers.get("content-disposition") ?? "";
      expect(header, name).toBe(attachment(name));
      expect(readBack(header), name).toBe(name);
      const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).toEqual([200, 100]);
      expect([data[0], data[1], data[2]]).toEqual([0, 0, 255]);
    }
  });
});
