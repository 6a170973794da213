export { CAPTURE_TIMING, type CaptureStats, captureFrames, FRAME_QUALITY, PAINTED_SCRIPT, SCROLL_SCRIPT } from "./capture.js";
export { ENCODERS, ffmpegArgs, VP8_SPEEDS, VP9_SPEEDS, type VpxSpeed, videoFilter, vp8Ceiling, x264Crf } from "./encoder-args.js";
export { type FfmpegExit, FfmpegProcess, type FfmpegProcessOptions, STDERR_LIMIT } from "./ffmpeg-process.js";
export { type FfmpegBinary, type FfmpegSource, findFfmpeg, listEncoders } from "./find-ffmpeg.js";
export { CODECS, isVideoFormat, VIDEO_FORMATS, type VideoCodec, type VideoFormat } from "./formats.js";
export { type FrameSink, FrameWriter } from "./frame-writer.js";
export {
  type ElementView,
  type FrameGeometry,
  frameGeometry,
  LOCATE_SCRIPT,
  locateElement,
  MAX_VIDEO_SIDE,
} from "./geometry.js";
export {
  DEFAULT_QUALITY,
  MAX_VIDEO_PIXELS,
  planVideo,
  VIDEO_OPTIONS,
  VIDEO_PRESETS,
  type VideoPlan,
  type VideoPreset,
} from "./options.js";
export { type VideoFormatsOptions, videoFormats } from "./plugin.js";
export { type FrameEmitter, FrameResampler, type ResampleStats } from "./resampler.js";
export { checkVideoRules, VIDEO_RULES } from "./rules.js";
export { DEFAULT_VIDEO_SETTINGS, VideoFormatter, type VideoFormatterSettings } from "./video-formatter.js";
