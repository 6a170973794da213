import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserEngine, type EngineName, forEachEngine, startRenderer, type TestRenderer } from "../helpers/setup.js";

/**
 * Renders may reuse a reset page of an earlier render of their project (issue 15). These checks
 * try to see, from a later render, everything an earlier one could leave behind: cookies (set by
 * the server, by script and by the `cookies` option), local and session storage, IndexedDB, Cache
 * Storage, a service worker, the HTTP cache, permissions, the tab's history and `window.name`,
 * and what a timer, a worker and a `pagehide` handler of the earlier page write after it rendered.
 * The later render must see what a brand-new page sees, whether it reused the page (same project,
 * which the engine's counter proves happened) or not (another project: never the same context).
 */

/** What `/read` reports about the browser state its page can see. */
interface SeenState {
  cookie: string;
  local: string | null;
  session: string | null;
  databases: string[];
  caches: string[];
  workers: number;
  history: number;
  name: string;
  /** What the write page's timers, worker and pagehide handler write after it rendered. */
  late: string | null;
  notifications: string;
  geolocation: string;
}

const WRITE_PAGE = `<!doctype html><body><script>
(async () => {
  document.cookie = "js_cookie=1; max-age=3600";
  localStorage.setItem("left", "behind");
  sessionStorage.setItem("left", "behind");
  await new Promise((done) => {
    const open = indexedDB.open("left-behind", 1);
    open.onupgradeneeded = () => open.result.createObjectStore("x");
    open.onsuccess = () => { open.result.close(); done(); };
    open.onerror = () => done();
  });
  await (await caches.open("left-behind")).put("/cached-item", new Response("kept"));
  await navigator.serviceWorker.register("/sw.js").catch(() => undefined);
  await fetch("/cached.js");
  await Notification.requestPermission().catch(() => undefined);
  history.pushState({}, "", "?step=2");
  history.pushState({}, "", "?step=3");
  window.name = "left-behind";
  // Writers that outlive the render: a timer, a worker, and the handler of the page going away.
  const late = () => {
    localStorage.setItem("late", "written");
    document.cookie = "late_cookie=1; max-age=3600";
  };
  setInterval(late, 1);
  addEventListener("pagehide", late);
  new Worker("/late-worker.js");
  document.body.insertAdjacentHTML("beforeend", "<p id=done>done</p>");
})();
</script></body>`;

/** An html render (its document is about:blank) whose timer and pagehide handler write window.name. */
const HTML_WRITER = `<script>window.name = "left-behind";
setInterval(() => { window.name = "late"; }, 1);
addEventListener("pagehide", () => { window.name = "late"; });</script><p id=done>done</p>`;

/** Writes an IndexedDB database over and over, for as long as its page lives. */
const LATE_WORKER = `setInterval(() => {
  const open = indexedDB.open("late-worker", 1);
  open.onupgradeneeded = () => open.result.createObjectStore("x");
  open.onsuccess = () => open.result.close();
}, 1);`;

const READ_PAGE = `<!doctype html><body><script>
(async () => {
  const permission = async (name) => (await navigator.permissions.query({ name }).catch(() => ({ state: "error" }))).state;
  const state = {
    cookie: document.cookie,
    local: localStorage.getItem("left"),
    session: sessionStorage.getItem("left"),
    databases: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
    workers: (await navigator.serviceWorker.getRegistrations()).length,
    history: history.length,
    name: window.name,
    late: localStorage.getItem("late"),
    notifications: await permission("notifications"),
    geolocation: await permission("geolocation"),
  };
  await fetch("/cached.js");
  await fetch("/report", { method: "POST", body: JSON.stringify(state) });
  document.body.insertAdjacentHTML("beforeend", "<p id=done>done</p>");
})();
</script></body>`;

/** Reports the media the page is shown in (what `media` emulates). */
const MEDIA_PAGE = `<!doctype html><body><script>
fetch("/report-media", { method: "POST", body: matchMedia("print").matches ? "print" : "screen" })
  .then(() => document.body.insertAdjacentHTML("beforeend", "<p id=done>done</p>"));
</script></body>`;

