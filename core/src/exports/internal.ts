/**
 * `@renderkit/core/internal`: shared by the first-party packages (the server, the bundled plugins,
 * the docs scripts). Not covered by semver; third-party plugins should not import it. What only
 * tests use is not exported here: a test imports it from its module in `core/dist`.
 */
export { FsQueue, type FsQueueOptions } from "../defaults/fs-queue.js";
export { PDF_FORMAT_OPTIONS, PDF_RULES } from "../defaults/pdf-options.js";
export { secretOptionNames } from "../job-secrets.js";
export { policyLookup } from "../network/pinned-lookup.js";
export { CORE_OPTIONS } from "../options/catalogue.js";
export { CORE_RULES } from "../options/combinations.js";
export { type FormatOnlyOption, formatOnlyOptions } from "../options/format-only.js";
export { camelize, coerceOption } from "../options/parse.js";
export { DEFAULT_ADBLOCK_LISTS, DEFAULT_EGRESS_LIMITS, MIN_EGRESS_CONNECTIONS } from "../settings.js";
export { privateSideFileRender } from "../side/side-keys.js";
export { storeFailure } from "../store-failure.js";
export { isSafeId, newRenderId } from "../util/ids.js";
export { type LazyModule, lazyModule } from "../util/lazy-module.js";
export { listenOnLoopback } from "../util/listen.js";
export { Semaphore } from "../util/semaphore.js";
export { sleep } from "../util/timeout.js";
export { withDirectory } from "../util/with-directory.js";
export { writeAtomic } from "../util/write-atomic.js";
