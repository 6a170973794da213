import type { PageSession } from "../../contracts/page-session.js";
import { RenderError } from "../../errors.js";
import { sleep } from "../../util/timeout.js";
import { type FrameProgress, RECORD_KEY } from "./agent.js";

/** How the wait for autoconsent ended. */
export type AutoconsentOutcome =
  /** A rule finished its opt-out / opt-in. */
  | "done"
  /** A popup was found but its rule did not finish. */
  | "failed"
  /** No frame found a consent popup it knows. */
  | "nothing"
  /** The budget ran out while a frame was still working. */
  | "timeout"
  /** autoconsent could not run in the page (no script, or the page refused it). */
  | "unavailable";

export interface AutoconsentResult {
  outcome: AutoconsentOutcome;
  /** Rule that handled (or found) a popup. */
  cmp?: string;
  /** Progress reads taken. */
  polls: number;
}

/** Pause between two progress reads, in ms. */
const POLL_MS = 150;
/**
 * A frame still "started" that has run two detection passes and none since this long has
 * found nothing: the library retries every 500 ms, and after the second pass only once the DOM
 * changes.
 */
const QUIET_MS = 700;
/** Longest wait for the popup of a detected CMP to show. */
const POPUP_WAIT_MS = 2_500;
/** Longest wait for a frame whose detection has not started. */
const START_WAIT_MS = 1_500;

const FINISHED = new Set(["nothingDetected", "done", "optOutSucceeded", "optOutFailed", "optInSucceeded", "optInFailed"]);

interface FrameView extends FrameProgress {
  /** Since the last detection pass began, ms. */
  idleMs: number;
  /** Since the lifecycle last changed, ms. */
  sinceMs: number;
}

type Probe = { status: "missing" | "stale" } | { status: "ok"; frames: FrameView[] };

/** In the page: the progress of every frame (serialised; self-contained). */
function probeProgress(key: string): Probe {
  const record = (window as unknown as Record<string, unknown>)[key] as
    | { root: Element | null; frames: Record<string, FrameProgress & { attemptAt: number; changedAt: number }> }
    | undefined;
  if (!record) return { status: "missing" };
  if (record.root !== null && record.root !== document.documentElement) return { status: "stale" };
  const now = performance.now();
  const frames = Object.values(record.frames).map(({ attemptAt, changedAt, ...f }) => ({
    ...f,
    idleMs: now - attemptAt,
    sinceMs: now - changedAt,
  }));
  return { status: "ok", frames };
}

function settled(frame: FrameView, anyDone: boolean): boolean {
  if (FINISHED.has(frame.lifecycle)) return true;
  switch (frame.lifecycle) {
    case "started":
      return frame.attempts >= 2 && frame.idleMs >= QUIET_MS;
    case "cmpDetected":
      return frame.popup === undefined && (anyDone || frame.sinceMs >= POPUP_WAIT_MS);
    case "openPopupDetected":
    case "runningOptOut":
    case "runningOptIn":
      return false;
    default:
      return frame.sinceMs >= START_WAIT_MS;
  }
}

function summary(frames: FrameView[], timedOut: boolean, polls: number): AutoconsentResult {
  const done = frames.find((f) => f.done !== undefined)?.done ?? frames.find((f) => f.result === true)?.popup;
  if (done) return { outcome: "done", cmp: done, polls };
  const popup = frames.find((f) => f.popup !== undefined)?.popup;
  const outcome = timedOut ? "timeout" : popup ? "failed" : "nothing";
  return { outcome, ...(popup ? { cmp: popup } : {}), polls };
}

/** Page errors (navigation, refused script) end the consent step quietly; a lost browser does not. */
function rethrowFatal(error: unknown): void {
  if (error instanceof RenderError) throw error;
}

/**
 * Waits (at most `budgetMs`) until autoconsent settled in every frame that runs it. Installs
 * the agent into the main frame first when its init script did not run there (a document the
 * engine wrote in place, or an engine without init scripts).
 */
export async function awaitAutoconsent(
  session: PageSession,
  script: () => string,
  budgetMs: number,
  signal: AbortSignal,
): Promise<AutoconsentResult> {
  const startedAt = Date.now();
  let polls = 0;
  let installed = false;
  for (;;) {
    let probe: Probe;
    try {
      polls++;
      probe = await session.evaluate<Probe>(probeProgress.toString(), RECORD_KEY);
      if (probe.status !== "ok") {
        if (installed) return { outcome: "unavailable", polls };
        installed = true;
        await session.evaluate(`() => {\nwindow[${JSON.stringify(`${RECORD_KEY}Late`)}] = true;\n${script()}\n}`);
        continue;
      }
    } catch (error) {
      rethrowFatal(error);
      return { outcome: "unavailable", polls };
    }
    const { frames } = probe;
    const anyDone = frames.some((f) => f.done !== undefined);
    if (frames.length > 0 && frames.every((f) => settled(f, anyDone))) return summary(frames, false, polls);
    const elapsed = Date.now() - startedAt;
    if (frames.length === 0 && elapsed >= START_WAIT_MS) return { outcome: "unavailable", polls };
    const left = budgetMs - elapsed;
    if (left <= 0) return summary(frames, true, polls);
    await sleep(Math.min(POLL_MS, left), signal);
  }
}
