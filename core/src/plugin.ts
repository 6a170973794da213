import type { DependencyContainer } from "tsyringe";
import type { Logger } from "./contracts/logger.js";
import type { RendererSettings } from "./settings.js";

/** What a plugin's `register` receives. */
export interface PluginContext {
  /** The renderer's own child container: register under the tokens of `tokens.ts`. */
  readonly container: DependencyContainer;
  /** The renderer's resolved settings (data directory, address policy, limits). */
  readonly settings: RendererSettings;
  readonly logger: Logger;
}

/** A plugin: a cheap value; live clients and browsers are created lazily. */
export interface PluginManifest {
  /** Package-style name, used in logs and duplicate checks. */
  readonly name: string;
  /** Puts the plugin's classes into the renderer's container. No global side effects. */
  register(context: PluginContext): void | Promise<void>;
}

/** Declares a plugin factory: `export const myStorage = definePlugin((opts: Opts) => ({ name, register }))`. */
export function definePlugin<A extends unknown[]>(factory: (...args: A) => PluginManifest): (...args: A) => PluginManifest {
  return factory;
}
