import { AddressPolicy, type PageSettings } from "@renderkit/core";
import { PageShelf, pageShelf, reuseKey } from "@renderkit/core/chromium";
import { makePageSettings } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";

const BASE: PageSettings = makePageSettings(new AddressPolicy(), { isolationKey: "project-a" });
const URL_TARGET = { url: "https://example.com/" };

describe("reuseKey (which renders may share a reset page)", () => {
  it("differs by project and by what the context fixes, not by what each render says again", () => {
    const key = reuseKey(URL_TARGET, BASE);
    expect(key).toBeDefined();
    expect(reuseKey(URL_TARGET, { ...BASE, isolationKey: "project-b" })).not.toBe(key);
    expect(reuseKey(URL_TARGET, { ...BASE, deviceScaleFactor: 2 })).not.toBe(key);
    expect(reuseKey(URL_TARGET, { ...BASE, userAgent: "bot" })).not.toBe(key);
    expect(reuseKey(URL_TARGET, { ...BASE, timezone: "Europe/Paris" })).not.toBe(key);
    expect(reuseKey(URL_TARGET, { ...BASE, javaScriptEnabled: false })).not.toBe(key);
    expect(reuseKey({ url: "https://other.example/" }, { ...BASE, width: 400, media: "print", waitUntil: "domloaded" })).toBe(
      key,
    );
    expect(reuseKey({ html: "<p>hi</p>" }, { ...BASE, cookies: [{ name: "a", value: "b", domain: "example.com" }] })).toBe(key);
  });

  it("is undefined when the render leaves hooks on the page that outlive it", () => {
    const hooked: Partial<PageSettings>[] = [
      { requestFilter: () => false },
      { initScripts: ["window.x = 1"] },
      { geolocation: { latitude: 1, longitude: 2, accuracy: 0 } },
      { authorization: { origin: "https://example.com", value: "Bearer t" } },
      { proxy: { host: "proxy.example", port: 8080 } },
      { recordResources: true },
      { headers: { "x-api-key": "k" } },
    ];
    for (const extra of hooked) expect(reuseKey(URL_TARGET, { ...BASE, ...extra }), JSON.stringify(extra)).toBeUndefined();
    // accept-language goes to every origin: no interception, the page may be reused.
    expect(reuseKey(URL_TARGET, { ...BASE, headers: { "accept-language": "fr" } })).toBeDefined();
  });
});

