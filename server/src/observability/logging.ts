import { type Logger, snakeName } from "@renderkit/core";
import { CORE_OPTIONS, secretOptionNames } from "@renderkit/core/internal";
import { type DestinationStream, type Logger as Pino, pino } from "pino";

/** The options the catalogue marks secret (`OptionSpec.secret`), as parsed and as clients spell them. */
const SECRET_OPTIONS = secretOptionNames(CORE_OPTIONS).flatMap((name) => [name, snakeName(name)]);

/**
 * Field names whose values never reach the log, at the top level and up to three levels down
 * (`fields.options.proxy`, `fields.request.headers`...): API keys, cookies, request headers,
 * proxy and S3 credentials, presigned upload addresses, webhook and link-signing secrets.
 */
const SECRET_FIELDS = [
  ...SECRET_OPTIONS,
  "authorization",
  "cookie",
  "cookies",
  "headers",
  "extraHttpHeaders",
  "proxy",
  "password",
  "secret",
  "secretKey",
  "secretAccessKey",
  "accessKeyId",
  "sessionToken",
  "webhookSecret",
  "linkSigningKey",
  "masterKey",
  "token",
  "apiKey",
];
export const REDACT_PATHS: string[] = [...new Set(SECRET_FIELDS)].flatMap((name) => [
  name,
  `*.${name}`,
  `*.*.${name}`,
  `*.*.*.${name}`,
]);
const CENSOR = "[redacted]";

/** `scheme://user:password@host` → `scheme://[redacted]@host`, wherever a string carries one. */
const URL_CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^\s/@:]*:[^\s/@]*@/gi;
function scrub(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.includes("@") ? value.replace(URL_CREDENTIALS, `$1${CENSOR}@`) : value;
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { type: value.name, message: scrub(value.message) };
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrub(item, depth + 1);
  return out;
}

type Level = "debug" | "info" | "warn" | "error";
const LABELS: Record<Level, string> = { debug: "DEBUG", info: "INFO ", warn: "WARN ", error: "ERROR" };

/** A small TTY formatter: `12:00:01.123 INFO  message key=value ...` (JSON lines stay the default elsewhere). */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const { time, level, message, ...rest } = entry;
  const clock = typeof time === "string" ? time.slice(11, 23) : "";
  const extras = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === "string" && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join(" ");
  return `${clock} ${LABELS[level as Level] ?? String(level)} ${String(message ?? "")}${extras ? ` ${extras}` : ""}\n`;
}

export interface ServerLoggerOptions {
  /** `debug`, `info`, `warn`, `error` or `silent`. */
  level: string;
  /** Where lines go (default stderr). */
  destination?: { write(line: string): unknown };
  /** `json` (one JSON object a line) or `pretty`; default: `pretty` on a TTY stderr, else `json` (env `RENDERKIT_LOG_FORMAT`). */
  format?: "json" | "pretty";
}

/** The core's `Logger` contract on top of pino, with redaction. */
class PinoLogger implements Logger {
  constructor(readonly pino: Pino) {}
  private write(level: Level, message: string, fields?: Record<string, unknown>): void {
    if (!this.pino.isLevelEnabled(level)) return;
    this.pino[level]((fields ? scrub(fields) : {}) as object, scrub(message) as string);
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

/**
 * The server's logger: pino, one JSON line per entry (`time`, `level`, `message`, fields) on
 * stderr, secrets redacted by field name and URL credentials scrubbed from every string.
 */
export function createServerLogger(options: ServerLoggerOptions): Logger {
  const target = options.destination ?? process.stderr;
  const envFormat = process.env.RENDERKIT_LOG_FORMAT;
  const format =
    options.format ??
    (envFormat === "json" || envFormat === "pretty"
      ? envFormat
      : target === process.stderr && process.stderr.isTTY
        ? "pretty"
        : "json");
  const stream: DestinationStream =
    format === "pretty"
      ? { write: (line: string) => void target.write(prettyLine(line)) }
      : { write: (line) => void target.write(line) };
  const instance = pino(
    {
      level: options.level,
      base: undefined,
      messageKey: "message",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: CENSOR },
    },
    stream,
  );
  return new PinoLogger(instance);
}

export interface AccessEntry {
  requestId: string;
  method: string;
  /** The matched route pattern (`/v1/render/:renderId`), never the path with its values or query. */
  route: string;
  status: number;
  durationMs: number;
  projectId?: string;
  renderId?: string;
}

/** One access line per request (`warn` for 5xx answers). */
export function logAccess(logger: Logger, entry: AccessEntry): void {
  const fields: Record<string, unknown> = { ...entry, durationMs: Math.round(entry.durationMs * 10) / 10 };
  for (const key of ["projectId", "renderId"]) if (fields[key] === undefined) delete fields[key];
  if (entry.status >= 500) logger.warn("request", fields);
  else logger.info("request", fields);
}
