import { expect } from "vitest";
import { ATTACK_KINDS } from "./attack-pages.js";
import { expectRenderedWithout, expectSafe, type Outcome, outcome, type SsrfHarness, ssrfCase } from "./ssrf-harness.js";

/**
 * Registers one SSRF case per attack kind in `kinds` (see `attack-pages.ts`): a page the policy
 * allows (the attacker's site) reaches out to the internal canary. The render completes (the page
 * itself is allowed), shows nothing the canary would answer, and the canary sees no connection.
 * Each technique first runs against the allowed site (the control): the site must see its request,
 * or the case would prove nothing, unless the browser lacks the technique (then the page says so).
 */
export function inPageCases(h: SsrfHarness, kinds: readonly string[]): void {
  const inPage = ssrfCase(h, "in-page");
  for (const kind of kinds) {
    const spec = ATTACK_KINDS[kind];
    if (!spec) throw new Error(`no attack kind ${kind}`);
    inPage(`${kind}: reaches the allowed site, never the canary`, async () => {
      const control = await renderAttack(h, kind, h.site.origin);
      if (!spec.navigates) finished(control);
      const unavailable = control.refused ? undefined : /data-unavailable="([^"]*)"/.exec(control.text)?.[1];
      const hit = spec.hit;
      if (hit && !unavailable) await expect.poll(() => h.site.requestsTo(hit).length, { timeout: 10_000 }).toBeGreaterThan(0);
      const result = await renderAttack(h, kind, h.canaryOrigin);
      if (spec.navigates) expectSafe(result, h.canary.secret);
      else {
        expectRenderedWithout(result, h.canary.secret);
        finished(result);
      }
      return unavailable;
    });
  }
}

/**
 * Renders the attack page of `kind` aimed at `base` as html, waiting for the page's own `done()`
 * (a page that navigates away is waited for by its requests instead).
 */
export function renderAttack(h: SsrfHarness, kind: string, base: string): Promise<Outcome> {
  const spec = ATTACK_KINDS[kind];
  const waits = spec?.navigates ? {} : { wait_for: "body[data-done]", wait_for_state: "attached", wait_timeout: 20_000 };
  const url = `${h.site.origin}/attack?kind=${kind}&to=${encodeURIComponent(base)}`;
  const waitUntil = spec?.waitUntil ?? "loaded";
  return outcome(h.render({ url, format: "html", wait_until: waitUntil, timeout: 30_000, ...waits }));
}

/** The page ran its attempt to the end (a `wait_for` that runs out does not fail a render). */
function finished(result: Outcome): void {
  expect(result.refused ? "" : result.text).toContain('data-done="1"');
}
