import type { VideoPlan, VideoPreset } from "./options.js";

/** libvpx speed settings: `deadline` and `cpu-used` (higher is faster). */
export interface VpxSpeed {
  deadline: "realtime" | "good";
  cpuUsed: number;
}

/**
 * x264 preset names mapped to libvpx-vp9 speeds. The fast half stays in `realtime` mode, which keeps
 * up with a 30 fps capture on 2 cores; `good` mode compresses 2-4× better but encodes a busy
 * 720p page at ~25 fps alone, so from `fast` on the encode finishes after the capture (see README).
 */
export const VP9_SPEEDS: Readonly<Record<VideoPreset, VpxSpeed>> = {
  ultrafast: { deadline: "realtime", cpuUsed: 8 },
  superfast: { deadline: "realtime", cpuUsed: 7 },
  veryfast: { deadline: "realtime", cpuUsed: 6 },
  faster: { deadline: "realtime", cpuUsed: 5 },
  fast: { deadline: "good", cpuUsed: 5 },
  medium: { deadline: "good", cpuUsed: 4 },
  slow: { deadline: "good", cpuUsed: 3 },
  slower: { deadline: "good", cpuUsed: 2 },
  veryslow: { deadline: "good", cpuUsed: 1 },
};

/** The same for libvpx (VP8), whose realtime speeds run from 4 to 16 and good ones from 0 to 5. */
export const VP8_SPEEDS: Readonly<Record<VideoPreset, VpxSpeed>> = {
  ultrafast: { deadline: "realtime", cpuUsed: 16 },
  superfast: { deadline: "realtime", cpuUsed: 12 },
  veryfast: { deadline: "realtime", cpuUsed: 8 },
  faster: { deadline: "realtime", cpuUsed: 6 },
  fast: { deadline: "realtime", cpuUsed: 4 },
  medium: { deadline: "good", cpuUsed: 5 },
  slow: { deadline: "good", cpuUsed: 3 },
  slower: { deadline: "good", cpuUsed: 1 },
  veryslow: { deadline: "good", cpuUsed: 0 },
};

/** `video_quality` (0..63, the libvpx quantizer scale) as an x264 CRF (0..51). */
export function x264Crf(quality: number): number {
  return Math.round((quality * 51) / 63);
}

/**
 * VP8 in constant-quality mode needs a bitrate ceiling (libvpx's default of 256 kbit/s would
 * override the CRF). 0.3 bit per pixel per frame: 8.3 Mbit/s at 1280×720×30, within 1–20 Mbit/s.
 */
export function vp8Ceiling(plan: Pick<VideoPlan, "width" | "height" | "fps">): number {
  const kbps = Math.round((plan.width * plan.height * plan.fps * 0.3) / 1000);
  return Math.min(20_000, Math.max(1_000, kbps));
}

function rateArgs(plan: VideoPlan): string[] {
  const { quality, bitrate } = plan;
  switch (plan.codec) {
    case "h264": {
      const cap = bitrate === undefined ? [] : ["-maxrate", `${bitrate}k`, "-bufsize", `${bitrate * 2}k`];
      if (quality !== undefined) return ["-crf", String(x264Crf(quality)), ...cap];
      // Average bitrate with a 1.5× peak: x264's plain ABR has no ceiling at all.
      return ["-b:v", `${bitrate}k`, "-maxrate", `${Math.round((bitrate ?? 0) * 1.5)}k`, "-bufsize", `${(bitrate ?? 0) * 2}k`];
    }
    case "vp9":
      // CRF with `-b:v 0` is constant quality; with a bitrate it is libvpx's constrained quality.
      if (quality !== undefined) return ["-crf", String(quality), "-b:v", bitrate === undefined ? "0" : `${bitrate}k`];
      return ["-b:v", `${bitrate}k`];
    case "vp8":
      // libvpx's VP8 refuses a CRF below 4.
      if (quality !== undefined) return ["-crf", String(Math.max(4, quality)), "-b:v", `${bitrate ?? vp8Ceiling(plan)}k`];
      return ["-b:v", `${bitrate}k`];
  }
}

function codecArgs(plan: VideoPlan): string[] {
  switch (plan.codec) {
    case "h264":
      return ["-c:v", "libx264", "-preset", plan.preset, "-movflags", "+faststart"];
    case "vp9": {
      const speed = VP9_SPEEDS[plan.preset];
      return ["-c:v", "libvpx-vp9", "-deadline", speed.deadline, "-cpu-used", String(speed.cpuUsed), "-row-mt", "1"];
    }
    case "vp8": {
      const speed = VP8_SPEEDS[plan.preset];
      return ["-c:v", "libvpx", "-deadline", speed.deadline, "-cpu-used", String(speed.cpuUsed)];
    }
  }
}

/** The ffmpeg encoder each codec needs (checked against `ffmpeg -encoders`). */
export const ENCODERS = { h264: "libx264", vp9: "libvpx-vp9", vp8: "libvpx" } as const;

/**
 * The filter chain: the kept part of each frame (`plan.crop`, in device pixels of a
 * `captureWidth` × `captureHeight` frame, for `selector` and for `video_width` with
 * `video_height`), scaled to the output size with the colour conversion.
 */
export function videoFilter(plan: Pick<VideoPlan, "crop" | "width" | "height" | "captureWidth" | "captureHeight">): string {
  const { crop, captureWidth: cw, captureHeight: ch } = plan;
  // Relative to the frame's own size: Chromium's screencast sends frames in CSS pixels at a
  // device_scale_factor above 1 while a screenshot (the first-frame fallback) has device pixels.
  const cut = crop
    ? `crop=w=iw*${crop.width}/${cw}:h=ih*${crop.height}/${ch}:x=iw*${crop.x}/${cw}:y=ih*${crop.y}/${ch}:exact=1,`
    : "";
  return `${cut}scale=${plan.width}:${plan.height}:out_color_matrix=bt709:out_range=tv,format=yuv420p`;
}

/**
 * ffmpeg's arguments: JPEG frames on stdin at the output rate (one image per output frame, the
 * resampling is ours), cut to `plan.crop` when set, scaled to the even output size and converted from JPEG's full-range BT.601
 * to limited-range BT.709, tagged as such (players assume BT.709 for HD; untagged BT.601 shifts
 * reds), yuv420p for every player, written to `output` (a file: `+faststart` and WebM's duration
 * and cues need a seekable output).
 */
export function ffmpegArgs(plan: VideoPlan, output: string): string[] {
  return [
    "-hide_banner",
    "-nostats",
    "-loglevel",
    "error",
    "-f",
    "image2pipe",
    "-c:v",
    "mjpeg",
    "-framerate",
    String(plan.fps),
    "-i",
    "pipe:0",
    "-vf",
    videoFilter(plan),
    "-colorspace",
    "bt709",
    "-color_primaries",
    "bt709",
    "-color_trc",
    "bt709",
    "-pix_fmt",
    "yuv420p",
    ...codecArgs(plan),
    ...rateArgs(plan),
    "-an",
    "-y",
    output,
  ];
}
