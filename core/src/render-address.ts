import { pathToFileURL } from "node:url";
import type { Storage } from "./contracts/storage.js";
import type { RendererSettings } from "./settings.js";

/**
 * Address of a stored render: the storage's own, the server's, or a local file. A `private` file
 * (one holding credentials, see `PRIVATE_SIDE_SUFFIXES`) gets the server's address whenever there
 * is a server: the server asks for the project's key there, a public bucket address could not.
 */
export async function renderAddress(
  storage: Storage,
  settings: RendererSettings,
  key: string,
  options: { private?: boolean } = {},
): Promise<{ url: string; path?: string }> {
  const path = storage.localPath?.(key);
  if (options.private && settings.baseUrl) return { url: `${settings.baseUrl}/renders/${key}`, path };
  if (storage.publicUrl) return { url: await storage.publicUrl(key, settings.renderTtlSeconds), path };
  if (settings.baseUrl) return { url: `${settings.baseUrl}/renders/${key}`, path };
  if (path) return { url: pathToFileURL(path).href, path };
  return { url: `renderkit:${key}` };
}
