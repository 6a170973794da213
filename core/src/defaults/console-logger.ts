import type { Logger } from "../contracts/logger.js";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One JSON line per entry on stderr; level from `RENDERKIT_LOG_LEVEL` (default `info`, `silent` mutes). */
export class ConsoleLogger implements Logger {
  private readonly min: number;

  constructor(level: string = process.env.RENDERKIT_LOG_LEVEL ?? "info") {
    this.min = level === "silent" ? Number.POSITIVE_INFINITY : (ORDER[level as Level] ?? ORDER.info);
  }

  private write(level: Level, message: string, fields?: Record<string, unknown>): void {
    if (ORDER[level] < this.min) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level, message, ...fields });
    process.stderr.write(`${line}\n`);
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.write("debug", message, fields);
  }
  info(message: string, fields?: Record<string, unknown>): void {
    this.write("info", message, fields);
  }
  warn(message: string, fields?: Record<string, unknown>): void {
    this.write("warn", message, fields);
  }
  error(message: string, fields?: Record<string, unknown>): void {
    this.write("error", message, fields);
  }
}
