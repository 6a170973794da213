import { type Check, type CheckContext, type DoctorCheck, fail, message } from "./types.js";

/** Share of the time a check's own steps get: they time out first, with the check's specific message and fix. */
const STEP_SHARE = 0.8;

/**
 * Runs one check within `timeoutMs`: a throw becomes a `fail` with its message, and so does
 * running out of time. The check's steps get 80% of the time, so that normally they fail on
 * their own terms (naming the command and its fix); should the check still hang, its signal
 * aborts at `timeoutMs` so that it closes what it opened (sockets, processes), and its late
 * answer is ignored.
 */
export async function runCheck(check: Check, base: Omit<CheckContext, "signal">): Promise<DoctorCheck[]> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<DoctorCheck[]>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`timed out after ${base.timeoutMs} ms`));
      resolve([
        fail(
          check.name,
          `no answer within ${base.timeoutMs} ms`,
          check.timeoutFix ?? "find out what hangs (a firewall dropping packets, a wedged disk, a tool waiting on input)",
        ),
      ]);
    }, base.timeoutMs);
  });
  const running = (async () => {
    try {
      const timeoutMs = Math.max(1, Math.floor(base.timeoutMs * STEP_SHARE));
      return await check.run({ ...base, timeoutMs, signal: controller.signal });
    } catch (error) {
      return [
        fail(
          check.name,
          `the check crashed: ${message(error)}`,
          "report this with the line above if its message does not say what to fix",
        ),
      ];
    }
  })();
  try {
    return await Promise.race([running, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
