import { loadConfig } from "../config/index.js";
import type { Project } from "../config/types.js";
import { ProjectStore } from "../projects/store.js";
import { closeRedis, connectRedis } from "../state/redis-client.js";
import { out, parse, UsageError } from "./args.js";
import { PROJECTS_USAGE } from "./usage.js";

/** `renderkit projects create|list|enable|disable`: the projects of the config's data directory or Redis. */

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

export async function projectsCreate(args: string[]): Promise<void> {
  const { values } = parse(args, { name: { type: "string" }, json: { type: "boolean" } }, PROJECTS_USAGE);
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

export async function projectsList(args: string[]): Promise<void> {
  const { values } = parse(args, { json: { type: "boolean" } }, PROJECTS_USAGE);
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

export async function projectsEnable(args: string[], enabled: boolean): Promise<void> {
  const { values, positionals } = parse(args, {}, PROJECTS_USAGE, true);
  const [id, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(`projects ${enabled ? "enable" : "disable"} takes one project id`);
  if (id === undefined) throw new UsageError(`projects ${enabled ? "enable" : "disable"} needs the project's id`);
  const project = await withStore(values.config, (store) => store.setEnabled(id, enabled));
  out(`Project "${project.id}" is ${enabled ? "enabled" : "disabled"}; running servers take it up within a second.`);
}
