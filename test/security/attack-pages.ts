/**
 * Pages that reach out to an address in every way a page can. Each kind is built for a base
 * address (`http://host:port`): the canary's, which the policy must keep the browser from, or the
 * attacker's own site's, the control that proves the technique really makes a request.
 *
 * Every page calls `done()` once its attempt settled (an error or a load event, the page's load
 * event when the element delays it, or at once when the browser gives no signal), so the render
 * waits for `body[data-done]` rather than for a length of time. Anything a script manages to
 * read is appended to the page (`show`), so a render that read the canary would carry its secret.
 * A page whose browser lacks the technique says so (`data-unavailable` on the body: the
 * engine blocks service workers, the browser blocks the popup).
 */

/** How a kind tells the render it is finished. */
export interface AttackKind {
  /** The page's `<head>` extras and `<body>`, for a base address. */
  head?(base: string): string;
  body(base: string): string;
  /** The document navigates away: the render does not wait for `done()` (the page is gone). */
  navigates?: boolean;
  /**
   * `wait_until` for the render: `loaded` (the default) where `done()` follows the request's end;
   * `requestsfinished` where the browser gives the page no signal (a beacon, a hint, a navigation).
   */
  waitUntil?: string;
  /**
   * Path the control run must see on the allowed site; `undefined` when the technique makes no
   * request a server can see (a bare preconnect).
   */
  hit?: string;
}

const ws = (base: string) => base.replace(/^http/, "ws");
const onLoad = `<script>addEventListener("load", done)</script>`;
const events = `onload="done()" onerror="done()"`;

/** A kind whose request lands on `/hit/<name>` of the control site. */
function kind(name: string, body: (url: string, base: string) => string, extra: Partial<AttackKind> = {}): [string, AttackKind] {
  return [name, { body: (base) => body(`${base}/hit/${name}`, base), hit: `/hit/${name}`, ...extra }];
}

