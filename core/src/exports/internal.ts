/**
 * `@renderkit/core/internal`: shared by the first-party packages (the server, the bundled plugins,
 * the docs scripts). Not covered by semver; third-party plugins should not import it.
 */
export { FsQueue, type FsQueueOptions } from "../defaults/fs-queue.js";
export { FsStorage } from "../defaults/fs-storage.js";
export { HtmlFormatter } from "../defaults/html-formatter.js";
export { MemoryQueue } from "../defaults/memory-queue.js";
export { MHTML_SPEC, MhtmlFormatter, mhtmlSnapshot } from "../defaults/mhtml-formatter.js";
export { PdfFormatter, pdfSettings } from "../defaults/pdf-formatter.js";
export { PAPER_SIZES, type PaperSize, PDF_FORMAT_OPTIONS, PDF_RULES } from "../defaults/pdf-options.js";
export { openSecretOptions, sealSecretOptions, secretOptionNames } from "../job-secrets.js";
export type { Denial } from "../network/address-policy.js";
export { isPublicAddress } from "../network/ip-ranges.js";
export { policyLookup } from "../network/pinned-lookup.js";
export { CORE_OPTIONS } from "../options/catalogue.js";
export { BLOCK_KINDS, MAX_HEIGHT, PAGE_OPTIONS } from "../options/catalogue-page.js";
export { checkObjectKey, checkStorageOptions, S3_STORAGE_CLASSES, STORAGE_OPTIONS } from "../options/catalogue-storage.js";
export { CORE_RULES, checkCombinations } from "../options/combinations.js";
export { type FormatOnlyOption, formatOnlyOptions, ignoredForFormat, mergeOptionTables } from "../options/format-only.js";
export { camelize, coerceOption, lengthToPx } from "../options/parse.js";
export { AdblockLists, type AdblockSettings, type AdblockTuning } from "../prepare/adblock/index.js";
export { type ConsentMode, type ConsentReport, consentInitScript, settleConsent } from "../prepare/consent/index.js";
export { EngineRegistry, FormatterRegistry } from "../registry.js";
export { RenderEvents } from "../render-events.js";
export { DEFAULT_ADBLOCK_LISTS, DEFAULT_EGRESS_LIMITS, MIN_EGRESS_CONNECTIONS, resolveSettings } from "../settings.js";
export { PRIVATE_SIDE_SUFFIXES, privateSideFileRender, sideFileKey } from "../side/side-keys.js";
export { storeFailure } from "../store-failure.js";
export { isSafeId, newRenderId } from "../util/ids.js";
export { type LazyModule, lazyModule } from "../util/lazy-module.js";
export { listenOnLoopback } from "../util/listen.js";
export { Semaphore } from "../util/semaphore.js";
export { sweepStaleTempDirs } from "../util/temp-dir.js";
export { sleep } from "../util/timeout.js";
export { withDirectory } from "../util/with-directory.js";
export { writeAtomic } from "../util/write-atomic.js";
