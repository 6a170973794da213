import "./figures-meta.js";
import { relative } from "node:path";
import type { Reporter, TestCase, TestModule } from "vitest/node";

/**
 * The findings of issue 14's attack review, each with regression tests in a `security-*` file, and
 * the subject a test's name mentions when it cites no finding number.
 */
const FINDINGS: Readonly<Record<number, { title: string; subject: RegExp }>> = {
  1: { title: "live script on the service's own origin (render links)", subject: /nosniff|Content-Security-Policy|\bCSP\b/i },
  2: {
    title: "a link token does not cover the format; links never expire; SHA-1",
    subject: /token covers|replay|SHA-1|expires/i,
  },
  3: { title: "wrong link tokens are never rate limited", subject: /(bad|wrong) tokens/i },
  4: { title: "the per-project queue share can be overrun by a race", subject: /queue share/i },
  5: { title: "500 after a render was accepted (X-Ignored-Options)", subject: /X-Ignored-Options|unknown option names/i },
  6: { title: "5xx where the caller is at fault", subject: /view-source|too many redirects|16000|growing|\b5xx\b/i },
  7: { title: "information leaks (/ready, name resolution)", subject: /\/ready|without credentials|does not resolve/i },
  8: {
    title: "weaker than it should be (sandbox, headers, proxy bypass, block_urls, egress caps)",
    subject: /no-sandbox|unprivileged|authorization|proxy bypass|block_urls|egress/i,
  },
};

/** The findings of issue 30's tenancy review: their tests' names cite `tenancy finding N`. */
const TENANCY: Readonly<Record<number, string>> = {
  1: "cross-project writes and reads through the S3 options",
  2: "side files worked out from the public renderUrl",
  3: "a disabled project's queued renders still run",
  4: "internal addresses in errors",
  5: "caller secrets at rest",
  6: "a caller-chosen s3_endpoint receives the project's signed requests",
  7: "a caller-caused storage failure is a 500 after rendering",
  8: "smaller points (tokenless webhook_url, nosniff, a repeated download)",
};

