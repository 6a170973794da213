/**
 * `@renderkit/core/testing`: the contract suites every Engine, Formatter, Storage, Queue and Notifier runs
 * (first- and third-party alike), the small helpers they are built from, and a fake engine for
 * unit tests without a browser (`FakeEngine`).
 * Needs `vitest` (an optional peer dependency of the core).
 */
export { type CodedError, delay, expectRenderError, readAll } from "./assertions.js";
export { A4_PDF } from "./engine-checks-capture.js";
export { engineContract } from "./engine-contract.js";
export { colourHtml, SCRIPTED_HTML } from "./engine-fixture.js";
export { type EngineContractOptions, EngineHarness } from "./engine-harness.js";
export {
  type EngineLifecycleContractOptions,
  engineLifecycleContract,
  type LifecycleEngine,
  type LifecycleOptions,
} from "./engine-lifecycle.js";
export { FakeEngine, type FakeEngineOptions, type FakeFault, fakeEngine } from "./fake-engine.js";
export { type FakeEvaluate, FakePage } from "./fake-page.js";
export { type FixtureRequest, type FixtureRoute, type FixtureServer, startFixtureServer } from "./fixture-server.js";
export { formatterContract } from "./formatter-contract.js";
export { FIXTURE_BACKGROUND, FIXTURE_PAGE, FIXTURE_TEXT } from "./formatter-fixture.js";
export type { FormatterContractOptions, FormatterSample } from "./formatter-harness.js";
export {
  failedEvent,
  type NotifierContractOptions,
  type NotifierUnderTest,
  notifierContract,
  succeededEvent,
} from "./notifier-contract.js";
export { makePageSettings } from "./page-settings.js";
export { type DecodedPng, decodePng, isPng, pngSize } from "./png.js";
export { type QueueContractOptions, queueContract, queueJob } from "./queue-contract.js";
export { type LogEntry, RecordingLogger } from "./recording-logger.js";
export { type StorageContractOptions, storageContract } from "./storage-contract.js";
