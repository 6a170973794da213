import type { DependencyContainer } from "tsyringe";
import type { Logger } from "./contracts/logger.js";
import type { PluginContext, PluginManifest } from "./plugin.js";
import type { RendererSettings } from "./settings.js";

/**
 * The context one plugin's `register` gets. `provide` is the container's `useValue`
 * registration under another name, so values and classes end up in the same place and the
 * renderer collects them alike.
 */
export function pluginContext(
  plugin: PluginManifest,
  container: DependencyContainer,
  settings: RendererSettings,
  logger: Logger,
): PluginContext {
  return {
    provide(token, value) {
      // Types keep TypeScript plugins from this; a JavaScript one would otherwise fail far
      // from its cause, when the renderer first uses the missing object.
      if (value === undefined || value === null) {
        throw new TypeError(`Plugin ${plugin.name} provided ${String(value)} under ${String(token)}`);
      }
      container.register(token, { useValue: value });
    },
    container,
    settings,
    logger,
  };
}