/** The tenancy findings a test cites (`tenancy finding 3`, `tenancy findings 2 and 8`), and its mode (`[file]`, `[redis]`). */
function tenancyOf(name: string): { findings: number[]; mode: string } | undefined {
  const match = name.match(/\btenancy findings?\s*#?\s*(\d)((?:\s*(?:,|and|&)\s*#?\d)*)/i);
  if (!match) return undefined;
  const findings = [...`${match[1]}${match[2] ?? ""}`.matchAll(/\d/g)].map((d) => Number(d[0])).filter((n) => TENANCY[n]);
  const mode = name.match(/\[(file|redis)\]/)?.[1] ?? "file";
  return { findings, mode };
}

/**
 * The findings a regression test covers: those its full name cites (`finding 3`, `findings 2 and
 * 3`), else those whose subject it names.
 */
function findingsOf(name: string): number[] {
  const cited = new Set<number>();
  for (const match of name.matchAll(/\bfindings?\s*#?\s*(\d)((?:\s*(?:,|and|&)\s*#?\d)*)/gi)) {
    for (const digit of `${match[1]}${match[2] ?? ""}`.match(/\d/g) ?? []) if (FINDINGS[Number(digit)]) cited.add(Number(digit));
  }
  if (cited.size > 0) return [...cited];
  return Object.entries(FINDINGS)
    .filter(([, f]) => f.subject.test(name))
    .map(([n]) => Number(n));
}

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

const tally = (): Tally => ({ passed: 0, failed: 0, skipped: 0 });

function count(t: Tally, test: TestCase): void {
  const state = test.result().state;
  if (state === "passed") t.passed++;
  else if (state === "failed") t.failed++;
  else t.skipped++;
}

const row = (cells: (string | number)[], widths: number[]) =>
  cells.map((c, i) => (typeof c === "number" ? String(c).padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join("  ");

/**
 * Prints the security suite's figures after the run (`npm run test:security`): SSRF cases per
 * engine and group with the connections the internal canary saw (each case records them in
 * `task.meta.ssrf`), fuzzing runs, and the regression tests of the findings, per file and per
 * finding when the test names cite them. It reports what ran; the pass/fail verdict is vitest's.
 */
export default class SecurityFigures implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const ssrf = new Map<string, Tally & { canary: number; groups: Map<string, number>; lacking: string[] }>();
    const files = new Map<string, Tally>();
    const findings = new Map<number, Tally>();
    const fuzz = new Map<string, Tally & { runs: number }>();
    const tenancy = new Map<string, Tally>();
    for (const module of modules) {
      const file = relative(process.cwd(), module.moduleId);
      for (const test of module.children.allTests()) {
        const meta = test.meta();
        if (meta.ssrf) {
          const e = ssrf.get(meta.ssrf.engine) ?? {
            ...tally(),
            canary: 0,
            groups: new Map<string, number>(),
            lacking: [] as string[],
          };
          ssrf.set(meta.ssrf.engine, e);
          count(e, test);
          e.canary += meta.ssrf.canaryConnections;
          e.groups.set(meta.ssrf.group, (e.groups.get(meta.ssrf.group) ?? 0) + 1);
          if (meta.ssrf.unavailable) e.lacking.push(`${test.name.split(":")[0]} (${meta.ssrf.unavailable})`);
        } else if (meta.fuzz) {
          const f = fuzz.get(meta.fuzz.subject) ?? { ...tally(), runs: 0 };
          fuzz.set(meta.fuzz.subject, f);
          count(f, test);
          f.runs += meta.fuzz.runs;
        } else if (/security-[^/]*\.test\.ts$/.test(file)) {
          const t = files.get(file) ?? tally();
          files.set(file, t);
          count(t, test);
          const cited = tenancyOf(test.fullName);
          if (cited) {
            for (const n of cited.findings) {
              const f = tenancy.get(`${n} ${cited.mode}`) ?? tally();
              tenancy.set(`${n} ${cited.mode}`, f);
              count(f, test);
            }
            continue;
          }
          for (const n of findingsOf(test.fullName)) {
            const f = findings.get(n) ?? tally();
            findings.set(n, f);
            count(f, test);
          }
        }
      }
    }
    process.stdout.write(`\n${this.format(ssrf, fuzz, files, findings)}\n${formatTenancy(tenancy)}\n`);
  }

  private format(
    ssrf: Map<string, Tally & { canary: number; groups: Map<string, number>; lacking: string[] }>,
    fuzz: Map<string, Tally & { runs: number }>,
    files: Map<string, Tally>,
    findings: Map<number, Tally>,
  ): string {
    const out = ["== security figures"];
    const w = [12, 7, 7, 7, 18];
    out.push("SSRF cases (each asserts that the internal canary saw no connection):");
    out.push(row(["engine", "cases", "passed", "failed", "canary connections"], w));
    let canaryTotal = 0;
    for (const [engine, e] of [...ssrf].sort()) {
      canaryTotal += e.canary;
      out.push(row([engine, e.passed + e.failed + e.skipped, e.passed, e.failed, e.canary], w));
      out.push(`  by kind: ${[...e.groups].map(([g, n]) => `${g} ${n}`).join(", ")}`);
      if (e.lacking.length > 0) out.push(`  techniques this browser lacks (nothing to reach): ${e.lacking.join(", ")}`);
    }
    if (ssrf.size === 0) out.push("  (no SSRF case ran)");
    out.push(`canary connections seen, all engines: ${canaryTotal}`);

    out.push("", "Property-based fuzzing (fast-check):");
    for (const [subject, f] of fuzz) {
      out.push(`  ${subject}: ${f.runs} generated inputs in ${f.passed + f.failed} properties, ${f.failed} failed`);
    }
    if (fuzz.size === 0) out.push("  (no fuzzing ran)");

    out.push("", "Regression tests of the hardening review's findings (issue 14; the tenancy files are counted below):");
    for (const [file, t] of [...files].sort())
      out.push(`  ${file}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped`);
    if (files.size === 0) out.push("  (no security-*.test.ts file ran)");
    const covered = Object.keys(FINDINGS)
      .map(Number)
      .filter((n) => (findings.get(n)?.passed ?? 0) > 0 && (findings.get(n)?.failed ?? 0) === 0);
    for (const [n, { title }] of Object.entries(FINDINGS)) {
      const f = findings.get(Number(n));
      const figures = f ? `${f.passed} passed, ${f.failed} failed` : "no test names it";
      out.push(`  finding ${n} (${title}): ${figures}`);
    }
    out.push(`findings covered (tests that name them ran, none failed): ${covered.length} of ${Object.keys(FINDINGS).length}`);
    return out.join("\n");
  }
}

/** The tenancy part: each finding of issue 30, its tests in file mode and in Redis + S3 mode. */
function formatTenancy(tenancy: Map<string, Tally>): string {
  const out = ["", "Tenancy (two projects against each other; file mode | Redis + S3 mode):"];
  const cell = (t: Tally | undefined) => (t ? `${t.passed} passed, ${t.failed} failed` : "none ran");
  let covered = 0;
  for (const [n, title] of Object.entries(TENANCY)) {
    const file = tenancy.get(`${n} file`);
    const redis = tenancy.get(`${n} redis`);
    if ([file, redis].every((t) => t && t.passed > 0 && t.failed === 0)) covered++;
    out.push(`  finding ${n} (${title}): ${cell(file)} | ${cell(redis)}`);
  }
  out.push(`tenancy findings covered in both modes (tests ran, none failed): ${covered} of ${Object.keys(TENANCY).length}`);
  return out.join("\n");
}