describe("PageShelf", () => {
  const owner = {};
  const shelfWith = (discarded: string[], maxIdle = 2, maxUses = 3) =>
    new PageShelf<string>({ maxIdle, maxUses, idleMs: 60_000, discard: async (entry) => void discarded.push(entry) });

  /** What a render does: takes a page (none: it opens one), then hands it back. */
  const render = async (shelf: PageShelf<string>, entry: string, reset: () => Promise<boolean>, key = "a", by = owner) => {
    await shelf.take(key, by);
    await shelf.put(key, by, entry, 1, reset);
  };

  it("gives a page back to its key and owner only, once", async () => {
    const shelf = shelfWith([]);
    await render(shelf, "page-1", async () => true);
    expect(await shelf.take("b", owner)).toBeUndefined();
    expect(await shelf.take("a", {})).toBeUndefined();
    expect(await shelf.take("a", owner)).toEqual({ entry: "page-1", uses: 1 });
    expect(await shelf.take("a", owner)).toBeUndefined();
  });

  it("closes a page whose reset failed or said no, one that served its uses, and the oldest over the idle limit", async () => {
    const discarded: string[] = [];
    const shelf = shelfWith(discarded);
    await render(shelf, "failed", async () => {
      throw new Error("gone");
    });
    await render(shelf, "refused", async () => false);
    await shelf.take("a", owner);
    await shelf.put("a", owner, "worn", 3, async () => true);
    // Three renders at once, each with its own page, handed back in turn.
    for (let i = 0; i < 3; i++) await shelf.take("a", owner);
    for (const entry of ["old", "mid", "new"]) await shelf.put("a", owner, entry, 1, async () => true);
    expect(discarded).toEqual(["failed", "refused", "worn", "old"]);
    expect(shelf.size()).toBe(2);
    expect((await shelf.take("a", owner))?.entry).toBe("new");
  });

  it("lets a render wait for a reset under way instead of opening a page", async () => {
    const shelf = shelfWith([]);
    let finish: (ok: boolean) => void = () => {};
    await shelf.take("a", owner);
    const putting = shelf.put("a", owner, "resetting", 1, () => new Promise<boolean>((resolve) => (finish = resolve)));
    const taking = shelf.take("a", owner);
    // Another key's render does not wait for this key's reset.
    expect(await shelf.take("b", owner)).toBeUndefined();
    finish(true);
    await putting;
    expect((await taking)?.entry).toBe("resetting");
  });

  it("lets a render open a page rather than wait while `overlap` says there is a core for it and each reset", async () => {
    let busy = 1;
    const seen: number[] = [];
    const shelf = new PageShelf<string>({
      maxIdle: 1,
      maxUses: 3,
      idleMs: 60_000,
      discard: async () => {},
      overlap: (resetting) => {
        seen.push(resetting);
        return busy + resetting <= 2;
      },
    });
    let finish: (ok: boolean) => void = () => {};
    const putting = shelf.put("a", owner, "resetting", 1, () => new Promise<boolean>((resolve) => (finish = resolve)));
    // One render and one reset on two cores: the render goes on without a page from the shelf.
    expect(await shelf.take("a", owner)).toBeUndefined();
    expect(seen).toEqual([1]);
    // Busier: it waits for the reset, and is handed that page.
    busy = 2;
    const taking = shelf.take("a", owner);
    finish(true);
    await putting;
    expect((await taking)?.entry).toBe("resetting");
  });

  it("keeps the page an overlap opened while the pages stay within one more than the idle limit", async () => {
    const discarded: string[] = [];
    let busy = 0;
    const shelf = new PageShelf<string>({
      maxIdle: 1,
      maxUses: 3,
      idleMs: 60_000,
      discard: async (entry) => void discarded.push(entry),
      keepOneMore: (resetting, idle) => busy + resetting + idle <= 2,
    });
    // The two pages of one key both wait (a pause between renders): both stay.
    for (const entry of ["first", "second"]) await shelf.put("a", owner, entry, 1, async () => true);
    expect(discarded).toEqual([]);
    expect(shelf.size()).toBe(2);
    // Never two more than the limit, and one more only while the pages at work leave room.
    await shelf.put("a", owner, "third", 1, async () => true);
    expect(discarded).toEqual(["first"]);
    busy = 1;
    await shelf.put("a", owner, "fourth", 1, async () => true);
    expect(discarded).toEqual(["first", "second", "third"]);
    expect(shelf.size()).toBe(1);
    expect((await shelf.take("a", owner))?.entry).toBe("fourth");
  });

  describe("a reset due while nothing else renders (deferReset)", () => {
    /** A shelf that defers every reset for up to `deferMs`, and the pages whose reset started. */
    const deferring = (deferMs: number, defer: () => boolean = () => true) => {
      const started: string[] = [];
      const discarded: string[] = [];
      const shelf = new PageShelf<string>({
        maxIdle: 2,
        maxUses: 3,
        idleMs: 60_000,
        discard: async (entry) => void discarded.push(entry),
        deferReset: defer,
        deferMs,
      });
      const reset = (entry: string) => async () => {
        started.push(entry);
        return true;
      };
      return { shelf, started, discarded, reset };
    };
    /** Lets queued microtasks and immediates run (the reset's own start is a microtask on). */
    const settle = () => new Promise((resolve) => setImmediate(resolve));

    it("waits until the engine's next page has loaded", async () => {
      const { shelf, started, reset } = deferring(60_000);
      const putting = shelf.put("a", owner, "page-1", 1, reset("page-1"));
      await settle();
      expect(started).toEqual([]);
      shelf.loaded();
      await putting;
      expect(started).toEqual(["page-1"]);
      expect((await shelf.take("a", owner))?.entry).toBe("page-1");
    });

    it("starts at once for a render of its key that waits for it", async () => {
      const { shelf, started, reset } = deferring(60_000);
      const putting = shelf.put("a", owner, "page-1", 1, reset("page-1"));
      // Asked for before and after the deferral is decided: handed the page either way.
      expect((await shelf.take("a", owner))?.entry).toBe("page-1");
      await putting;
      const again = shelf.put("a", owner, "page-1", 2, reset("page-1 again"));
      await settle();
      expect((await shelf.take("a", owner))?.entry).toBe("page-1");
      await again;
      expect(started).toEqual(["page-1", "page-1 again"]);
    });

    it("starts by itself after deferMs, and at once when deferReset says no", async () => {
      const late = deferring(1);
      await late.shelf.put("a", owner, "page-1", 1, late.reset("page-1"));
      expect(late.started).toEqual(["page-1"]);
      const busy = deferring(60_000, () => false);
      await busy.shelf.put("a", owner, "page-2", 1, busy.reset("page-2"));
      expect(busy.started).toEqual(["page-2"]);
    });

    it("does not hold close() up: a deferred reset starts, and its page is closed", async () => {
      const { shelf, started, discarded, reset } = deferring(60_000);
      const putting = shelf.put("a", owner, "page-1", 1, reset("page-1"));
      await settle();
      await Promise.all([shelf.close(), putting]);
      expect(started).toEqual(["page-1"]);
      expect(discarded).toEqual(["page-1"]);
    });
  });

  it("drops a retired browser's pages and closes everything on close, a late reset included", async () => {
    const discarded: string[] = [];
    const shelf = shelfWith(discarded, 4);
    const retired = {};
    await render(shelf, "on-retired", async () => true, "a", retired);
    await render(shelf, "kept", async () => true);
    await shelf.drop(retired);
    expect(discarded).toEqual(["on-retired"]);
    let finish: (ok: boolean) => void = () => {};
    await shelf.take("b", owner);
    const late = shelf.put("b", owner, "late", 1, () => new Promise<boolean>((resolve) => (finish = resolve)));
    const closing = shelf.close();
    finish(true);
    await Promise.all([late, closing]);
    expect(discarded.sort()).toEqual(["kept", "late", "on-retired"]);
    expect(shelf.size()).toBe(0);
  });

  it("is off with reusePages 0 or false, and keeps `concurrency` pages by default", () => {
    const discard = async () => {};
    const busy = () => 0;
    expect(pageShelf({ reusePages: false }, discard, busy)).toBeUndefined();
    expect(pageShelf({ reusePages: 0 }, discard, busy)).toBeUndefined();
    expect(pageShelf({ concurrency: 3 }, discard, busy)).toBeInstanceOf(PageShelf);
  });
});
