import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import Urlbox, { type RenderOptions } from "urlbox";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENGINES } from "../../test/helpers/setup.js";
import { listenLocal, PROJECT_A, PROJECT_B, startTestServer, type TestServer } from "./helpers.js";

/**
 * Render links made by a real client, the `urlbox` npm package: it builds the query (qs, falsy
 * values dropped, arrays repeated) and signs it; the server must verify the token over those exact
 * bytes and honour the options. Each case is a row of `CASES`: the options the client sends and
 * what a user would check in the answer. Add a row for each option that works.
 */

const run = promisify(execFile);
let server: TestServer;
let site: Awaited<ReturnType<typeof listenLocal>>;
let dir: string;

// 3,000 px tall: a yellow "ad" at the top left, a blue box at (200,100), text at y=300, red elsewhere.
const PAGE = `<!doctype html><html><head><style>
  body { margin: 0; background: rgb(255,0,0); font: 20px sans-serif }
  #ad { position: absolute; left: 0; top: 0; width: 100px; height: 100px; background: rgb(255,255,0) }
  #box { position: absolute; left: 200px; top: 100px; width: 120px; height: 60px; background: rgb(0,0,255) }
  #text { position: absolute; left: 10px; top: 300px; margin: 0 }
  #tall { height: 3000px }
</style></head><body><div id="ad"></div><div id="box"></div><p id="text">Hello from renderkit</p><div id="tall"></div></body></html>`;
// Red, turning green one second after load.
const LATE = `<body style="margin:0;background:rgb(255,0,0)"><script>
  addEventListener("load", () => setTimeout(() => { document.body.style.background = "rgb(0,128,0)"; }, 1000));
</script></body>`;
// Two buttons, each painting its half of the page when clicked.
const BUTTONS = `<body style="margin:0"><div id="l" style="position:fixed;left:0;top:0;width:50%;height:100%"></div>
  <div id="r" style="position:fixed;right:0;top:0;width:50%;height:100%"></div>
  <button id="a" style="position:relative;z-index:1" onclick="l.style.background='rgb(255,0,0)'">a</button>
  <button id="b" style="position:relative;z-index:1" onclick="r.style.background='rgb(0,255,0)'">b</button></body>`;

// No background of its own: a blue box at (200,100) on the browser's default white.
const PLAIN = `<body style="margin:0"><div style="position:absolute;left:200px;top:100px;width:120px;height:60px;background:rgb(0,0,255)"></div></body>`;
// Red turning blue over 60 s: only the end state is blue.
const ANIMATED = `<style>@keyframes go { from { background: rgb(255,0,0) } to { background: rgb(0,0,255) } }
  body { margin: 0 } #a { height: 100vh; animation: go 60s linear forwards }</style><div id="a"></div>`;
