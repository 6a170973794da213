import { forEachEngine } from "../helpers/setup.js";
import { inPageCases, renderAttack } from "./in-page-cases.js";
import { expectRenderedWithout, outcome, ssrfCase, useSsrf } from "./ssrf-harness.js";

/**
 * SSRF, part 2b: what a page's scripts and hints do. fetch (cors and no-cors), XHR, WebSocket,
 * EventSource, sendBeacon, dedicated and service workers, preload, prefetch, modulepreload and
 * preconnect hints, a form submission, a meta refresh, a location change and window.open; then
 * the same requests aimed at other spellings of the canary, and from supplied html.
 */
forEachEngine((engine) => {
  const h = useSsrf(engine);
  const inPage = ssrfCase(h, "in-page");
  inPageCases(h, [
    "fetch",
    "fetch-no-cors",
    "xhr",
    "websocket",
    "eventsource",
    "beacon",
    "worker",
    "service-worker",
    "preload",
    "prefetch",
    "modulepreload",
    "preconnect",
    "form-submit",
    "meta-refresh",
    "location",
    "window-open",
  ]);

  // Other spellings of the canary as an in-page target: the same policy holds for subresources.
  const SPELLINGS = [
    ["fetch", "http://2130706433:{port}"],
    ["fetch", "http://[::1]:{port}"],
    ["fetch", "http://[::ffff:127.0.0.1]:{port}"],
    ["fetch", "http://localhost.:{port}"],
    ["img", "http://0x7f.1:{port}"],
    ["iframe", "http://internal.test:{port}"],
    ["xhr", "http://0.0.0.0:{port}"],
    ["websocket", "http://127.1:{port}"],
    ["iframe", "https://127.0.0.1:{port}"],
    ["fetch", "https://localhost:{port}"],
  ] as const;
  for (const [kind, template] of SPELLINGS) {
    inPage(`${kind} to ${template}: never reaches the canary`, async () => {
      const result = await renderAttack(h, kind, template.replace("{port}", String(h.canary.port)));
      expectRenderedWithout(result, h.canary.secret);
    });
  }

  inPage("supplied html (about:blank) reaching out with fetch, img, iframe and a WebSocket", async () => {
    const to = h.canaryOrigin;
    const html = `<img src="${to}/img"><iframe src="${to}/frame"></iframe>
      <script>fetch("${to}/fetch").then((r) => r.text()).then((t) => document.body.append(t), () => {});
      new WebSocket("${to.replace("http", "ws")}/ws");</script>`;
    const result = await outcome(h.render({ html, format: "html", wait_until: "requestsfinished" }));
    expectRenderedWithout(result, h.canary.secret);
  });
});
