import type { PageSettings } from "../contracts/engine.js";
import type { AddressPolicy } from "../network/address-policy.js";

/** Page settings with the contract's defaults (800×600, light, `loaded`, 15 s); `policy` is required. */
export function makePageSettings(policy: AddressPolicy, overrides: Partial<PageSettings> = {}): PageSettings {
  return {
    width: 800,
    height: 600,
    deviceScaleFactor: 1,
    headers: {},
    cookies: [],
    colorScheme: "light",
    reducedMotion: false,
    javaScriptEnabled: true,
    media: "screen",
    waitUntil: "loaded",
    timeoutMs: 15_000,
    policy,
    ...overrides,
  };
}
