export { type ChannelRange, FLAT_TOLERANCE, isFlatCapture, isFlatRange, mayBeFlat } from "./blank.js";
export { type ConvertOptions, type ConvertResult, convertImage, directCaptureType } from "./convert.js";
export { DEFAULT_ENCODER, type EncodeRequest, type EncoderSettings, encode } from "./encoder.js";
export { IMAGE_FORMATS, type ImageFormat, isImageFormat, MAX_DIMENSION } from "./formats.js";
export { BLANK_RETRY_MS, ImageFormatter } from "./image-formatter.js";
export { type OutputPlan, planOutput, type Size, type ThumbRequest } from "./output-size.js";
export { type ImageFormatsOptions, imageFormats } from "./plugin.js";
export { configureSharp, defaultConcurrency } from "./sharp-setup.js";
export { INPUT_LIMIT, imageSize, type OpenedImage, openSections } from "./stitch.js";
