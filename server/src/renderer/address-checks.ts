import { AddressPolicy, RenderError } from "@renderkit/core";
import type { ServerConfig } from "../config/types.js";

/** 400 `InvalidOptions` naming the option (in its snake_case spelling) and why it is refused. */
export function invalidOption(option: string, why: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} ${why}`, { details: { option } });
}

/**
 * Refuses an address an option names (a webhook, an S3 endpoint, a presigned upload) unless the
 * address policy allows it: 400 `InvalidOptions` naming the option and why.
 */
export async function refuseUnlessPublic(
  config: Pick<ServerConfig, "allowPrivateNetworks">,
  option: string,
  url: URL,
): Promise<void> {
  try {
    await new AddressPolicy({ allowPrivate: config.allowPrivateNetworks }).resolveUrl(url);
  } catch (error) {
    throw invalidOption(option, error instanceof Error ? `is refused: ${error.message}` : "is refused");
  }
}
