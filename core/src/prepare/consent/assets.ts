import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/**
 * Files of `@duckduckgo/autoconsent` (its Playwright content script and bundled rules), read once
 * on first use. Its `exports` map exposes neither `dist/` nor `package.json`, so the package
 * directory is found from its main entry.
 */

const PACKAGE = "@duckduckgo/autoconsent";

let packageDir: string | undefined;

function autoconsentDir(): string {
  if (packageDir) return packageDir;
  const require = createRequire(import.meta.url);
  let dir = dirname(require.resolve(PACKAGE));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string };
      if (manifest.name === PACKAGE) break;
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the directory of ${PACKAGE}`);
    dir = parent;
  }
  packageDir = dir;
  return dir;
}

function readPackageFile(path: string): string {
  return readFileSync(join(autoconsentDir(), path), "utf8");
}

let contentScript: string | undefined;

/** `dist/autoconsent.playwright.js`: the content script that talks through `autoconsentSendMessage`. */
export function autoconsentContentScript(): string {
  contentScript ??= readPackageFile("dist/autoconsent.playwright.js").replace(/\n\/\/# sourceMappingURL=.*\s*$/, "\n");
  return contentScript;
}

/** A rule step as the library runs it (only what this module looks into is typed). */
type Step = Record<string, unknown>;

/** One declarative rule of `rules/rules.json`. */
export interface FullRule {
  name: string;
  runContext?: { main?: boolean; frame?: boolean; urlPattern?: string };
  prehideSelectors?: string[];
  intermediate?: boolean;
  cosmetic?: boolean;
  minimumRuleStepVersion?: number;
  detectCmp: Step[];
  detectPopup: Step[];
  optIn?: Step[];
  optOut?: Step[];
}

/**
 * One rule of `rules/compact-rules.json`: [minimum step version, name, cosmetic, url pattern,
 * main/frame code, prehide selectors, detectCmp, detectPopup, optOut, test, extra].
 */
export type CompactRule = [number, string, number, string, number, number[], Step[], Step[], Step[], Step[], object];

/** The compact rule set without its index (strings are shared by index). */
export interface CompactRules {
  v: number;
  s: string[];
  r: CompactRule[];
}

let optOutRules: CompactRules | undefined;
let optInRules: FullRule[] | undefined;

/**
 * Rules to decline with: the compact set (it keeps only opt-out steps), without the self-test
 * steps nothing here runs.
 */
export function optOutRuleSet(): CompactRules {
  if (!optOutRules) {
    const compact = JSON.parse(readPackageFile("rules/compact-rules.json")) as CompactRules;
    optOutRules = {
      v: compact.v,
      s: compact.s,
      r: compact.r.map((rule) => rule.map((part, i) => (i === 9 ? [] : part)) as CompactRule),
    };
  }
  return optOutRules;
}

/**
 * Rules to accept with: the full set (the compact one has no opt-in steps), reduced to the
 * rules that have opt-in steps (an empty list would count as accepted without a click) and to
 * the fields the library reads.
 */
export function optInRuleSet(): FullRule[] {
  if (!optInRules) {
    const { autoconsent } = JSON.parse(readPackageFile("rules/rules.json")) as { autoconsent: FullRule[] };
    optInRules = autoconsent
      .filter((rule) => (rule.optIn?.length ?? 0) > 0)
      .map((rule) => ({
        name: rule.name,
        ...(rule.runContext ? { runContext: rule.runContext } : {}),
        ...(rule.prehideSelectors?.length ? { prehideSelectors: rule.prehideSelectors } : {}),
        ...(rule.intermediate ? { intermediate: true } : {}),
        ...(rule.cosmetic ? { cosmetic: true } : {}),
        ...(rule.minimumRuleStepVersion ? { minimumRuleStepVersion: rule.minimumRuleStepVersion } : {}),
        detectCmp: rule.detectCmp,
        detectPopup: rule.detectPopup,
        optIn: rule.optIn,
      }));
  }
  return optInRules;
}
