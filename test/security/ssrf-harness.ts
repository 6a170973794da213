import "./figures-meta.js";
import { readFile } from "node:fs/promises";
import type { RenderResult } from "@renderkit/core";
import { STATUS } from "@renderkit/server";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Canary, startCanary } from "../helpers/canary.js";
import { type EngineName, startRenderer, type TestRenderer } from "../helpers/setup.js";
import { type AttackSite, startAttackSite } from "./ssrf-site.js";

/**
 * Names the test's DNS knows. A real resolver answers `localhost.` too; `*.test` names stand for
 * an attacker's domain that points at an internal address. `rebind-*.test` names rebind: the first
 * lookup answers the allowed site's address (127.0.0.1, the stand-in for a public address), every
 * later one 127.0.0.2, where the canary listens on the site's port (DNS rebinding).
 */
const NAMES: Readonly<Record<string, string[]>> = {
  localhost: ["127.0.0.1", "::1"],
  "localhost.": ["127.0.0.1", "::1"],
  "internal.test": ["127.0.0.1"],
  "v6.internal.test": ["::1"],
  "mapped.internal.test": ["::ffff:127.0.0.1"],
  "metadata.test": ["169.254.169.254"],
  "private.test": ["10.0.0.5", "192.168.1.5"],
  // Several answers, the first one internal: only the vetted one may be used.
  "multi.test": ["127.0.0.2", "127.0.0.1"],
};

/** What the SSRF suite of one engine shares: the canary, the attacker's site, one renderer. */
export interface SsrfHarness {
  readonly engine: EngineName;
  readonly canary: Canary;
  readonly site: AttackSite;
  readonly render: (input: Record<string, unknown>) => Promise<RenderResult>;
  /** Lookups made per name (rebinding checks count them). */
  readonly lookups: Map<string, number>;
  /** `http://127.0.0.1:<canary port>` */
  readonly canaryOrigin: string;
}

/**
 * Registers hooks that start the canary, the attacker's site and one renderer on `engine` that may
 * reach the site only (`127.0.0.1:<site port>`), and stop them. The canary also listens on
 * 127.0.0.2 at the site's port, for the rebinding checks.
 */
export function useSsrf(engine: EngineName): SsrfHarness {
  let canary: Canary | undefined;
  let site: AttackSite | undefined;
  let started: TestRenderer | undefined;
  const lookups = new Map<string, number>();
  const lookup = async (host: string) => {
    const calls = (lookups.get(host) ?? 0) + 1;
    lookups.set(host, calls);
    const rebinding = /^rebind-[a-z0-9-]+\.test$/.test(host);
    const answers = rebinding ? [calls === 1 ? "127.0.0.1" : "127.0.0.2"] : NAMES[host];
    if (!answers) throw Object.assign(new Error(`${host} does not resolve in this test`), { code: "ENOTFOUND" });
    return answers.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
  beforeAll(async () => {
    canary = await startCanary();
    site = await startAttackSite();
    await canary.listenAlso("127.0.0.2", site.port);
    started = await startRenderer([`127.0.0.1:${site.port}`], { lookup }, engine);
  });
  afterAll(async () => {
    await started?.close();
    await Promise.all([site?.close(), canary?.close()]);
  });
  const need = <T>(value: T | undefined, what: string): T => {
    if (!value) throw new Error(`${what} is not started (use inside tests)`);
    return value;
  };
  return {
    engine,
    lookups,
    get canary() {
      return need(canary, "the canary");
    },
    get site() {
      return need(site, "the attacker's site");
    },
    get canaryOrigin() {
      return `http://127.0.0.1:${need(canary, "the canary").port}`;
    },
    render: (input) => need(started, "the renderer").renderer.render(input),
  };
}

/** How a render ended: refused with a code, or rendered (the text of an html render, if any). */
export type Outcome = { refused: true; code: string; message: string } | { refused: false; text: string; size: number };

/** Runs a render to its end; a thrown non-RenderError fails the test (it would be a 500). */
export async function outcome(render: Promise<RenderResult>): Promise<Outcome> {
  try {
    const result = await render;
    const text = result.format === "html" && result.path ? await readFile(result.path, "utf8") : "";
    return { refused: false, text, size: result.size };
  } catch (error) {
    expect(error, String(error)).toMatchObject({ name: "RenderError" });
    const { code, message } = error as { code: string; message: string };
    return { refused: true, code, message };
  }
}

/** Asserts a refusal whose code is a 4xx of the API (the caller's address is at fault, not the server). */
export function expectRefused(result: Outcome): void {
  expect(result.refused, `expected a refusal, but it rendered:\n${result.refused ? "" : result.text.slice(0, 300)}`).toBe(true);
  if (!result.refused) return;
  const status = STATUS[result.code as keyof typeof STATUS];
  expect(status, `${result.code}: ${result.message}`).toBeGreaterThanOrEqual(400);
  expect(status, `${result.code}: ${result.message}`).toBeLessThan(500);
}

/** Asserts a render that completed and shows nothing of the canary (`secret`). */
export function expectRenderedWithout(result: Outcome, secret: string): void {
  expect(result.refused, result.refused ? `${result.code}: ${result.message}` : "").toBe(false);
  if (!result.refused) expect(result.text).not.toContain(secret);
}

/** Either: refused with a 4xx code, or rendered without the canary's secret. */
export function expectSafe(result: Outcome, secret: string): void {
  if (result.refused) expectRefused(result);
  else expect(result.text).not.toContain(secret);
}

/**
 * `it` for one SSRF case: runs `body`, then records the case for the figures and asserts that the
 * canary accepted no connection, even when `body` failed (the connection count is the figure that
 * matters most). `body` may return why the engine cannot attempt the technique at all.
 */
export function ssrfCase(h: SsrfHarness, group: string): (name: string, body: () => Promise<unknown>) => void {
  return (name, body) =>
    it(name, async ({ task }) => {
      const before = h.canary.connections;
      let unavailable: string | undefined;
      try {
        const said = await body();
        unavailable = typeof said === "string" ? said : undefined;
      } finally {
        const seen = h.canary.connections - before;
        task.meta.ssrf = { engine: h.engine, group, canaryConnections: seen, ...(unavailable ? { unavailable } : {}) };
        const hits = h.canary.hits.slice(before).map((hit) => `${hit.listener} ${JSON.stringify(hit.firstBytes)}`);
        expect(seen, `the canary was reached:\n${hits.join("\n")}`).toBe(0);
      }
    });
}
