#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { type ArgOptions, HelpRequested, parse as parseFlags, UsageError } from "./cli/args.js";
import { DOCTOR_USAGE, PROJECTS_USAGE, SERVE_USAGE, USAGE, WORKER_USAGE } from "./cli/usage.js";
import { ConfigError, loadConfig } from "./config/index.js";
import type { Project, ServerConfig } from "./config/types.js";
import { ProjectStore } from "./projects/store.js";
import { closeRedis, connectRedis } from "./state/redis-client.js";

const out = (text: string): void => {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
};

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

/** Opens the projects (file, or Redis with `redis` configured), runs `use`, and closes what it opened. */
async function withStore<T>(configFile: unknown, use: (store: ProjectStore) => Promise<T>): Promise<T> {
  const config = await loadConfig({ file: configFile as string | undefined });
  const redis = config.redis ? await connectRedis(config.redis.url, "cli") : undefined;
  try {
    // The CLI makes only what it is asked for: no "default" project behind the operator's back.
    const { store } = await ProjectStore.open(config, undefined, { createDefault: false, redis });
    return await use(store);
  } finally {
    if (redis) await closeRedis(redis);
  }
}

async function projectsCreate(args: string[]): Promise<void> {
  const values = parse(args, { name: { type: "string" }, json: { type: "boolean" } }, PROJECTS_USAGE);
  if (typeof values.name !== "string" || values.name.trim() === "") throw new UsageError("projects create needs --name NAME");
  const name = values.name;
  const { project, secretKey } = await withStore(values.config, (store) => store.create(name));
  const keys = {
    id: project.id,
    name: project.name,
    secretKey,
    publishableKey: project.publishableKey,
    webhookSecret: project.webhookSecret,
  };
  if (values.json) return out(JSON.stringify(keys, null, 2));
  out(
    `Created project "${project.name}". The secret key is shown only now: store it safely.\n` +
      `  id:               ${keys.id}\n` +
      `  secret key:       ${keys.secretKey}\n` +
      `  publishable key:  ${keys.publishableKey}\n` +
      `  webhook secret:   ${keys.webhookSecret}\n` +
      `A running server picks the project up at the first request that uses its keys.`,
  );
}

async function projectsList(args: string[]): Promise<void> {
  const values = parse(args, { json: { type: "boolean" } }, PROJECTS_USAGE);
  const { rows, source } = await withStore(values.config, async (store) => ({
    rows: store.list().map((p: Project) => ({ id: p.id, name: p.name, publishableKey: p.publishableKey, enabled: p.enabled })),
    source: store.source,
  }));
  if (values.json) return out(JSON.stringify(rows, null, 2));
  if (rows.length === 0) return out(`No projects yet (${source}). Create one with: renderkit projects create --name NAME`);
  const table = [
    ["ID", "NAME", "PUBLISHABLE KEY", "ENABLED"],
    ...rows.map((r) => [r.id, r.name, r.publishableKey, r.enabled ? "yes" : "no"]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((row) => row[c]!.length)));
  out(
    table
      .map((row) =>
        row
          .map((cell, c) => cell.padEnd(widths[c]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n"),
  );
}

async function projectsEnable(args: string[], enabled: boolean): Promise<void> {
  const { values, positionals } = parseFlags(args, {}, PROJECTS_USAGE, true);
  const [id, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`projects ${enabled ? "enable" : "disable"} takes one project id`);
  if (id === undefined) throw new UsageError(`projects ${enabled ? "enable" : "disable"} needs the project's id`);
  const project = await withStore(values.config, (store) => store.setEnabled(id, enabled));
  out(`Project "${project.id}" is ${enabled ? "enabled" : "disabled"}; running servers take it up within a second.`);
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
