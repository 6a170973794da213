import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { PluginManifest } from "@renderkit/core";
import { ConfigError } from "../config/error.js";
import type { PluginEntry } from "../config/types.js";

type Factory = (options?: unknown) => PluginManifest | Promise<PluginManifest>;

const isManifest = (value: unknown): value is PluginManifest =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as PluginManifest).name === "string" &&
  typeof (value as PluginManifest).register === "function";

/**
 * Imports a plugin module: a path (absolute, as the config loader resolved relative ones) or a
 * package name, looked up from the working directory first (where the operator installed it),
 * then from the server's own dependencies.
 */
async function importModule(specifier: string): Promise<Record<string, unknown>> {
  if (specifier.startsWith("/") || /^[A-Za-z]:[\\/]/.test(specifier) || specifier.startsWith("file:")) {
    return import(specifier.startsWith("file:") ? specifier : pathToFileURL(specifier).href);
  }
  try {
    const resolved = createRequire(join(process.cwd(), "noop.js")).resolve(specifier);
    return await import(pathToFileURL(resolved).href);
  } catch (error) {
    // ESM-only packages without a `require` export cannot be resolved this way; import() can.
    if (
      (error as NodeJS.ErrnoException).code !== "ERR_PACKAGE_PATH_NOT_EXPORTED" &&
      (error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND"
    ) {
      throw error;
    }
    return import(specifier);
  }
}

/**
 * Loads the `plugins` of the configuration: each module's default export (or its `plugin`
 * export) is a plugin factory, called with the entry's `options`; a module may also export a
 * ready manifest. Any failure names the entry and stops the start (exit code 2).
 */
export async function loadPlugins(entries: readonly PluginEntry[]): Promise<PluginManifest[]> {
  const manifests: PluginManifest[] = [];
  for (const [i, entry] of entries.entries()) {
    const specifier = typeof entry === "string" ? entry : entry.module;
    const options = typeof entry === "string" ? undefined : entry.options;
    const where = `plugins[${i}] (${specifier})`;
    let module: Record<string, unknown>;
    try {
      module = await importModule(specifier);
    } catch (error) {
      throw new ConfigError(`${where} could not be loaded: ${(error as Error).message}`);
    }
    const exported = module.default ?? module.plugin;
    let manifest: unknown = exported;
    if (typeof exported === "function") {
      try {
        manifest = await (exported as Factory)(options);
      } catch (error) {
        throw new ConfigError(`${where}: its factory failed: ${(error as Error).message}`);
      }
    } else if (options !== undefined) {
      throw new ConfigError(`${where} exports a plugin, not a factory: it takes no options`);
    }
    if (!isManifest(manifest)) {
      throw new ConfigError(
        `${where} must export a plugin factory as its default export or as "plugin" (a function returning { name, register })`,
      );
    }
    manifests.push(manifest);
  }
  return manifests;
}
