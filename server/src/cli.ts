#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { type ArgOptions, HelpRequested, out, parse as parseFlags, UsageError } from "./cli/args.js";
import { projectsCreate, projectsEnable, projectsList } from "./cli/projects.js";
import { DOCTOR_USAGE, PROJECTS_USAGE, SERVE_USAGE, USAGE, WORKER_USAGE } from "./cli/usage.js";
import { ConfigError, loadConfig } from "./config/index.js";
import type { ServerConfig } from "./config/types.js";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** A command's flags, without positional arguments. */
const parse = (args: string[], options: ArgOptions, usage: string) => parseFlags(args, options, usage).values;

function role<R extends string>(value: unknown, allowed: readonly R[]): R | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--role must be one of ${allowed.join(", ")}`);
  }
  return value as R;
}

async function serve(args: string[]): Promise<void> {
  const values = parse(args, { port: { type: "string" }, host: { type: "string" }, role: { type: "string" } }, SERVE_USAGE);
  const serveRole = role(values.role, ["all", "api"] as const) ?? "all";
  const overrides: Partial<ServerConfig> = {};
  if (typeof values.port === "string") {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535)
      throw new UsageError("--port must be an integer from 0 to 65535");
    overrides.port = Number(values.port);
  }
  if (typeof values.host === "string") overrides.host = values.host;
  const config = await loadConfig({ file: values.config as string | undefined, overrides });
  // Loaded on demand: the projects commands need neither the browser engine nor the HTTP stack.
  const { startServer } = await import("./serve.js");
  await startServer(config, {
    role: serveRole,
    handleSignals: true,
    onListen: (url) => out(`renderkit: listening on ${url}${serveRole === "api" ? " (API only)" : ""}`),
  });
}

async function worker(args: string[]): Promise<void> {
  const values = parse(args, {}, WORKER_USAGE);
  const config = await loadConfig({ file: values.config as string | undefined });
  const { startWorker } = await import("./worker.js");
  await startWorker(config, { handleSignals: true });
  out("renderkit: worker started");
}

async function doctor(args: string[]): Promise<number> {
  const values = parse(args, { role: { type: "string" }, json: { type: "boolean" } }, DOCTOR_USAGE);
  const config = await loadConfig({ file: values.config as string | undefined });
  const { runDoctor, formatDoctor, doctorExitCode } = await import("./doctor/index.js");
  const checks = await runDoctor(config, { role: role(values.role, ["all", "api", "worker"] as const) ?? "all" });
  out(values.json ? JSON.stringify(checks, null, 2) : formatDoctor(checks));
  return doctorExitCode(checks);
}

async function main(argv: string[]): Promise<number> {
  const [command, sub, ...rest] = argv;
  if (command === undefined || command === "-h" || command === "--help" || command === "help") {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === "-v" || command === "--version") {
    out(version());
    return 0;
  }
  const args = sub === undefined ? [] : [sub, ...rest];
  if (command === "render") {
    const { render } = await import("./cli/render.js");
    return render(args);
  }
  if (command === "projects" && (sub === undefined || sub === "-h" || sub === "--help")) {
    process.stdout.write(PROJECTS_USAGE);
    return sub === undefined ? 2 : 0;
  }
  if (command === "serve") await serve(args);
  else if (command === "worker") await worker(args);
  else if (command === "doctor") return doctor(args);
  else if (command === "projects" && sub === "create") await projectsCreate(rest);
  else if (command === "projects" && sub === "list") await projectsList(rest);
  else if (command === "projects" && (sub === "disable" || sub === "enable")) await projectsEnable(rest, sub === "enable");
  else throw new UsageError(`unknown command: ${[command, sub].filter(Boolean).join(" ")}`);
  return 0;
}

try {
  const code = await main(process.argv.slice(2));
  if (code !== 0) process.exitCode = code;
} catch (error) {
  if (error instanceof HelpRequested) {
    process.stdout.write(error.usage);
  } else if (error instanceof UsageError) {
    process.stderr.write(`renderkit: ${error.message}\n\n${error.usage ?? USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof ConfigError) {
    process.stderr.write(`renderkit: invalid config: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`renderkit: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
