/**
 * `@renderkit/core/chromium`: the Chromium runtime, what a Chromium engine is built from: the
 * browser process and pool, the page shelf and reset, the page-load skeleton, the render's egress
 * proxy, CDP helpers (screencast, MHTML, resource log) and driver error translation. Not covered by
 * semver: for engine authors who accept to follow the core closely.
 *
 * This folder is the only place that knows Chromium. It imports the rest of core only through
 * core's entry modules (`index.ts`, `exports/page.ts`, `exports/internal.ts`), and nothing outside
 * it imports it. This module is its one entry: it exports what an engine needs, nothing for tests.
 */
export {
  type BrowserConnection,
  type BrowserEngineOptions,
  type BrowserLease,
  BrowserPool,
  type BrowserPoolOptions,
  PooledBrowser,
} from "./browser/browser-pool.js";
export { captureOrRetry, NEXT_FRAME } from "./browser/capture-retry.js";
export { type ScreencastChannel, type ScreencastFrameEvent, startCdpScreencast } from "./browser/cdp-screencast.js";
export { CHROMIUM_FLAGS } from "./browser/chromium-flags.js";
export type { ChromiumUser } from "./browser/chromium-sandbox.js";
export { type ScopedCookie, scopeCookies } from "./browser/cookie-domain.js";
export { DevtoolsError, DevtoolsLink, type DevtoolsSession } from "./browser/devtools-link.js";
export { type DriverErrorKinds, translateDriverError } from "./browser/driver-errors.js";
export { findChromium } from "./browser/find-chromium.js";
export {
  type DriverAnswer,
  type DriverWaitUntil,
  type LoadedTarget,
  loadTarget,
  type NavigateOptions,
  type PageLoader,
  type PreparedPage,
  type PrewarmedContext,
} from "./browser/load-target.js";
export { openLeased } from "./browser/open-session.js";
export { IDLE_POLICY, type ResetChannel, type ReusablePage, resetForReuse } from "./browser/page-reset.js";
export { fixedSettingsKey, PageShelf, type PageShelfOptions, pageShelf, reuseKey } from "./browser/page-shelf.js";
export { ChromiumSessionBase, type LoadedParts } from "./browser/session-base.js";
export { authorizedHeaders, type PageHeaders, pageHeaders, type TargetHeaders } from "./network/authorization.js";
export { checkTarget } from "./network/check-target.js";
export { type EgressSession, openEgressSession } from "./network/egress-proxy.js";
export { captureMhtml, type SnapshotChannel } from "./page/mhtml.js";
export { NetworkIdle, type WatchRequests } from "./page/network-idle.js";
export { resourceKind } from "./page/resource-kind.js";
export { type NetworkChannel, ResourceLog } from "./page/resource-log.js";
