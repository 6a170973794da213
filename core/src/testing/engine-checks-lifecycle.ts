import { expect } from "vitest";
import type { PageSession } from "../contracts/page-session.js";
import type { EngineHarness } from "./engine-harness.js";

/** Sessions, counts and shutdown: what the leak checks rely on. */
export function lifecycleChecks(h: EngineHarness): void {
  h.check("counts open pages; closing a session is idempotent", async () => {
    expect(h.engine.stats().pages).toBe(0);
    const a = await h.open({ url: h.url("/") });
    const b = await h.open({ html: "<p>b</p>" });
    expect(h.engine.stats().pages).toBe(2);
    expect(h.engine.stats().browsers).toBeGreaterThanOrEqual(1);
    await a.close();
    await a.close();
    expect(h.engine.stats().pages).toBe(1);
    await Promise.all([b.close(), b.close()]);
    expect(h.engine.stats().pages).toBe(0);
  });

  h.check("runs sessions side by side, each with its own page", async () => {
    const sessions = await Promise.all(
      ["one", "two", "three"].map((title) => h.open({ html: `<title>${title}</title>` }, { width: 300 + title.length })),
    );
    try {
      const seen = await Promise.all(sessions.map((s) => s.evaluate("() => [document.title, innerWidth]")));
      expect(seen).toEqual([
        ["one", 303],
        ["two", 303],
        ["three", 305],
      ]);
    } finally {
      await Promise.all(sessions.map((s) => s.close()));
    }
    expect(h.engine.stats().pages).toBe(0);
  });

  h.check("leaves no page open after failed opens", async () => {
    const failures = [
      h.open({ url: `${h.forbidden.url}/` }),
      h.open({ url: h.url("/hang") }, { timeoutMs: 1_000 }),
      h.open({ url: "file:///etc/hostname" }),
    ];
    await Promise.allSettled(failures);
    expect(h.engine.stats().pages).toBe(0);
  });

  h.check("engine.close() closes open pages and browsers; open() launches lazily", async () => {
    const engine = await h.options.make();
    let session: PageSession | undefined;
    try {
      expect(engine.stats().browsers).toBe(0);
      session = await engine.open({ html: "<p>lazy</p>" }, h.settings(), new AbortController().signal);
      expect(engine.stats()).toMatchObject({ pages: 1 });
      expect(engine.stats().browsers).toBeGreaterThanOrEqual(1);
      expect(engine.stats().launches).toBeGreaterThanOrEqual(1);
    } finally {
      await engine.close();
    }
    expect(engine.stats()).toMatchObject({ pages: 0, browsers: 0 });
    await session?.close();
    expect(engine.stats().pages).toBe(0);
  });
}