const SITE: Record<string, { type: string; body: string; headers?: Record<string, string> }> = {
  "/write": { type: "text/html", body: WRITE_PAGE, headers: { "set-cookie": "server_cookie=1; Path=/; Max-Age=3600" } },
  "/read": { type: "text/html", body: READ_PAGE },
  "/sw.js": { type: "text/javascript", body: "self.addEventListener('fetch', () => {});" },
  "/cached.js": { type: "text/javascript", body: "1", headers: { "cache-control": "max-age=3600" } },
  "/late-worker.js": { type: "text/javascript", body: LATE_WORKER },
  "/media": { type: "text/html", body: MEDIA_PAGE },
};

/** A site on loopback that records the state reports, the Cookie headers and the cacheable fetches. */
class StateSite {
  reports: SeenState[] = [];
  cookieHeaders: (string | undefined)[] = [];
  cachedFetches = 0;
  /** Per `/media` render: the media its page reported. */
  media: { media: string }[] = [];
  /** What `/report-url` was sent: the address of the document a render ran in. */
  urls: string[] = [];
  private server: Server | undefined;

  /** `http://127.0.0.1:<port>`, once started. */
  origin = "";

  async start(): Promise<string> {
    this.server = createServer((req, res) => this.answer(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    const host = `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.origin = `http://${host}`;
    return host;
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/media") this.media.push({ media: "" });
    if (path === "/report-media") {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      req.on("end", () => {
        const last = this.media.at(-1);
        if (last) last.media = body;
        res.writeHead(204).end();
      });
      return;
    }
    if (path === "/report-url") {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      req.on("end", () => {
        this.urls.push(body);
        res.writeHead(204).end();
      });
      return;
    }
    if (path === "/report") {
      let body = "";
      req.on("data", (chunk: Buffer) => {
        body += chunk;
      });
      req.on("end", () => {
        this.reports.push(JSON.parse(body) as SeenState);
        res.writeHead(204).end();
      });
      return;
    }
    if (path === "/read") this.cookieHeaders.push(req.headers.cookie);
    if (path === "/cached.js") this.cachedFetches++;
    const file = SITE[path];
    if (file) res.writeHead(200, { "content-type": file.type, ...file.headers }).end(file.body);
    else res.writeHead(404).end();
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * A `StateSite` and a renderer on `engine` that may reach it, for the calling `describe`: one page
 * at a time, so a later render of the same project is handed the earlier one's page.
 */
function useStateRenderer(engine: EngineName) {
  const site = new StateSite();
  let started: TestRenderer | undefined;
  beforeAll(async () => {
    started = await startRenderer([await site.start()], { concurrency: 1 }, engine);
  });
  afterAll(async () => {
    await started?.close();
    await site.close();
  });
  const renderer = () => {
    if (!started) throw new Error("the renderer is not started (use inside tests)");
    return started.renderer;
  };
  return { site, renderer, stats: () => (started ? browserEngine(started.renderer).stats() : undefined) };
}

forEachEngine((engine) => {
  describe("a reused page shows nothing of earlier renders", () => {
    const { site, renderer, stats } = useStateRenderer(engine);
    const SMALL = { width: 320, height: 200, wait_for: "#done", format: "png" };

    const render = (path: string, projectId: string, extra: Record<string, unknown> = {}) =>
      renderer().render({ url: `${site.origin}${path}`, ...SMALL, ...extra }, { job: { projectId } });
    const reused = () => stats()?.reusedPages ?? 0;
    const idle = () => stats()?.idlePages ?? 0;

    /** Reads the state from a page of `projectId`: what it reports, the Cookie header, and whether the cacheable script was fetched again. */
    async function read(projectId: string): Promise<{ seen: SeenState; cookie: string | undefined; refetched: boolean }> {
      const fetches = site.cachedFetches;
      await render("/read", projectId);
      const seen = site.reports.at(-1);
      if (!seen) throw new Error("the read page reported nothing");
      return { seen, cookie: site.cookieHeaders.at(-1), refetched: site.cachedFetches > fetches };
    }

    it("in the same project: the page is reused, and reset", async () => {
      const fresh = await read("project-a");
      const before = reused();
      // Each render waits until the page before it is reset and idle, so it is handed that page.
      await expect.poll(idle).toBe(1);
      await render("/write", "project-a", { cookies: ["option_cookie=1"] });
      await expect.poll(idle).toBe(1);
      const after = await read("project-a");
      // The write and the read were both handed a reset page: reuse really happened.
      expect(reused() - before).toBe(2);
      expect(after.seen).toEqual(fresh.seen);
      expect(after.cookie).toBeUndefined();
      expect(after.refetched).toBe(true);
      // An html render's document is about:blank too: its writers must be gone all the same.
      await expect.poll(idle).toBe(1);
      await renderer().render({ html: HTML_WRITER, ...SMALL }, { job: { projectId: "project-a" } });
      await expect.poll(idle).toBe(1);
      const afterHtml = await read("project-a");
      expect(reused() - before).toBe(4);
      expect(afterHtml.seen).toEqual(fresh.seen);
    });

    it("across projects: nothing of project a reaches project b", async () => {
      const fresh = await read("project-b");
      await render("/write", "project-a");
      const after = await read("project-b");
      // The reset's empty document keeps the address of the page's last render (page-reset.ts), and a
      // navigation to that same address replaces its history entry: one entry where a new page has two.
      expect(after.seen).toEqual({ ...fresh.seen, history: 1 });
      expect(after.cookie).toBeUndefined();
      expect(after.refetched).toBe(true);
      // A project's first render is never handed another project's page, however many are idle.
      const before = reused();
      await read("project-d");
      expect(reused()).toBe(before);
    });

    it("a render that may not reuse pages (geolocation granted) leaves no permission behind", async () => {
      const fresh = await read("project-c");
      await render("/write", "project-c", { latitude: 48.85, longitude: 2.35 });
      const after = await read("project-c");
      // Handed the page of the first read, at the same address: one history entry (see above).
      expect(after.seen).toEqual({ ...fresh.seen, history: 1 });
      expect(after.seen.geolocation).not.toBe("granted");
    });
  });
  describe("a reused page is given each render's own settings", () => {
    const { site, renderer, stats } = useStateRenderer(engine);

    it("the emulated media is each render's own, not the last render's", async () => {
      // A pdf is printed in the print media unless `media` says otherwise; a png is shown on screen.
      const asks = [{ format: "pdf" }, { format: "png" }, { format: "pdf", media: "screen" }, { format: "pdf" }];
      for (const extra of asks) {
        // Each render waits until the page before it is reset and idle, so it is handed that page.
        await expect.poll(() => stats()?.idlePages ?? 0).toBe(site.media.length > 0 ? 1 : 0);
        await renderer().render(
          { url: `${site.origin}/media`, width: 320, height: 200, wait_for: "#done", ...extra },
          { job: { projectId: "project-e" } },
        );
      }
      // The first render opens the page; the three after it are handed that page.
      expect(stats()?.reusedPages).toBe(asks.length - 1);
      expect(site.media.map((m) => m.media)).toEqual(["print", "screen", "screen", "print"]);
    });
  });
  describe("a render of the address a reused page's last render had", () => {
    const { site, renderer, stats } = useStateRenderer(engine);

    it("loads the page again when it is a fragment of that address", async () => {
      const project = { job: { projectId: "project-g" } };
      const ask = { url: `${site.origin}/media#top`, width: 320, height: 200, wait_for: "#done" };
      await renderer().render(ask, project);
      const before = stats()?.reusedPages ?? 0;
      await expect.poll(() => stats()?.idlePages ?? 0).toBe(1);
      // From the reset's document at /media#top, /media#top would be a same-document navigation:
      // the render would wait for #done in an empty document.
      await renderer().render(ask, project);
      expect(stats()?.reusedPages).toBe(before + 1);
      expect(site.media).toHaveLength(2);
    });
  });
  describe("an html render on a page an address render left", () => {
    const { site, renderer, stats } = useStateRenderer(engine);

    it("is written into about:blank, as on a new page, not at that address", async () => {
      const project = { job: { projectId: "project-f" } };
      const html = `<script>fetch("${site.origin}/report-url", { method: "POST", body: location.href + " " + document.baseURI })
        .catch(() => undefined).then(() => document.body.insertAdjacentHTML("beforeend", "<p id=done>done</p>"));</script>`;
      await renderer().render({ url: `${site.origin}/media`, width: 320, height: 200, wait_for: "#done" }, project);
      const before = stats()?.reusedPages ?? 0;
      await expect.poll(() => stats()?.idlePages ?? 0).toBe(1);
      await renderer().render({ html, width: 320, height: 200, wait_for: "#done", format: "png" }, project);
      // The html render was handed the address render's page, and ran where a new page's html runs.
      expect(stats()?.reusedPages).toBe(before + 1);
      expect(site.urls).toEqual(["about:blank about:blank"]);
    });
  });
});
