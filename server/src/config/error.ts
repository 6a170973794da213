/** A configuration that cannot be used; the message names the key path (and where it came from). */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

/** Log levels the `logLevel` key accepts. */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
