import type { DependencyContainer, InjectionToken } from "tsyringe";
import type { Logger } from "./contracts/logger.js";
import type { RendererSettings } from "./settings.js";

/** What a plugin's `register` receives. */
export interface PluginContext {
  /**
   * Puts a ready-made object under a token of `tokens.ts`: `provide(FORMATTER, new TextFormatter())`.
   * All a plugin that builds its objects itself needs; it imports nothing but `@renderkit/core`.
   * Under `ENGINE`, `FORMATTER` and `NOTIFIER` each call adds one more; `STORAGE` and `QUEUE`
   * take one, which replaces the built-in default.
   */
  provide<T>(token: InjectionToken<T>, value: NoInfer<T>): void;
  /**
   * The renderer's own tsyringe child container, for plugins that let it build their classes
   * (`useClass` with `@inject(TOKEN)` on every constructor parameter: no decorator metadata is
   * emitted). Such a plugin takes `tsyringe` as a peer dependency, so the host has one copy.
   */
  readonly container: DependencyContainer;
  /** The renderer's resolved settings (data directory, address policy, limits). */
  readonly settings: RendererSettings;
  readonly logger: Logger;
}

/** A plugin: a cheap value; live clients and browsers are created lazily. */
export interface PluginManifest {
  /** Package-style name, used in logs and duplicate checks. */
  readonly name: string;
  /**
   * The versions of `@renderkit/core` the plugin works with, as an npm range (`"^0.1.0"`, the
   * range of its `peerDependencies`). `createRenderer` refuses the plugin when this core is
   * outside it; without it, no check.
   */
  readonly core?: string;
  /** Puts the plugin's objects into the renderer's container. No global side effects. */
  register(context: PluginContext): void | Promise<void>;
}

/** Declares a plugin factory: `export const myStorage = definePlugin((opts: Opts) => ({ name, register }))`. */
export function definePlugin<A extends unknown[]>(factory: (...args: A) => PluginManifest): (...args: A) => PluginManifest {
  return factory;
}
