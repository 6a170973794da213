import { accessSync, constants } from "node:fs";
import { tmpdir } from "node:os";
import { RenderError } from "../../index.js";

/**
 * Longest Unix socket path (`sun_path` less its terminating NUL). Chromium puts its singleton
 * socket at `$TMPDIR/.org.chromium.Chromium.XXXXXX/SingletonSocket`, and TMPDIR is the profile's
 * `tmp`: past this length it aborts at launch.
 */
const MAX_SOCKET_PATH = 107;
/** `renderkit-chromium-XXXXXX/tmp/.org.chromium.Chromium.XXXXXX/SingletonSocket` and its slash. */
const SOCKET_SUFFIX = "/renderkit-chromium-XXXXXX/tmp/.org.chromium.Chromium.XXXXXX/SingletonSocket".length;

/**
 * Where the profile goes: the system temp directory, or `/tmp` when TMPDIR is so long that
 * Chromium's socket would not fit (it would abort at launch with no useful message).
 */
export function profileBase(base = tmpdir()): string {
  if (Buffer.byteLength(base) + SOCKET_SUFFIX <= MAX_SOCKET_PATH) return base;
  try {
    accessSync("/tmp", constants.W_OK);
    return "/tmp";
  } catch {
    throw new RenderError(
      "EngineResponseNotOkError",
      `Chromium cannot start: the temp directory ${base} is too long for its socket (at most ${MAX_SOCKET_PATH - SOCKET_SUFFIX} bytes) and /tmp is not writable; set TMPDIR to a shorter path`,
    );
  }
}
