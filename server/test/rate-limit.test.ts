import { describe, expect, it } from "vitest";
import type { Project } from "../dist/config/types.js";
import { RateLimits } from "../dist/state/rate-limit.js";

function project(id: string, requests: number, perSeconds: number): Project {
  return {
    id,
    name: id,
    secretKeyHash: "0".repeat(64),
    publishableKey: `pk_${id}_publishable`,
    webhookSecret: "whsec_0123456789abcdef",
    enabled: true,
    rateLimit: { requests, perSeconds },
    allowTokenless: false,
  };
}

describe("RateLimits", () => {
  it("allows the limit, then refuses with Retry-After", async () => {
    const limits = new RateLimits();
    const p = project("p", 3, 60);
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await limits.consume(p));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    for (const r of results) {
      expect(r.limit).toBe(3);
      expect(r.resetSeconds).toBeGreaterThan(0);
      expect(r.resetSeconds).toBeLessThanOrEqual(60);
      expect(Number.isInteger(r.resetSeconds)).toBe(true);
    }

    const ok = limits.headers(results[0]!);
    expect(ok).toEqual({
      "X-RateLimit-Limit": "3",
      "X-RateLimit-Remaining": "2",
      "X-RateLimit-Reset": String(results[0]!.resetSeconds),
    });
    const refused = limits.headers(results[3]!);
    expect(refused["X-RateLimit-Remaining"]).toBe("0");
    expect(Number(refused["Retry-After"])).toBeGreaterThan(0);
    expect(Number(refused["Retry-After"])).toBeLessThanOrEqual(60);
    expect(refused["X-RateLimit-Reset"]).toMatch(/^\d+$/);
  });

  it("counts projects independently, also when they share the same limits", async () => {
    const limits = new RateLimits();
    const a = project("a", 2, 60);
    const b = project("b", 2, 60);
    const c = project("c", 5, 60);
    await limits.consume(a);
    await limits.consume(a);
    expect((await limits.consume(a)).allowed).toBe(false);
    expect(await limits.consume(b)).toMatchObject({ allowed: true, remaining: 1 });
    expect(await limits.consume(c)).toMatchObject({ allowed: true, remaining: 4, limit: 5 });
  });

  it("opens a new window after perSeconds", async () => {
    const limits = new RateLimits();
    const p = project("short", 1, 1);
    expect((await limits.consume(p)).allowed).toBe(true);
    expect((await limits.consume(p)).allowed).toBe(false);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await limits.consume(p)).allowed).toBe(true);
  });

  it("separate RateLimits instances do not share counts (two servers in one process)", async () => {
    const p = project("shared", 1, 60);
    expect((await new RateLimits().consume(p)).allowed).toBe(true);
    expect((await new RateLimits().consume(p)).allowed).toBe(true);
  });
});
