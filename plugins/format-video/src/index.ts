export { CAPTURE_TIMING, type CaptureStats, captureFrames, FRAME_QUALITY, PAINTED_SCRIPT } from "./capture.js";
export { DEFAULT_EASING, EASING_SOURCE, EASINGS, type Easing, easingFunction } from "./easing.js";
export { ENCODERS, ffmpegArgs, VP8_SPEEDS, VP9_SPEEDS, type VpxSpeed, videoFilter, vp8Ceiling, x264Crf } from "./encoder-args.js";
export { type FfmpegExit, FfmpegProcess, type FfmpegProcessOptions, STDERR_LIMIT } from "./ffmpeg-process.js";
export { type FfmpegBinary, type FfmpegSource, findFfmpeg, listEncoders } from "./find-ffmpeg.js";
export { CODECS, isVideoFormat, VIDEO_FORMATS, type VideoCodec, type VideoFormat } from "./formats.js";
export { type FrameSink, FrameWriter } from "./frame-writer.js";
export {
  ASPECT_RANGE,
  aspectAgrees,
  type ElementView,
  type FrameGeometry,
  frameGeometry,
  LOCATE_SCRIPT,
  locateElement,
  MAX_VIDEO_SIDE,
  parseAspect,
} from "./geometry.js";
export {
  DEFAULT_QUALITY,
  MAX_VIDEO_PIXELS,
  planVideo,
  VIDEO_OPTIONS,
  VIDEO_PRESETS,
  type VideoPlan,
  type VideoPreset,
  videoAspect,
} from "./options.js";
export { type VideoFormatsOptions, videoFormats } from "./plugin.js";
export { type FrameEmitter, FrameResampler, type ResampleStats } from "./resampler.js";
export { checkVideoRules, VIDEO_RULES } from "./rules.js";
export { TOUR_FRACTION_SOURCE, TOUR_SCRIPT, TOUR_STEP_SCRIPT, tourFraction, tourLength } from "./tour.js";
export {
  DEFAULT_DURATION,
  givenPhases,
  MAX_DURATION,
  MIN_DURATION,
  planTour,
  TOUR_OPTIONS,
  type TourPlan,
  tourTiming,
} from "./tour-options.js";
export { DEFAULT_VIDEO_SETTINGS, VideoFormatter, type VideoFormatterSettings } from "./video-formatter.js";
