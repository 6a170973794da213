import type { AddressChecker } from "../contracts/address.js";
import type { PageSettings } from "../contracts/page-settings.js";

/** Page settings with the contract's defaults (800×600, light, `loaded`, 15 s); `policy` is required. */
export function makePageSettings(policy: AddressChecker, overrides: Partial<PageSettings> = {}): PageSettings {
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
