import type { Logger } from "../contracts/logger.js";

/** One call to a `RecordingLogger`. */
export interface LogEntry {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every entry, for tests that check what was reported. */
export class RecordingLogger implements Logger {
  readonly entries: LogEntry[] = [];

  debug(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: "debug", message, fields });
  }
  info(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: "info", message, fields });
  }
  warn(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: "warn", message, fields });
  }
  error(message: string, fields: Record<string, unknown> = {}): void {
    this.entries.push({ level: "error", message, fields });
  }

  /** Entries at `level`, optionally only those with `message`. */
  at(level: LogEntry["level"], message?: string): LogEntry[] {
    return this.entries.filter((e) => e.level === level && (message === undefined || e.message === message));
  }
}
