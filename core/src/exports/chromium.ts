/**
 * `@renderkit/core/chromium`: building blocks of the Chromium engines: the browser process and pool,
 * the egress proxy, the page-load skeleton, CDP helpers, page preparation. Not covered by semver.
 */
export {
  type BrowserConnection,
  type BrowserEngineOptions,
  type BrowserLease,
  BrowserPool,
  type BrowserPoolOptions,
  PooledBrowser,
} from "../browser/browser-pool.js";
export { captureOrRetry, NEXT_FRAME } from "../browser/capture-retry.js";
export { type ScreencastChannel, type ScreencastFrameEvent, startCdpScreencast } from "../browser/cdp-screencast.js";
export { CHROMIUM_FLAGS } from "../browser/chromium-flags.js";
export { ChromiumProcess, type LaunchOptions } from "../browser/chromium-process.js";
export {
  type ChromiumUser,
  chromiumUser,
  decideSandbox,
  type SandboxDecision,
  type SandboxFacts,
  type SandboxMode,
  sandboxFailure,
  sandboxLine,
  sandboxMode,
} from "../browser/chromium-sandbox.js";
export { type ScopedCookie, scopeCookies } from "../browser/cookie-domain.js";
export { DevtoolsError, DevtoolsLink, type DevtoolsSession } from "../browser/devtools-link.js";
export { type DriverErrorKinds, translateDriverError } from "../browser/driver-errors.js";
export { findChromium, hasSetuidSandbox } from "../browser/find-chromium.js";
export {
  type DriverAnswer,
  type DriverWaitUntil,
  type LoadedTarget,
  loadTarget,
  type NavigateOptions,
  type PageLoader,
  type PreparedPage,
  type PrewarmedContext,
} from "../browser/load-target.js";
export { openLeased } from "../browser/open-session.js";
export { IDLE_POLICY, type ResetChannel, type ReusablePage, resetChromiumPage, resetForReuse } from "../browser/page-reset.js";
export { fixedSettingsKey, PageShelf, type PageShelfOptions, pageShelf, reuseKey } from "../browser/page-shelf.js";
export { ChromiumSessionBase, type LoadedParts } from "../browser/session-base.js";
export { authorizedHeaders, type PageHeaders, pageHeaders, type TargetHeaders } from "../network/authorization.js";
export { checkTarget } from "../network/check-target.js";
export { ConnectionSlots, DEFAULT_EGRESS_LIMITS, MIN_EGRESS_CONNECTIONS, overByteCap } from "../network/egress-limits.js";
export { DENIED_HEADER, type EgressSession, openEgressSession, UNREACHABLE_HEADER } from "../network/egress-proxy.js";
export { isPublicAddress } from "../network/ip-ranges.js";
export { checkProxyAnswer, navigationFailure } from "../network/navigation-failure.js";
export { parseProxy, type UpstreamProxy } from "../network/upstream-proxy.js";
export { captureMhtml, MAX_MHTML_CHARS, type SnapshotChannel } from "../page/mhtml.js";
export { NetworkIdle, type WatchRequests } from "../page/network-idle.js";
export { CONSENT_BUDGET_MS, checkPageOptions, hideCss, type PrepareContext, preparePage } from "../page/prepare.js";
export { resourceKind } from "../page/resource-kind.js";
export { MAX_RESOURCES, type NetworkChannel, ResourceLog } from "../page/resource-log.js";
export { parseCookies, parseHeaders } from "../page/settings.js";
export { type AdBlocker, AdblockLists, type AdblockSettings, type AdblockTuning } from "../prepare/adblock/index.js";
export { blockingFilter, checkBlockPatterns } from "../prepare/blocking.js";
export { type ConsentMode, type ConsentReport, consentInitScript, consentMode, settleConsent } from "../prepare/consent/index.js";
export { clickAndDismiss, scrollAndHover } from "../prepare/interactions.js";
export { type DriverCookie, MAX_COOKIES, pageCookie, type SavedCookie, savedCookies } from "../side/cookies.js";
export { type SavedHeaders, savedHeaders } from "../side/headers.js";
export { extractLinks, MAX_LINKS, type PageLink } from "../side/links.js";