export const ATTACK_KINDS: Readonly<Record<string, AttackKind>> = Object.fromEntries([
  kind("img", (u) => `<img src="${u}" ${events}>`),
  kind("srcset", (u) => `<img srcset="${u} 1x" ${events}>`),
  kind("picture", (u) => `<picture><source srcset="${u}" type="image/png"><img alt="" ${events}></picture>`),
  kind("input-image", (u) => `<input type="image" alt="x" src="${u}">${onLoad}`),
  kind("svg-image", (u) => `<svg width="10" height="10"><image href="${u}" width="10" height="10"/></svg>${onLoad}`),
  kind("script", (u) => `<script src="${u}" ${events}></script>`),
  kind("module-import", (u) => `<script>import("${u}").catch(() => {}).finally(done)</script>`),
  kind("stylesheet", (u) => `<link rel="stylesheet" href="${u}" ${events}>`),
  kind("css-url", (u) => `<div style="width:10px;height:10px;background-image:url('${u}')"></div>${onLoad}`),
  kind("css-image-set", (u) => `<div style="width:10px;height:10px;background-image:image-set(url('${u}') 1x)"></div>${onLoad}`),
  kind("css-import", (u) => `<style>@import url("${u}");</style>${onLoad}`),
  kind(
    "font",
    (u) =>
      `<style>@font-face { font-family: probe; src: url("${u}"); }</style><p style="font-family: probe">text</p>` +
      `<script>document.fonts.load("16px probe").catch(() => {}).finally(done)</script>`,
  ),
  kind("iframe", (u) => `<iframe src="${u}" onload="done()"></iframe>`),
  kind("iframe-srcdoc", (u) => `<iframe srcdoc="<img src='${u}'>" onload="done()"></iframe>`),
  kind("object", (u) => `<object data="${u}" type="text/html" width="50" height="50"></object>${onLoad}`),
  kind("embed", (u) => `<embed src="${u}" type="text/html" width="50" height="50">${onLoad}`),
  kind("video", (u) => `<video src="${u}" preload="auto" muted onloadeddata="done()" onerror="done()"></video>`),
  kind("video-poster", (u) => `<video poster="${u}" width="10" height="10"></video>${onLoad}`),
  kind("audio", (u) => `<audio src="${u}" preload="auto" oncanplay="done()" onerror="done()"></audio>`),
  kind("base-href", (_u, base) => `<base href="${base}/hit/"><img src="base-href" ${events}>`),
  kind("fetch", (u) => `<script>fetch("${u}").then((r) => r.text()).then(show, () => {}).finally(done)</script>`),
  kind(
    "fetch-no-cors",
    (u) => `<script>fetch("${u}", { mode: "no-cors", method: "POST", body: "x" }).catch(() => {}).finally(done)</script>`,
  ),
  kind(
    "xhr",
    (u) =>
      `<script>const x = new XMLHttpRequest(); x.open("GET", "${u}");` +
      `x.onloadend = () => { show(x.responseText); done(); }; x.send();</script>`,
  ),
  kind(
    "websocket",
    (u) =>
      `<script>const s = new WebSocket("${ws(u)}"); s.onmessage = (e) => show(e.data);` +
      `s.onclose = done; s.onerror = done;</script>`,
  ),
  kind(
    "eventsource",
    (u) =>
      `<script>const e = new EventSource("${u}"); e.onmessage = (m) => show(m.data); e.onerror = () => { e.close(); done(); };</script>`,
  ),
  kind("beacon", (u) => `<script>navigator.sendBeacon("${u}", "x"); done();</script>`, { waitUntil: "requestsfinished" }),
  kind(
    "worker",
    (u) =>
      `<script>const w = new Worker("/worker.js?to=" + encodeURIComponent("${u}"));` +
      `w.onmessage = (e) => { show(e.data); done(); }; w.onerror = done;</script>`,
  ),
  kind(
    "service-worker",
    (u) =>
      `<script>if (!navigator.serviceWorker) { unavailable("no navigator.serviceWorker"); done(); }
      else navigator.serviceWorker.register("/sw.js?to=" + encodeURIComponent("${u}")).then((r) => {
        if (!r) { unavailable("registration blocked"); return done(); }
        const w = r.installing || r.waiting || r.active;
        if (!w || w.state !== "installing") return done();
        w.addEventListener("statechange", () => { if (w.state !== "installing") done(); });
      }, (e) => { unavailable(e.name); done(); });</script>`,
  ),
  kind("preload", (u) => `<link rel="preload" href="${u}" as="image" ${events}>`),
  kind("prefetch", (u) => `<link rel="prefetch" href="${u}" ${events}>`),
  kind("modulepreload", (u) => `<link rel="modulepreload" href="${u}" ${events}>`),
  [
    "preconnect",
    {
      head: (base: string) => `<link rel="preconnect" href="${base}"><link rel="dns-prefetch" href="${base}">`,
      body: () => onLoad,
      waitUntil: "requestsfinished",
    },
  ],
  kind(
    "form-submit",
    (u) => `<form method="post" action="${u}"><input name="a" value="1"></form><script>document.forms[0].submit()</script>`,
    { navigates: true, waitUntil: "requestsfinished" },
  ),
  kind("meta-refresh", () => "<p>refreshing</p>", {
    head: (base) => `<meta http-equiv="refresh" content="0;url=${base}/hit/meta-refresh">`,
    navigates: true,
    waitUntil: "requestsfinished",
  }),
  kind("location", (u) => `<script>location.href = "${u}";</script>`, { navigates: true, waitUntil: "requestsfinished" }),
  kind("window-open", (u) => `<script>if (!window.open("${u}")) unavailable("popup blocked"); done();</script>`, {
    waitUntil: "requestsfinished",
  }),
] as [string, AttackKind][]);

/** The page of `name` for `base`; an unknown kind is a page that says so (a test bug, seen at once). */
export function attackPage(name: string, base: string): string {
  const k = ATTACK_KINDS[name];
  const preamble = `<meta charset="utf-8"><script>
    window.done = () => { const mark = () => (document.body ? (document.body.dataset.done = "1") : setTimeout(mark, 5)); mark(); };
    window.unavailable = (why) => { document.body.dataset.unavailable = why; };
    window.show = (text) => { const p = document.createElement("pre"); p.className = "got"; p.textContent = String(text).slice(0, 500); (document.body || document.documentElement).append(p); };
  </script>`;
  if (!k) return `<!doctype html><p>unknown kind ${name}</p>`;
  return `<!doctype html><html><head>${preamble}${k.head?.(base) ?? ""}</head><body style="margin:0;background:#fff"><p>attack: ${name}</p>${k.body(base)}</body></html>`;
}

/** A service worker whose installation fetches `to` (the worker outlives nothing: the context closes after the render). */
export const SERVICE_WORKER = (to: string) =>
  `self.addEventListener("install", (e) => e.waitUntil(fetch(${JSON.stringify(to)}).then((r) => r.text()).catch(() => {})));`;

/** A dedicated worker that fetches `to` and posts what it read. */
export const WORKER = (to: string) =>
  `fetch(${JSON.stringify(to)}).then((r) => r.text()).then((t) => postMessage(t), () => postMessage("failed"));`;
