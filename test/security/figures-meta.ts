/**
 * What an SSRF case attaches to its test (`task.meta.ssrf`), read by the figures reporter
 * (`figures-reporter.ts`) at the end of `npm run test:security`.
 */
export interface SsrfMeta {
  engine: string;
  /** `address`, `scheme`, `in-page`, `redirect` or `rebinding`. */
  group: string;
  /** TCP connections the internal canary accepted while the case ran (must be 0). */
  canaryConnections: number;
  /** Why this engine cannot attempt the technique at all (it blocks service workers...), if so. */
  unavailable?: string;
}

/** What a property-based fuzzing test attaches (`task.meta.fuzz`). */
export interface FuzzMeta {
  /** What was fuzzed (`options parser`, `HTTP bodies`...). */
  subject: string;
  /** Generated inputs tried. */
  runs: number;
}

declare module "vitest" {
  interface TaskMeta {
    ssrf?: SsrfMeta;
    fuzz?: FuzzMeta;
  }
}
