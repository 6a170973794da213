import { findChromium } from "@renderkit/core/chromium";
import { findFfmpeg, listEncoders } from "@renderkit/format-video";
import { firstLine, onPath, runCommand } from "./run-command.js";
import { type Check, type CheckContext, type DoctorCheck, fail, message, ok, warn } from "./types.js";

/** Line of an API node, which renders nothing: browsers, ffmpeg and fonts live on workers. */
export const NOT_NEEDED = "not needed on an API node";

/** Runs `path flag` and returns its first line, or why it would not run. */
async function version(path: string, flag: string, context: CheckContext): Promise<{ line: string } | { error: string }> {
  try {
    const result = await runCommand(path, [flag], { timeoutMs: context.timeoutMs, signal: context.signal, env: context.env });
    // pdftocairo prints its version on stderr; a non-zero exit usually names a missing library there.
    const line = firstLine(result.stdout) || firstLine(result.stderr);
    if (result.code !== 0) return { error: `${path} ${flag} exited with ${result.code}: ${line || "no output"}` };
    return { line };
  } catch (error) {
    return { error: message(error) };
  }
}

const CHROMIUM_FIX = "apt-get install chromium, or set RENDERKIT_CHROMIUM to a Chromium or Chrome executable";

/** The Chromium the engines would launch, and that it starts (`--version`). */
export const chromiumCheck: Check = {
  name: "chromium",
  timeoutFix: `${CHROMIUM_FIX}; run it with --version by hand to see where it hangs`,
  async run(context) {
    if (context.role === "api") return [ok(this.name, NOT_NEEDED)];
    const configured = context.env.RENDERKIT_CHROMIUM?.trim() || undefined;
    let path: string;
    try {
      path = findChromium(configured);
    } catch (error) {
      const now = configured ? ` (RENDERKIT_CHROMIUM is now ${configured})` : "";
      return [fail(this.name, message(error), `${CHROMIUM_FIX}${now}`)];
    }
    const found = await version(path, "--version", context);
    if ("error" in found) return [fail(this.name, `${path} does not run: ${found.error}`, CHROMIUM_FIX)];
    return [ok(this.name, `${path} (${found.line})`)];
  },
};

const FFMPEG_FIX = "apt-get install ffmpeg, or set FFMPEG_PATH to an ffmpeg executable";
/** Encoders the video formats use: mp4 is H.264 only, webm is VP9 by default with VP8 as the other choice. */
const VIDEO_ENCODERS = [
  { format: "mp4", names: ["libx264"] },
  { format: "webm", names: ["libvpx-vp9", "libvpx"] },
] as const;

/** The ffmpeg the video formats would use, that it runs, and the encoders of mp4 and webm. */
export const ffmpegCheck: Check = {
  name: "ffmpeg",
  timeoutFix: FFMPEG_FIX,
  async run(context) {
    if (context.role === "api") return [ok(this.name, NOT_NEEDED)];
    let path: string;
    try {
      path = findFfmpeg(undefined, context.env).path;
    } catch (error) {
      return [fail(this.name, message(error), FFMPEG_FIX)];
    }
    const found = await version(path, "-version", context);
    if ("error" in found) return [fail(this.name, `${path} does not run: ${found.error}`, FFMPEG_FIX)];
    let encoders: Set<string>;
    try {
      encoders = await listEncoders(path, context.timeoutMs);
    } catch (error) {
      return [fail(this.name, message(error), FFMPEG_FIX)];
    }
    const out: DoctorCheck[] = [ok(this.name, `${path} (${found.line.replace(/\s*Copyright.*$/, "")})`)];
    for (const { format, names } of VIDEO_ENCODERS) {
      const missing = names.filter((name) => !encoders.has(name));
      if (missing.length === 0) continue;
      // Debian's ffmpeg has them all; a minimal or static build may lack the GPL or VPx encoders.
      const status = missing.length === names.length ? "fail" : "warn";
      out.push({
        name: this.name,
        status,
        detail: `${path} lacks the ${missing.join(", ")} encoder${missing.length > 1 ? "s" : ""} that ${format} renders use`,
        fix: `apt-get install ffmpeg (Debian's build has libx264, libvpx-vp9 and libvpx), or set FFMPEG_PATH to a build with ${missing.join(" and ")}`,
      });
    }
    return out;
  },
};

/** pdftocairo, which only the svg format's `pdf` method needs: a warning when missing, as `dom` still works. */
export const pdftocairoCheck: Check = {
  name: "pdftocairo",
  async run(context) {
    if (context.role === "api") return [ok(this.name, NOT_NEEDED)];
    // The same lookup as the svg plugin: PDFTOCAIRO_PATH, else the name on PATH.
    const path = onPath(context.env.PDFTOCAIRO_PATH || "pdftocairo", context.env);
    const found = await version(path, "-v", context);
    if ("error" in found) {
      const why = found.error.includes("ENOENT") ? `${path} not found` : found.error;
      return [
        warn(
          this.name,
          `${why}: svg renders fail unless they ask for svg_method dom (pdf, the default, converts with pdftocairo)`,
          "apt-get install poppler-utils, or set PDFTOCAIRO_PATH to a pdftocairo executable",
        ),
      ];
    }
    return [ok(this.name, `${path} (${found.line})`)];
  },
};
