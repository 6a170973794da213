import type { Logger } from "../../contracts/logger.js";
import type { PageSession } from "../../contracts/page-session.js";
import type { RenderOptions } from "../../contracts/render-options.js";
import { RenderError } from "../../errors.js";
import { abortReason } from "../../util/timeout.js";
import { agentScript } from "./agent.js";
import { autoconsentContentScript, optInRuleSet, optOutRuleSet } from "./assets.js";
import { genericFallback } from "./fallback.js";
import { type AutoconsentOutcome, type AutoconsentResult, awaitAutoconsent } from "./settle.js";

/** `hide`: decline and close consent interfaces; `accept`: click accept. */
export type ConsentMode = "hide" | "accept";

/** The consent handling a request asks for (`click_accept` wins over `hide_cookie_banners`). */
export function consentMode(options: RenderOptions): ConsentMode | undefined {
  if (options.clickAccept) return "accept";
  if (options.hideCookieBanners) return "hide";
  return undefined;
}

/**
 * autoconsent's configuration. Detection passes are few (the library retries every 500 ms and,
 * after the second pass, only when the DOM changed), so a page without a known banner settles
 * quickly; eval snippets run inline (`isMainWorld`), so no code is evaluated from strings and a
 * strict CSP cannot block them; heuristic clicking stays off (tier 2 would accept in hide mode).
 */
function autoconsentConfig(mode: ConsentMode): Record<string, unknown> {
  return {
    enabled: true,
    autoAction: mode === "accept" ? "optIn" : "optOut",
    disabledCmps: [],
    enablePrehide: true,
    prehideTimeout: 2_000,
    enableCosmeticRules: true,
    enableGeneratedRules: true,
    enableHeuristicDetection: false,
    heuristicMode: "off",
    enablePopupMutationObserver: false,
    detectRetries: 4,
    isMainWorld: true,
    visualTest: false,
    performanceLoggingEnabled: false,
    logs: {
      lifecycle: false,
      rulesteps: false,
      detectionsteps: false,
      evals: false,
      errors: false,
      messages: false,
      waits: false,
    },
  };
}

const scripts = new Map<ConsentMode, string>();

/**
 * Script run in every frame before the page's own: autoconsent's content script with an
 * in-page message handler that answers its `init` with the configuration and the bundled rules
 * (filtered per frame by URL and frame type) and records its progress. Built once per mode.
 */
export function consentInitScript(mode: ConsentMode): string {
  let script = scripts.get(mode);
  if (!script) {
    const config = autoconsentConfig(mode);
    script =
      mode === "accept"
        ? agentScript({ format: "full", config }, optInRuleSet(), autoconsentContentScript())
        : agentScript({ format: "compact", config }, optOutRuleSet(), autoconsentContentScript());
    scripts.set(mode, script);
  }
  return script;
}

export interface ConsentReport {
  /** Name of the autoconsent rule that handled (or found) a banner. */
  cmp?: string;
  /** How the wait for autoconsent ended (`nothing`: no frame found a banner it knows). */
  autoconsent: AutoconsentOutcome;
  /** Progress reads the wait took. */
  polls: number;
  /** Banners the generic fallback hid or accepted. */
  fallback: number;
}

/**
 * After load: waits (bounded) for autoconsent, then runs the generic fallback in the main frame.
 * With `pageScripts: false` (`disable_js`) autoconsent cannot run (no init script, no timers), so
 * only the fallback does.
 */
export async function settleConsent(
  session: PageSession,
  mode: ConsentMode,
  context: { budgetMs: number; signal: AbortSignal; logger: Logger; pageScripts?: boolean; renderId?: string },
): Promise<ConsentReport> {
  const waited: AutoconsentResult =
    context.pageScripts === false
      ? { outcome: "unavailable", polls: 0 }
      : await awaitAutoconsent(session, () => consentInitScript(mode), context.budgetMs, context.signal);
  const report: ConsentReport = {
    ...(waited.cmp ? { cmp: waited.cmp } : {}),
    autoconsent: waited.outcome,
    polls: waited.polls,
    fallback: 0,
  };
  if (context.signal.aborted) throw abortReason(context.signal);
  try {
    report.fallback = await genericFallback(session, mode);
  } catch (error) {
    if (error instanceof RenderError) throw error;
    context.logger.debug("consent fallback failed", {
      renderId: context.renderId,
      error: error instanceof Error ? error.message.split("\n")[0] : String(error),
    });
  }
  return report;
}
