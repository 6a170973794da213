import "reflect-metadata";

export {
  type BrowserConnection,
  type BrowserEngineOptions,
  type BrowserLease,
  BrowserPool,
  type BrowserPoolOptions,
  PooledBrowser,
} from "./browser/browser-pool.js";
export { type ScreencastChannel, type ScreencastFrameEvent, startCdpScreencast } from "./browser/cdp-screencast.js";
export { CHROMIUM_FLAGS, ChromiumProcess, type LaunchOptions } from "./browser/chromium-process.js";
export { findChromium } from "./browser/find-chromium.js";
export { ChromiumSessionBase, type LoadedParts } from "./browser/session-base.js";
export type { DestinationRequest, DestinationResolver, RenderDestination } from "./contracts/destination.js";
export type {
  Box,
  CookieSpec,
  ElementQuery,
  Engine,
  EngineCapability,
  EngineStats,
  PageCookie,
  PageResponse,
  PageSession,
  PageSettings,
  PageTarget,
  PdfSettings,
  RequestFilter,
  RequestInfo,
  ResourceKind,
  ResourceRecord,
  ResourceReport,
  Screencast,
  ScreencastFrame,
  ScreencastSettings,
  ScreenshotSettings,
  WaitUntil,
} from "./contracts/engine.js";
export type { FormatContext, FormatOutput, FormatSpec, Formatter } from "./contracts/formatter.js";
export type { Logger } from "./contracts/logger.js";
export type { Notifier } from "./contracts/notifier.js";
export { type JobHandler, JobNotDone, type Queue, type QueueCounts, type QueueJob } from "./contracts/queue.js";
export type { ByteRange, Storage, StoredMeta, StoredObject } from "./contracts/storage.js";
export { type CreateRendererOptions, createRenderer } from "./create-renderer.js";
export { ConsoleLogger } from "./defaults/console-logger.js";
export { FsQueue, type FsQueueOptions } from "./defaults/fs-queue.js";
export { assertStorageKey, FsStorage } from "./defaults/fs-storage.js";
export { HtmlFormatter } from "./defaults/html-formatter.js";
export { MemoryQueue } from "./defaults/memory-queue.js";
export { MHTML_SPEC, MhtmlFormatter, mhtmlSnapshot } from "./defaults/mhtml-formatter.js";
export { PdfFormatter, pdfSettings } from "./defaults/pdf-formatter.js";
export { ERROR_CODES, type ErrorCode, isRenderError, RenderError, toRenderError } from "./errors.js";
export type { FinalRenderEvent, RenderEvent, RenderResult, RenderStatus } from "./events.js";
export { AddressPolicy, type AddressPolicyOptions, type Denial, type Lookup } from "./network/address-policy.js";
export { authorizedHeaders } from "./network/authorization.js";
export { checkTarget } from "./network/check-target.js";
export { DENIED_HEADER, type EgressSession, openEgressSession, UNREACHABLE_HEADER } from "./network/egress-proxy.js";
export { isPublicAddress } from "./network/ip-ranges.js";
export { checkProxyAnswer, navigationFailure } from "./network/navigation-failure.js";
export { hostAndPort, pinnedLookup, policyLookup } from "./network/pinned-lookup.js";
export { parseProxy, type UpstreamProxy } from "./network/upstream-proxy.js";
export { CORE_OPTIONS, PAPER_SIZES, type PaperSize, type RenderOptions } from "./options/catalogue.js";
export { IMAGE_OPTIONS, IMAGE_RULES, IMG_POSITIONS, SHAPED_FORMATS } from "./options/catalogue-image.js";
export { BLOCK_KINDS, MAX_HEIGHT, PAGE_OPTIONS } from "./options/catalogue-page.js";
export { checkStorageOptions, S3_STORAGE_CLASSES, STORAGE_OPTIONS } from "./options/catalogue-storage.js";
export {
  checkCombinations,
  FORMAT_ONLY_OPTIONS,
  type FormatOnlyOption,
  ignoredForFormat,
  OPTION_RULES,
  type OptionRule,
} from "./options/combinations.js";
export { camelize, coerceOption, lengthToPx, type ParsedOptions, parseOptions, snakeName } from "./options/parse.js";
export * from "./options/spec.js";
export {
  type Capture,
  type CaptureLimits,
  type CaptureSection,
  captureBounds,
  captureScreenshot,
  MAX_CAPTURE_PIXELS,
  MAX_TOTAL_PIXELS,
  NATIVE_MAX_PIXELS,
  SECTION_PIXELS,
  sectionHeight,
} from "./page/capture.js";
export { htmlSnapshot } from "./page/html-snapshot.js";
export { extractMetadata, type PageMetadata } from "./page/metadata.js";
export { captureMhtml, MAX_MHTML_CHARS, type SnapshotChannel } from "./page/mhtml.js";
export { NetworkIdle, type WatchRequests } from "./page/network-idle.js";
export {
  CONSENT_BUDGET_MS,
  checkPageOptions,
  forOption,
  hideCss,
  PRESCROLL_BUDGET_MS,
  type PrepareContext,
  preparePage,
} from "./page/prepare.js";
export { resourceKind } from "./page/resource-kind.js";
export { MAX_RESOURCES, type NetworkChannel, ResourceLog } from "./page/resource-log.js";
export { parseCookies, parseHeaders } from "./page/settings.js";
export { MAX_CLIP_WIDTH, MAX_PAD, type Padding, parseClip, parsePadding } from "./page/shape-values.js";
export { definePlugin, type PluginContext, type PluginManifest } from "./plugin.js";
export { type AdBlocker, AdblockLists, type AdblockSettings, type AdblockTuning } from "./prepare/adblock/index.js";
export { blockingFilter, checkBlockPatterns } from "./prepare/blocking.js";
export { type ConsentMode, type ConsentReport, consentInitScript, consentMode, settleConsent } from "./prepare/consent/index.js";
export { clickAndDismiss, scrollAndHover } from "./prepare/interactions.js";
export { IMAGE_WAIT_MS, type PreScrollReport, type PreScrollSettings, preScroll } from "./prepare/scroll.js";
export { hasVisibleContent, nextFrames } from "./prepare/visible-content.js";
export { EngineRegistry, FormatterRegistry } from "./registry.js";
export { RenderEvents, type RenderListener } from "./render-events.js";
export { Renderer, type RenderJobData, type SubmitOptions } from "./renderer.js";
export { DEFAULT_ADBLOCK_LISTS, type RendererSettings, resolveSettings } from "./settings.js";
export { type DriverCookie, MAX_COOKIES, pageCookie, type SavedCookie, savedCookies } from "./side/cookies.js";
export { type SavedHeaders, savedHeaders } from "./side/headers.js";
export { extractLinks, MAX_LINKS, type PageLink } from "./side/links.js";
export { ENGINE, FORMATTER, LOGGER, NOTIFIER, QUEUE, SETTINGS, STORAGE } from "./tokens.js";
export { isSafeId, newRenderId, type RenderOrigin } from "./util/ids.js";
export { Semaphore } from "./util/semaphore.js";
export { ownedTempDir, sweepStaleTempDirs } from "./util/temp-dir.js";
export { abortReason, raceSignal, sleep, withTimeout } from "./util/timeout.js";
export { writeAtomic } from "./util/write-atomic.js";
