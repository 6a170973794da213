/**
 * `@renderkit/core`: the plugin surface. Contracts, tokens, `definePlugin`, `createRenderer`,
 * errors, events and option builders. Stable: follows semver (docs/plugins.md).
 */
import "reflect-metadata";

export type { AddressChecker, Denial, ResolvedAddress, UpstreamProxy } from "./contracts/address.js";
export type {
  Box,
  PdfSettings,
  Screencast,
  ScreencastFrame,
  ScreencastSettings,
  ScreenshotSettings,
} from "./contracts/capture-settings.js";
export type { DestinationRequest, DestinationResolver, RenderDestination } from "./contracts/destination.js";
export type { Engine, EngineCapability, EngineStats } from "./contracts/engine.js";
export type { FinalRenderEvent, RenderEvent, RenderResult, RenderStatus } from "./contracts/events.js";
export type { FormatContext, FormatOptions, FormatOutput, FormatSpec, Formatter, SideRenderKind } from "./contracts/formatter.js";
export type { RenderJobInfo } from "./contracts/job.js";
export type { Logger } from "./contracts/logger.js";
export type { Notifier } from "./contracts/notifier.js";
export type { OptionRule } from "./contracts/option-rule.js";
export type {
  BooleanSpec,
  EnumSpec,
  FormatOnly,
  LengthSpec,
  NumberSpec,
  OptionSpec,
  OptionsOf,
  OptionTable,
  StringListSpec,
  StringSpec,
} from "./contracts/option-spec.js";
export type {
  ElementQuery,
  PageCookie,
  PageResponse,
  PageSession,
  ResourceRecord,
  ResourceReport,
} from "./contracts/page-session.js";
export type {
  CookieSpec,
  EgressLimits,
  PageSettings,
  PageTarget,
  RequestFilter,
  RequestInfo,
  ResourceKind,
  WaitUntil,
} from "./contracts/page-settings.js";
export { type JobHandler, JobNotDone, type Queue, type QueueCounts, type QueueJob } from "./contracts/queue.js";
export type { RenderOptions } from "./contracts/render-options.js";
export type { RunGate, RunGateRequest } from "./contracts/run-gate.js";
export type { ByteRange, Storage, StoredMeta, StoredObject } from "./contracts/storage.js";
export { CORE_VERSION } from "./core-version.js";
export { type CreateRendererOptions, createRenderer } from "./create-renderer.js";
export { ConsoleLogger } from "./defaults/console-logger.js";
export { assertStorageKey } from "./defaults/fs-storage.js";
export { ERROR_CODES, type ErrorCode, isRenderError, RenderError, toRenderError } from "./errors.js";
export { type JobSecrets, keyedJobSecrets } from "./job-secrets.js";
export { AddressPolicy, type AddressPolicyOptions, type Lookup } from "./network/address-policy.js";
export { hostAndPort, pinnedLookup } from "./network/pinned-lookup.js";
export { type ParsedOptions, parseOptions, snakeName } from "./options/parse.js";
export * from "./options/spec.js";
export { definePlugin, type PluginContext, type PluginManifest } from "./plugin.js";
export type { RenderListener } from "./render-events.js";
export type { RenderJobData } from "./render-job.js";
export { Renderer, type SubmitOptions } from "./renderer.js";
export type { RendererSettings } from "./settings.js";
export { ENGINE, FORMATTER, LOGGER, NOTIFIER, QUEUE, SETTINGS, STORAGE } from "./tokens.js";
export type { RenderOrigin } from "./util/ids.js";
export { abortReason, raceSignal, withTimeout } from "./util/timeout.js";
