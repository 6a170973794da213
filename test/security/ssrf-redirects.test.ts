import { expect } from "vitest";
import { forEachEngine } from "../helpers/setup.js";
import { expectRefused, expectRenderedWithout, expectSafe, outcome, ssrfCase, useSsrf } from "./ssrf-harness.js";

/**
 * SSRF, part 3: an allowed address that leads elsewhere. HTTP redirects (every status, chains,
 * the `Refresh` header) to internal addresses and to other schemes are refused with a 4xx code;
 * client-side redirects end safely; DNS rebinding finds every connection pinned to the address
 * the name was vetted with. The canary sees no connection in any of them.
 */
forEachEngine((engine) => {
  const h = useSsrf(engine);
  const redirect = ssrfCase(h, "redirect");
  const rebinding = ssrfCase(h, "rebinding");
  const SMALL = { width: 400, height: 300, timeout: 20_000 };
  const port = () => String(h.canary.port);
  const via = (path: string, to: string) =>
    `${h.site.origin}${path}${path.includes("?") ? "&" : "?"}to=${encodeURIComponent(to)}`;

  for (const status of [301, 302, 303, 307, 308]) {
    redirect(`a ${status} to the canary is refused`, async () => {
      const before = h.site.requestsTo("/redirect").length;
      const result = await outcome(h.render({ url: via(`/redirect?status=${status}`, `${h.canaryOrigin}/`), ...SMALL }));
      expectRefused(result);
      expect(h.site.requestsTo("/redirect").length).toBeGreaterThan(before);
    });
  }

  const TARGETS = [
    "http://2130706433:{port}/",
    "http://[::1]:{port}/",
    "http://[::ffff:127.0.0.1]:{port}/",
    "http://localhost:{port}/",
    "http://internal.test:{port}/",
    "https://127.0.0.1:{port}/",
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.test/",
    "http://10.0.0.1/",
    "http://[fd00::1]/",
    // The allowed site's own port on another loopback address: the rule is address and port.
    "http://127.0.0.2:{site}/",
  ] as const;
  for (const template of TARGETS) {
    redirect(`a 302 to ${template} is refused`, async () => {
      const to = template.replace("{port}", port()).replace("{site}", String(h.site.port));
      expectRefused(await outcome(h.render({ url: via("/redirect", to), ...SMALL })));
    });
  }

  const SCHEMES = [
    "file:///etc/passwd",
    "view-source:http://127.0.0.1:{port}/",
    "data:text/html,<h1>inside</h1>",
    "javascript:alert(1)",
    "chrome://version",
    "gopher://127.0.0.1:{port}/",
    "ftp://127.0.0.1:{port}/",
    "ws://127.0.0.1:{port}/",
  ] as const;
  for (const template of SCHEMES) {
    redirect(`a 302 to ${template} is refused with a 4xx code`, async () => {
      expectRefused(await outcome(h.render({ url: via("/redirect", template.replace("{port}", port())), ...SMALL })));
    });
  }

  redirect("a chain of three allowed hops ending at the canary is refused", async () => {
    const before = h.site.requestsTo("/chain").length;
    expectRefused(await outcome(h.render({ url: via("/chain?n=3", `${h.canaryOrigin}/`), ...SMALL })));
    expect(h.site.requestsTo("/chain").length - before).toBeGreaterThanOrEqual(3);
  });

  redirect("a chain through a 307 and a 308 to [::1] is refused", async () => {
    const last = via("/redirect?status=308", `http://[::1]:${port()}/`);
    expectRefused(await outcome(h.render({ url: via("/redirect?status=307", last), ...SMALL })));
  });

  // Client-side redirects happen after the page loaded: refused, or rendered without the canary.
  const safely = async (url: string) =>
    expectSafe(
      await outcome(h.render({ url, format: "html", wait_until: "requestsfinished", timeout: 20_000 })),
      h.canary.secret,
    );

  redirect("a Refresh header to the canary ends safely", () => safely(via("/refresh", `${h.canaryOrigin}/`)));
  redirect("a meta refresh to the canary ends safely", () =>
    safely(`${h.site.origin}/attack?kind=meta-refresh&to=${h.canaryOrigin}`),
  );
  redirect("a JavaScript redirect to the canary ends safely", () =>
    safely(`${h.site.origin}/attack?kind=location&to=${h.canaryOrigin}`),
  );
  redirect("a JavaScript redirect to an allowed hop that redirects to the canary ends safely", () =>
    safely(`${h.site.origin}/attack?kind=location&to=${encodeURIComponent(via("/redirect", h.canaryOrigin))}`),
  );
  redirect("an iframe through a redirect to the canary renders without it", async () => {
    const html = `<iframe src="${via("/redirect", `${h.canaryOrigin}/`)}"></iframe>`;
    expectRenderedWithout(await outcome(h.render({ html, format: "html", wait_until: "requestsfinished" })), h.canary.secret);
  });
  redirect("a fetch through a redirect to the canary renders without it", async () => {
    const html = `<script>fetch(${JSON.stringify(via("/redirect?status=307", h.canaryOrigin))}).then((r) => r.text())
      .then((t) => document.body.append(t), () => document.body.append("refused"))</script>`;
    expectRenderedWithout(await outcome(h.render({ html, format: "html", wait_until: "requestsfinished" })), h.canary.secret);
  });

  // DNS rebinding. `rebind-*.test` answers 127.0.0.1 (allowed at the site's port) to its first
  // lookup and 127.0.0.2 afterwards, where the canary listens on the same port: a browser that
  // resolved again would land on the canary with the same origin.
  const rebindUrl = (name: string, path: string) => `http://${name}:${h.site.port}${path}`;

  rebinding("a page's same-origin requests after a rebind stay on the vetted address", async () => {
    const name = `rebind-${engine}-page.test`;
    const to = `http://${name}:${h.site.port}`;
    const before = h.site.requestsTo("/hit/fetch").length;
    const result = await outcome(
      h.render({
        url: rebindUrl(name, `/attack?kind=fetch&to=${encodeURIComponent(to)}`),
        format: "html",
        wait_until: "requestsfinished",
        wait_for: "body[data-done]",
        wait_for_state: "attached",
      }),
    );
    expectRenderedWithout(result, h.canary.secret);
    expect(h.lookups.get(name)).toBe(1);
    // The fetch was made, under the rebound name, and went where the name was vetted.
    const fetched = h.site.requestsTo("/hit/fetch").slice(before);
    expect(fetched.map((r) => r.host)).toEqual([`${name}:${h.site.port}`]);
  });

  rebinding("the same name, now rebound to the canary's address, is refused on the next render", async () => {
    const name = `rebind-${engine}-again.test`;
    expectRenderedWithout(await outcome(h.render({ url: rebindUrl(name, "/hit/first"), format: "html" })), h.canary.secret);
    expectRefused(await outcome(h.render({ url: rebindUrl(name, "/hit/second"), format: "html" })));
    expect(h.lookups.get(name)).toBe(2);
  });

  for (const kind of ["img", "iframe", "xhr", "websocket", "worker", "eventsource"]) {
    rebinding(`a page on a rebinding name reaching it again with ${kind} stays on the vetted address`, async () => {
      const name = `rebind-${engine}-${kind}.test`;
      const to = `http://${name}:${h.site.port}`;
      const before = h.site.requestsTo(`/hit/${kind}`).length;
      const url = `${to}/attack?kind=${kind}&to=${encodeURIComponent(to)}`;
      const result = await outcome(
        h.render({
          url,
          format: "html",
          wait_until: "requestsfinished",
          wait_for: "body[data-done]",
          wait_for_state: "attached",
        }),
      );
      expectRenderedWithout(result, h.canary.secret);
      expect(h.lookups.get(name)).toBe(1);
      const hits = h.site.requestsTo(`/hit/${kind}`).slice(before);
      expect(hits.length).toBeGreaterThan(0);
      for (const hit of hits) expect(hit.host).toBe(`${name}:${h.site.port}`);
    });
  }

  rebinding("a name with an internal first answer connects to the vetted answer only", async () => {
    const before = h.site.requestsTo("/hit/multi").length;
    expectRenderedWithout(
      await outcome(h.render({ url: `http://multi.test:${h.site.port}/hit/multi`, format: "html" })),
      h.canary.secret,
    );
    const hits = h.site.requestsTo("/hit/multi").slice(before);
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(hit.host).toBe(`multi.test:${h.site.port}`);
  });
});