// The page says what the browser tells it: navigator.platform and the position it is given.
const PROBE = `<body><p id="platform"></p><script>
  document.getElementById("platform").textContent = "platform " + navigator.platform;
  navigator.geolocation.getCurrentPosition((p) => {
    document.body.insertAdjacentHTML("beforeend", '<p id="geo">at ' + p.coords.latitude + "," + p.coords.longitude + "</p>");
  }, (e) => document.body.insertAdjacentHTML("beforeend", '<p id="geo">no position ' + e.message + "</p>"));
</script></body>`;
// An image whose address has a keyword, green when it loads.
const TRACKED = `<body style="margin:0;background:rgb(255,0,0)"><img src="/img/tracker-pixel.svg" style="display:block;width:100px;height:100px"></body>`;
const GREEN_SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="rgb(0,255,0)"/></svg>`;
// An article in a page with navigation and a sidebar around it.
const ARTICLE = `<!doctype html><html><head><title>A long read</title></head><body>
  <nav>MENU HOME ABOUT CONTACT</nav><aside>SIDEBAR SPONSORED LINKS</aside>
  <article><h1>The lighthouse keeper</h1>${"<p>The keeper climbed the hundred steps every evening to light the lamp, and the ships passing the rocks far below saw it shine until the morning came. ".repeat(6)}</p></article>
  <footer>FOOTER COPYRIGHT</footer></body></html>`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "renderkit-urlbox-"));
  site = await listenLocal((req) => {
    if (req.url?.startsWith("/late")) return { body: LATE };
    if (req.url?.startsWith("/buttons")) return { body: BUTTONS };
    if (req.url?.startsWith("/plain")) return { body: PLAIN };
    if (req.url?.startsWith("/animated")) return { body: ANIMATED };
    if (req.url?.startsWith("/probe")) return { body: PROBE };
    if (req.url?.startsWith("/tracked")) return { body: TRACKED };
    if (req.url?.startsWith("/img/")) return { type: "image/svg+xml", body: GREEN_SVG };
    if (req.url?.startsWith("/article")) return { body: ARTICLE };
    if (req.url?.startsWith("/private")) {
      const auth = req.headers.authorization;
      return auth === "Bearer s3cret" ? { body: "<p>welcome, key holder</p>" } : { status: 401, body: "<p>who are you</p>" };
    }
    return { body: PAGE };
  });
  server = await startTestServer({
    projects: [
      // The urlbox client signs the query alone (its token does not cover the format): a legacy project.
      { ...PROJECT_A, rateLimit: { requests: 1000, perSeconds: 60 }, legacyLinkTokens: true },
      { ...PROJECT_B, rateLimit: { requests: 1000, perSeconds: 60 }, allowTokenless: true },
    ],
  });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  response: Response;
  bytes: Buffer;
}
interface Case {
  name: string;
  /** What the client is given; `url` paths are on the test site. */
  options: RenderOptions;
  /** A tokenless link (`generateInsecureRenderLink`), from the project that allows them. */
  insecure?: boolean;
  check(answer: Answer): Promise<void>;
}

type Rgb = [number, number, number];
const RED: Rgb = [255, 0, 0];
const BLUE: Rgb = [0, 0, 255];
const YELLOW: Rgb = [255, 255, 0];

/** Decodes an image answer: its size and a pixel reader. */
async function image(bytes: Buffer) {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number): Rgb => {
    const i = (y * info.width + x) * 3;
    return [data[i] ?? -1, data[i + 1] ?? -1, data[i + 2] ?? -1];
  };
  return { width: info.width, height: info.height, at };
}
/** Colours match within `tolerance` per channel (JPEG). */
function expectColour(actual: Rgb, expected: Rgb, tolerance = 0) {
  for (const [i, value] of expected.entries())
    expect(Math.abs((actual[i] ?? -1) - value), `${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
}
async function expectPng(answer: Answer, width: number, height: number) {
  expect(answer.response.status, answer.bytes.toString().slice(0, 300)).toBe(200);
  expect(answer.response.headers.get("content-type")).toBe("image/png");
  const decoded = await image(answer.bytes);
  expect([decoded.width, decoded.height]).toEqual([width, height]);
  return decoded;
}
async function pdfText(bytes: Buffer): Promise<string> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.pdf`);
  writeFileSync(file, bytes);
  return (await run("pdftotext", ["-layout", file, "-"])).stdout;
}

/** A page of the test site: a path, made absolute when the link is built (the site starts later). */
const page = (path = "/page") => path;

const CASES: Case[] = [
  {
    name: "png of the viewport at width and height",
    options: { url: page(), width: 640, height: 480 },
    async check(answer) {
      const png = await expectPng(answer, 640, 480);
      expectColour(png.at(5, 5), YELLOW);
      expectColour(png.at(250, 120), BLUE);
      expectColour(png.at(600, 400), RED);
    },
  },
  {
    name: "full_page captures the whole 3,000 px page",
    options: { url: page(), width: 400, height: 300, full_page: true },
    async check(answer) {
      const png = await expectPng(answer, 400, 3000);
      expectColour(png.at(390, 2990), RED);
    },
  },
  {
    name: "hide_selector hides the element",
    options: { url: page(), width: 640, height: 480, hide_selector: "#ad" },
    async check(answer) {
      const png = await expectPng(answer, 640, 480);
      expectColour(png.at(5, 5), RED);
      expectColour(png.at(250, 120), BLUE);
    },
  },
  {
    name: "selector captures the element only",
    options: { url: page(), selector: "#box" },
    async check(answer) {
      const png = await expectPng(answer, 120, 60);
      expectColour(png.at(0, 0), BLUE);
      expectColour(png.at(119, 59), BLUE);
    },
  },
  {
    name: "delay waits before the capture",
    options: { url: page("/late"), width: 200, height: 100, delay: 2500 },
    async check(answer) {
      const png = await expectPng(answer, 200, 100);
      expectColour(png.at(100, 50), [0, 128, 0]);
    },
  },
  {
    name: "retina doubles the pixels",
    options: { url: page(), width: 300, height: 200, retina: true },
    async check(answer) {
      const png = await expectPng(answer, 600, 400);
      expectColour(png.at(450, 250), BLUE);
    },
  },
  {
    name: "thumb_width scales the capture down",
    options: { url: page(), width: 800, height: 600, thumb_width: 200 },
    async check(answer) {
      const png = await expectPng(answer, 200, 150);
      expectColour(png.at(65, 32), BLUE, 8);
    },
  },
  {
    name: "click (a list, repeated in the query) clicks each element",
    options: { url: page("/buttons"), width: 200, height: 100, click: ["#a", "#b"] },
    async check(answer) {
      const png = await expectPng(answer, 200, 100);
      expectColour(png.at(20, 80), RED);
      expectColour(png.at(180, 80), [0, 255, 0]);
    },
  },
  {
    name: "css is injected",
    options: { url: page(), width: 640, height: 480, css: "#box { background: rgb(0,255,0) !important }" },
    async check(answer) {
      expectColour((await expectPng(answer, 640, 480)).at(250, 120), [0, 255, 0]);
    },
  },
  {
    name: "html instead of a url",
    options: { html: `<body style="margin:0;background:rgb(0,0,255)"></body>`, width: 200, height: 100 },
    async check(answer) {
      expectColour((await expectPng(answer, 200, 100)).at(100, 50), BLUE);
    },
  },
  {
    name: "format jpg with quality",
    options: { url: page(), format: "jpg", quality: 60, width: 320, height: 200 },
    async check(answer) {
      expect(answer.response.headers.get("content-type")).toBe("image/jpeg");
      expect((await sharp(answer.bytes).metadata()).format).toBe("jpeg");
      const jpg = await image(answer.bytes);
      expect([jpg.width, jpg.height]).toEqual([320, 200]);
      expectColour(jpg.at(300, 190), RED, 16);
    },
  },
  {
    name: "format pdf carries the page's text",
    options: { url: page(), format: "pdf" },
    async check(answer) {
      expect(answer.response.headers.get("content-type")).toBe("application/pdf");
      expect(answer.bytes.subarray(0, 5).toString()).toBe("%PDF-");
      expect(await pdfText(answer.bytes)).toContain("Hello from renderkit");
    },
  },
  {
    name: "response_type json answers the result",
    options: { url: page(), width: 320, height: 240, response_type: "json" },
    async check(answer) {
      expect(answer.response.status).toBe(200);
      const result = JSON.parse(answer.bytes.toString());
      expect(result).toMatchObject({ renderId: expect.stringMatching(/_l$/), width: 320, height: 240 });
      const stored = Buffer.from(await (await fetch(result.renderUrl)).arrayBuffer());
      expect(stored.length).toBe(result.size);
      expectColour((await image(stored)).at(250, 120), BLUE);
    },
  },
  {
    name: "response_type base64 answers the bytes as text",
    options: { url: page(), width: 320, height: 240, response_type: "base64" },
    async check(answer) {
      expect(answer.response.headers.get("content-type")).toMatch(/^text\/plain/);
      const png = await image(Buffer.from(answer.bytes.toString("ascii"), "base64"));
      expect([png.width, png.height]).toEqual([320, 240]);
      expectColour(png.at(250, 120), BLUE);
    },
  },
  {
    name: "download names the file",
    options: { url: page(), width: 320, height: 240, download: "my shot.png" },
    async check(answer) {
      await expectPng(answer, 320, 240);
      expect(answer.response.headers.get("content-disposition")).toBe(`attachment; filename="my shot.png"`);
    },
  },
  {
    name: "clip captures a rectangle of the document",
    options: { url: page(), clip: "190,90,140,80" },
    async check(answer) {
      const png = await expectPng(answer, 140, 80);
      expectColour(png.at(5, 5), RED);
      expectColour(png.at(70, 40), BLUE);
    },
  },
  {
    name: "max_width crops the width",
    options: { url: page(), width: 640, height: 200, max_width: 300 },
    async check(answer) {
      expectColour((await expectPng(answer, 300, 200)).at(250, 120), BLUE);
    },
  },
  {
    name: "bg_color paints where the page has no background",
    options: { url: page("/plain"), width: 400, height: 200, bg_color: "#00ff00" },
    async check(answer) {
      const png = await expectPng(answer, 400, 200);
      expectColour(png.at(10, 10), [0, 255, 0]);
      expectColour(png.at(250, 120), BLUE);
    },
  },
  {
    name: "thumb sizes with img_fit contain and img_bg letterbox the capture",
    options: { url: page(), width: 800, height: 400, thumb_width: 200, thumb_height: 200, img_fit: "contain", img_bg: "#00ff00" },
    async check(answer) {
      const png = await expectPng(answer, 200, 200);
      expectColour(png.at(100, 10), [0, 255, 0], 8);
      expectColour(png.at(190, 100), RED, 8);
    },
  },
  {
    name: "show_url adds a strip above the capture",
    options: { url: page(), width: 320, height: 200, show_url: true },
    async check(answer) {
      const png = await image(answer.bytes);
      expect(png.width).toBe(320);
      expect(png.height).toBeGreaterThan(200);
      expectColour(png.at(300, png.height - 10), RED);
      expect(png.at(300, 5)).not.toEqual(RED);
    },
  },
  {
    name: "disable_animations shows the animations' end state",
    options: { url: page("/animated"), width: 200, height: 100, disable_animations: true },
    async check(answer) {
      expectColour((await expectPng(answer, 200, 100)).at(100, 50), BLUE, 2);
    },
  },
  {
    name: "block_url_keywords blocks matching requests",
    options: { url: page("/tracked"), width: 200, height: 150, block_url_keywords: "TRACKER" },
    async check(answer) {
      expectColour((await expectPng(answer, 200, 150)).at(50, 50), RED);
      expect(site.requests.some((r) => r.url.includes("tracker"))).toBe(false);
    },
  },
  {
    name: "authorization reaches the target",
    options: { url: page("/private"), format: "md", authorization: "Bearer s3cret" },
    async check(answer) {
      expect(answer.response.status).toBe(200);
      expect(answer.bytes.toString()).toContain("welcome, key holder");
    },
  },
  {
    name: "platform, latitude and longitude are what the page sees",
    options: { url: page("/probe"), format: "md", platform: "Win32", latitude: 48.8584, longitude: 2.2945, wait_for: "#geo" },
    async check(answer) {
      const text = answer.bytes.toString();
      expect(text).toContain("platform Win32");
      expect(text).toContain("at 48.8584,2.2945");
    },
  },
  {
    name: "readable turns the page into its article",
    options: { url: page("/article"), format: "pdf", readable: true },
    async check(answer) {
      const text = await pdfText(answer.bytes);
      expect(text).toContain("The lighthouse keeper");
      expect(text).not.toContain("SIDEBAR SPONSORED");
    },
  },
  {
    name: "format mhtml is Chromium's snapshot",
    options: { url: page(), format: "mhtml" },
    async check(answer) {
      expect(answer.response.status).toBe(200);
      expect(answer.response.headers.get("content-type")).toMatch(/^multipart\/related/);
      const text = answer.bytes.toString();
      expect(text).toMatch(/^From: <Saved by Blink>/);
      // The document part is quoted-printable: soft line breaks (`=` at a line's end) join lines.
      expect(text.replaceAll("=\r\n", "")).toContain("Hello from renderkit");
    },
  },
  {
    name: "an insecure (tokenless) link",
    options: { url: page(), width: 320, height: 240, full_page: false, delay: 0 },
    insecure: true,
    async check(answer) {
      expectColour((await expectPng(answer, 320, 240)).at(5, 5), YELLOW);
    },
  },
];

describe("render links made by the urlbox npm client", () => {
  const signed = () => Urlbox(PROJECT_A.publishableKey, PROJECT_A.secretKey, `${server.url}/v1/`);
  const insecure = () => Urlbox(PROJECT_B.publishableKey, undefined, `${server.url}/v1/`);

  // Each row runs on one engine, alternating, so both engines carry a share.
  for (const [index, row] of CASES.entries()) {
    const engine = ENGINES[index % ENGINES.length] as string;
    it(`${row.name} (${engine})`, async () => {
      const url = row.options.url === undefined ? {} : { url: `${site.url}${row.options.url}` };
      const options = { ...row.options, ...url, engine } as RenderOptions;
      const link = row.insecure ? insecure().generateInsecureRenderLink(options) : signed().generateRenderLink(options);
      expect(link.startsWith(`${server.url}/v1/`)).toBe(true);
      const response = await fetch(link);
      const bytes = Buffer.from(await response.arrayBuffer());
      await row.check({ response, bytes });
      expect(response.headers.get("x-ignored-options")).toBeNull();
    });
  }

  it("refuses a link whose query was changed after signing", async () => {
    const link = signed().generateRenderLink({ url: `${site.url}/page`, width: 320, height: 240 });
    const response = await fetch(link.replace("width=320", "width=330"));
    expect(response.status).toBe(401);
    expect((await response.json()).error.code).toBe("TokenNotMatchedError");
  });
});
