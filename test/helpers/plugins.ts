import type { Logger, PluginContext, PluginManifest } from "@renderkit/core";
import { RecordingLogger } from "@renderkit/core/testing";

/** One `container.register(token, { useValue })` a plugin made. */
export interface Registration {
  token: unknown;
  value: unknown;
}

/** Runs `plugin.register` with a container that only records what is registered. */
export function registerPlugin(
  plugin: PluginManifest,
  settings: PluginContext["settings"],
  logger: Logger = new RecordingLogger(),
): Registration[] {
  const registered: Registration[] = [];
  const container = {
    register: (token: unknown, provider: { useValue: unknown }) => registered.push({ token, value: provider.useValue }),
  } as unknown as PluginContext["container"];
  plugin.register({ container, settings, logger });
  return registered;
}
