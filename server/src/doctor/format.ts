import type { DoctorCheck } from "./types.js";

/** Width of the status column: "warn" and "fail" plus two spaces. */
const STATUS_WIDTH = 6;

/**
 * The report as text: one line per check (`ok    chromium   /usr/lib/chromium/chromium (...)`),
 * under each warning or failure an indented `fix:` line, and a count at the end.
 */
export function formatDoctor(checks: DoctorCheck[]): string {
  const width = Math.max(0, ...checks.map((check) => check.name.length)) + 2;
  const lines: string[] = [];
  for (const check of checks) {
    lines.push(`${check.status.padEnd(STATUS_WIDTH)}${check.name.padEnd(width)}${oneLine(check.detail)}`.trimEnd());
    if (check.status !== "ok" && check.fix) lines.push(`${" ".repeat(STATUS_WIDTH)}fix: ${oneLine(check.fix)}`);
  }
  const count = (status: DoctorCheck["status"]) => checks.filter((check) => check.status === status).length;
  lines.push(`${count("ok")} ok, ${count("warn")} warning${count("warn") === 1 ? "" : "s"}, ${count("fail")} failed`);
  return `${lines.join("\n")}\n`;
}

/** The process exit code of a report: 1 when any check failed (warnings do not), else 0. */
export function doctorExitCode(checks: DoctorCheck[]): number {
  return checks.some((check) => check.status === "fail") ? 1 : 0;
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, " ");
