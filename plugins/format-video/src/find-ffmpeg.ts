import { execFile } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, join } from "node:path";
import { RenderError } from "@renderkit/core";

/** Where the ffmpeg binary came from. */
export type FfmpegSource = "option" | "FFMPEG_PATH" | "ffmpeg-static" | "PATH";

export interface FfmpegBinary {
  path: string;
  source: FfmpegSource;
}

const INSTALL_HINT =
  "install ffmpeg (Debian/Ubuntu: apt-get install ffmpeg), or set FFMPEG_PATH, or pass videoFormats({ ffmpegPath })";

function executableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The binary of the `ffmpeg-static` package when it is installed and its download worked. It is
 * not a dependency of this package: its install script downloads from GitHub and fails offline
 * (CONTRIBUTING.md#rules-that-keep-this-working-offline), and it adds nothing over a system
 * ffmpeg. Users who want it install it themselves.
 */
function ffmpegStatic(): string | undefined {
  try {
    const path: unknown = createRequire(import.meta.url)("ffmpeg-static");
    return typeof path === "string" && executableFile(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function onPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, "ffmpeg");
    if (executableFile(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Finds ffmpeg (this package's README.md#plugin-options): the plugin's `ffmpegPath`, then
 * `FFMPEG_PATH`, then the `ffmpeg-static` binary when it exists on disk, then `ffmpeg` on `PATH`. A
 * configured path that does not exist is an error rather than a silent fallback. Throws
 * `EngineResponseNotOkError` naming what to install.
 */
export function findFfmpeg(explicit?: string, env: NodeJS.ProcessEnv = process.env): FfmpegBinary {
  const configured: [string | undefined, FfmpegSource][] = [
    [explicit, "option"],
    [env.FFMPEG_PATH, "FFMPEG_PATH"],
  ];
  for (const [path, source] of configured) {
    if (!path) continue;
    if (executableFile(path)) return { path, source };
    const name = source === "option" ? "videoFormats({ ffmpegPath })" : "FFMPEG_PATH";
    throw new RenderError("EngineResponseNotOkError", `Cannot make videos: ${name} is ${path}, which is not an executable file`);
  }
  const bundled = ffmpegStatic();
  if (bundled) return { path: bundled, source: "ffmpeg-static" };
  const found = onPath(env);
  if (found) return { path: found, source: "PATH" };
  throw new RenderError("EngineResponseNotOkError", `Cannot make videos: ffmpeg was not found; ${INSTALL_HINT}`);
}

/** Names of the video encoders an ffmpeg binary has (`ffmpeg -encoders`). */
export function listEncoders(path: string, timeoutMs = 10_000): Promise<Set<string>> {
  return new Promise((resolve, reject) => {
    execFile(
      path,
      ["-hide_banner", "-loglevel", "error", "-encoders"],
      { timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 4 * 1024 * 1024 },
      (error, stdout) => {
        if (error) {
          reject(
            new RenderError(
              "EngineResponseNotOkError",
              `Cannot make videos: ${path} -encoders failed (${error.message}); ${INSTALL_HINT}`,
              {
                cause: error,
              },
            ),
          );
          return;
        }
        // Lines look like " V....D libx264              libx264 H.264 / AVC ...".
        const names = stdout
          .split("\n")
          .map((line) => /^\s*V\S*\s+(\S+)/.exec(line)?.[1])
          .filter((name): name is string => name !== undefined);
        resolve(new Set(names));
      },
    );
  });
}
