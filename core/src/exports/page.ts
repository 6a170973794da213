/**
 * `@renderkit/core/page`: building blocks for formatters, working on any engine's `PageSession`:
 * screenshots in sections, pre-scroll, snapshots, shape values; and for engines, whatever the
 * browser: a driver's cookie as a `PageCookie`. Experimental: may change in a minor release.
 */
export { type Capture, type CaptureSection, captureScreenshot } from "../page/capture.js";
export {
  type CaptureLimits,
  checkViewportPixels,
  MAX_CAPTURE_PIXELS,
  MAX_TOTAL_PIXELS,
  sectionHeight,
} from "../page/capture-limits.js";
export { htmlSnapshot } from "../page/html-snapshot.js";
export { extractMetadata, type PageMetadata } from "../page/metadata.js";
export { forOption, PRESCROLL_BUDGET_MS } from "../page/prepare.js";
export { MAX_CLIP_WIDTH, MAX_PAD, type Padding, parseClip, parsePadding } from "../page/shape-values.js";
export { IMAGE_WAIT_MS, type PreScrollReport, type PreScrollSettings, preScroll } from "../prepare/scroll.js";
export { hasVisibleContent, nextFrames } from "../prepare/visible-content.js";
export { type DriverCookie, pageCookie } from "../side/cookies.js";
export { ownedTempDir } from "../util/temp-dir.js";
