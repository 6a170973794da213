import "reflect-metadata";
import { join } from "node:path";
import { type InjectionToken, container as rootContainer } from "tsyringe";
import type { Formatter } from "./contracts/formatter.js";
import type { Logger } from "./contracts/logger.js";
import type { OptionTable } from "./contracts/option-spec.js";
import type { Queue } from "./contracts/queue.js";
import type { Storage } from "./contracts/storage.js";
import { checkCoreRange } from "./core-version.js";
import { ConsoleLogger } from "./defaults/console-logger.js";
import { FsStorage } from "./defaults/fs-storage.js";
import { HtmlFormatter } from "./defaults/html-formatter.js";
import { MemoryQueue } from "./defaults/memory-queue.js";
import { MhtmlFormatter } from "./defaults/mhtml-formatter.js";
import { PdfFormatter } from "./defaults/pdf-formatter.js";
import { CORE_OPTIONS } from "./options/catalogue.js";
import { mergeOptionTables } from "./options/format-only.js";
import { indexTable } from "./options/parse.js";
import type { PluginManifest } from "./plugin.js";
import { pluginContext } from "./plugin-context.js";
import { AdblockLists } from "./prepare/adblock/index.js";
import { EngineRegistry, FormatterRegistry } from "./registry.js";
import { Renderer } from "./renderer.js";
import { type RendererSettings, resolveSettings } from "./settings.js";
import { ENGINE, FORMATTER, LOGGER, NOTIFIER, QUEUE, SETTINGS, STORAGE } from "./tokens.js";

export interface CreateRendererOptions extends Partial<RendererSettings> {
  /** Engines, formats, storage, queue and notifiers; registered in order. */
  plugins?: readonly PluginManifest[];
  /** Logger for the renderer and every plugin. Default: JSON lines on stderr. */
  logger?: Logger;
}

/** Merges the formatters' option tables into the core's (see `mergeOptionTables`). */
function optionTable(formatters: readonly Formatter[]): OptionTable {
  const table = mergeOptionTables(CORE_OPTIONS, formatters);
  indexTable(table);
  return table;
}

/**
 * Builds a renderer in its own child container: plugins register first, then the built-in
 * defaults fill what is missing (fs storage under `dataDir/renders`, an in-process queue,
 * the PDF format). Two renderers in one process share nothing. A plugin made for another core
 * (`PluginManifest.core`) is refused before any plugin registers.
 */
export async function createRenderer(options: CreateRendererOptions = {}): Promise<Renderer> {
  const { plugins = [], logger = new ConsoleLogger(), ...rest } = options;
  for (const plugin of plugins) checkCoreRange(plugin);
  const settings = resolveSettings(rest);
  const container = rootContainer.createChildContainer();
  container.register(SETTINGS, { useValue: settings });
  container.register(LOGGER, { useValue: logger });

  const names = new Set<string>();
  for (const plugin of plugins) {
    if (names.has(plugin.name)) throw new Error(`Plugin ${plugin.name} is registered twice`);
    names.add(plugin.name);
    await plugin.register(pluginContext(plugin, container, settings, logger));
  }
  if (!container.isRegistered(STORAGE))
    container.register(STORAGE, { useValue: new FsStorage(join(settings.dataDir, "renders")) });
  if (!container.isRegistered(QUEUE)) container.register(QUEUE, { useValue: new MemoryQueue(settings.maxQueued) });

  const all = <T>(token: InjectionToken<T>): T[] => (container.isRegistered(token) ? container.resolveAll(token) : []);
  const formatters = all(FORMATTER);
  // Built-in formats fill in unless a plugin provides them.
  const provided = new Set(formatters.flatMap((f) => f.formats.map((s) => s.format)));
  for (const builtIn of [new PdfFormatter(), new HtmlFormatter(), new MhtmlFormatter()]) {
    if (!builtIn.formats.some((s) => provided.has(s.format))) formatters.push(builtIn as Formatter);
  }
  const storages = all(STORAGE);
  const queues = all(QUEUE);
  if (storages.length > 1) throw new Error(`More than one storage is registered (${storages.map((s) => s.name).join(", ")})`);
  if (queues.length > 1) throw new Error(`More than one queue is registered (${queues.map((q) => q.name).join(", ")})`);

  const renderer = new Renderer({
    settings,
    logger,
    engines: new EngineRegistry(all(ENGINE)),
    formatters: new FormatterRegistry(formatters),
    storage: storages[0] as Storage,
    queue: queues[0] as Queue,
    notifiers: all(NOTIFIER),
    options: optionTable(formatters),
    adblock: new AdblockLists(settings.adblock, join(settings.dataDir, "adblock"), logger),
  });
  await renderer.start();
  return renderer;
}
