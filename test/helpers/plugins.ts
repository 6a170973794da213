import type { Logger, PluginContext, PluginManifest } from "@renderkit/core";
import { RecordingLogger } from "@renderkit/core/testing";

/** One object a plugin registered: `provide(token, value)` or `container.register(token, { useValue })`. */
export interface Registration {
  token: unknown;
  value: unknown;
}

/** Runs `plugin.register` with a context that only records what is registered. */
export function registerPlugin(
  plugin: PluginManifest,
  settings: PluginContext["settings"],
  logger: Logger = new RecordingLogger(),
): Registration[] {
  const registered: Registration[] = [];
  const container = {
    register: (token: unknown, provider: { useValue: unknown }) => registered.push({ token, value: provider.useValue }),
  } as unknown as PluginContext["container"];
  const provide: PluginContext["provide"] = (token, value) => void registered.push({ token, value });
  plugin.register({ provide, container, settings, logger });
  return registered;
}
