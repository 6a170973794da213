import type { FormatSpec } from "@renderkit/core";

/** The formats this package produces (values of the `format` option). */
export type VideoFormat = "mp4" | "webm";

/** Video codecs (`video_codec`). */
export type VideoCodec = "h264" | "vp9" | "vp8";

/** Format specs registered with the renderer; both need the engine's screencast. */
export const VIDEO_FORMATS: readonly (FormatSpec & { format: VideoFormat })[] = [
  { format: "mp4", contentType: "video/mp4", extension: "mp4", requires: ["screencast"] },
  { format: "webm", contentType: "video/webm", extension: "webm", requires: ["screencast"] },
];

/** Codecs each container accepts; the first is the default. */
export const CODECS: Readonly<Record<VideoFormat, readonly VideoCodec[]>> = {
  mp4: ["h264"],
  webm: ["vp9", "vp8"],
};

/** Narrows a format value to one of ours. */
export function isVideoFormat(format: string): format is VideoFormat {
  return Object.hasOwn(CODECS, format);
}
