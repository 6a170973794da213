import type { FixtureRoute } from "./fixture-server.js";

/** Bytes of padding in the home page, so `bytesReceived` has something to count. */
export const HOME_PADDING = 20_000;

const page = (title: string, body: string, head = "") =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;

/** A page whose script builds `#built` (checks that JS ran and that `content()` sees the live DOM). */
export const SCRIPTED_HTML = page(
  "scripted",
  `<main id="main"></main><script>
  const p = document.createElement("p"); p.id = "built"; p.textContent = "built by script";
  document.getElementById("main").appendChild(p);
</script>`,
);

/** A full-viewport page of one colour. */
export const colourHtml = (colour: string) =>
  page(colour, "", `<style>html,body{margin:0;height:100%;background:${colour}}</style>`);

/** A page that reports, with an image request to `/prep/report`, what the init scripts left in `window.__rk`. */
const reportScript = (frame: string) =>
  `<script>new Image().src = "/prep/report?frame=${frame}&seen=" + encodeURIComponent(JSON.stringify(window.__rk ?? null));</script>`;

/** Pages of the preparation checks: request filter, init scripts (`/prep/outer` embeds a cross-site iframe). */
function prepareRoutes(): Record<string, FixtureRoute> {
  return {
    "/prep/resources": page(
      "resources",
      `<img id="img" src="/prep/blocked.png" alt=""><p id="styled">styled</p><script src="/prep/script.js"></script>`,
      `<link rel="stylesheet" href="/prep/style.css">`,
    ),
    "/prep/blocked.png": { status: 204 },
    "/prep/style.css": { headers: { "content-type": "text/css" }, body: "#styled { color: rgb(0, 128, 0) }" },
    "/prep/script.js": { headers: { "content-type": "text/javascript" }, body: "document.body.dataset.script = 'ran';" },
    // The iframe comes from `localhost`, another site than `127.0.0.1`: Chromium puts it in its own process.
    "/prep/outer": (req, res) => {
      const inner = `http://localhost:${req.socket.localPort}/prep/inner`;
      res
        .writeHead(200, { "content-type": "text/html" })
        .end(page("outer", `${reportScript("outer")}<iframe id="frame" src="${inner}"></iframe>`));
    },
    "/prep/inner": page("inner", `<img src="/prep/inner.png" alt="">${reportScript("inner")}`),
    "/prep/inner.png": { status: 204 },
    "/prep/report": { status: 204 },
    "/prep/nojs": page(
      "nojs",
      `<div id="box" style="width:100px;height:2000px;background:rgb(0,0,255)"></div>
      <input type="checkbox" id="tick" style="position:absolute;left:300px;top:10px;margin:0">
      <script>document.getElementById("box").style.background = "rgb(255,0,0)"; document.title = "ran";</script>`,
      "<style>body{margin:0}</style>",
    ),
  };
}

/** Pages of the engine suite. `forbidden()` is the address of the server no policy allows. */
export function engineRoutes(forbidden: () => string): Record<string, FixtureRoute> {
  return {
    ...prepareRoutes(),
    "/": page("home", `${SCRIPTED_HTML}<!-- ${"x".repeat(HOME_PADDING)} -->`),
    "/to-home": { status: 302, headers: { location: "/" } },
    "/missing": { status: 404, body: page("missing", "<h1>not here</h1>") },
    "/status/502": { status: 502, body: page("bad gateway", "<h1>the site says 502</h1>") },
    "/echo": page("echo", `<img src="/pixel" alt="">`),
    "/pixel": { status: 204 },
    "/storage": page("storage", "<p>storage</p>"),
    "/late": page(
      "late",
      `<script>setTimeout(() => { const d = document.createElement("div"); d.id = "late"; d.textContent = "late";
        document.body.appendChild(d); }, 300);</script>`,
    ),
    "/tall": page(
      "tall",
      `<div style="height:3000px;background:linear-gradient(#fff,#000)"></div>`,
      "<style>body{margin:0}</style>",
    ),
    // Text lines (so the PNG encodings differ in size) and a red block at 2000 px, below the fold.
    "/tall-text": page(
      "tall-text",
      `${Array.from({ length: 150 }, (_, i) => `<p style="margin:0;height:20px">line ${i}</p>`).join("")}` +
        `<div style="position:absolute;left:0;top:2000px;width:300px;height:200px;background:#f00"></div>`,
      "<style>body{margin:0}</style>",
    ),
    "/hang": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<!doctype html><html><head><title>hang</title></head><body><p>never ends");
    },
    "/hang-image": (_req, res) => {
      res.writeHead(200, { "content-type": "image/png" });
      res.write(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    },
    "/hang-img": page("hang-img", `<p id="text">text</p><img src="/hang-image" alt="">`),
    "/slow-api": (_req, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'), 300);
    },
    "/late-fetch": page(
      "late-fetch",
      `<script>addEventListener("load", () => setTimeout(async () => {
        const answer = await (await fetch("/slow-api")).json();
        document.body.dataset.fetched = String(answer.ok);
      }, 100));</script>`,
    ),
    "/redirect-out": (_req, res) => {
      res.writeHead(302, { location: `${forbidden()}/after-redirect` }).end();
    },
    "/subresources": (_req, res) => {
      const f = forbidden();
      res.writeHead(200, { "content-type": "text/html" }).end(
        page(
          "subresources",
          `<img src="${f}/img.png" alt=""><iframe src="${f}/frame"></iframe>
          <link rel="stylesheet" href="${f}/style.css"><script src="${f}/script.js"></script>
          <script>fetch("${f}/fetch").catch(() => {}).finally(() => { document.body.dataset.fetched = "1"; });
          new Image().src = "${f.replace("127.0.0.1", "localhost")}/by-name.png";</script>`,
        ),
      );
    },
  };
}
