/**
 * Receives a run of output frames: `count` copies of `data`. Returns false when it could not take
 * a new image and repeated the one before instead (its buffer is full); the resampler then does
 * not count `data` as shown.
 */
export type FrameEmitter = (data: Buffer, count: number) => boolean;

/** Counts of one resampled capture. */
export interface ResampleStats {
  /** Output frames emitted so far (`total` once finished). */
  frames: number;
  /** Distinct images in the output: frames that differ from the one before. */
  distinct: number;
  /** Frames received from the browser (including those replaced within one output frame). */
  received: number;
  /**
   * Images never shown: refused by the emitter (its buffer was full) and replaced by the previous
   * one, or painted before the image already held (they arrived out of capture order: see `push`).
   */
  dropped: number;
}

/** Tolerance for float error at frame boundaries (a microsecond). */
const EPSILON = 1e-6;

/**
 * Turns frames painted at irregular times into exactly `total` frames at `fps`: output frame `i`
 * (at `i / fps` seconds) shows the frame painted nearest that time, of the last one painted at or
 * before it and the first one painted after it, when that one comes within half an output
 * interval (a tie goes to the later frame). So a page that paints less often than `fps` has its
 * frames held, and of frames painted within one output interval at most the nearest shows. Against
 * the last frame at or before each time, no picture is shown more than half an interval early,
 * none more than one late, and screencast frames, which Chromium sends in bunches, reach more
 * output frames: 1.0 to 2.3 more distinct frames a second on recorded 30 fps captures
 * (docs/performance.md, "Video"). Time 0 is the first frame's time. Emits as it goes, so encoding
 * runs during the capture: a frame is emitted once the next one arrives or `advance()` says that
 * time passed.
 */
export class FrameResampler {
  private start: number | undefined;
  private current: Buffer | undefined;
  /** Paint time of `current`. */
  private currentTime = Number.NEGATIVE_INFINITY;
  private lastEmitted: Buffer | undefined;
  private currentShown = false;
  private currentRefused = false;
  private written = 0;
  readonly stats: ResampleStats = { frames: 0, distinct: 0, received: 0, dropped: 0 };

  constructor(
    private readonly fps: number,
    private readonly total: number,
    private readonly emit: FrameEmitter,
  ) {
    if (!Number.isInteger(total) || total < 1) throw new RangeError(`total must be a positive integer, got ${total}`);
  }

  /** True once the first frame arrived. */
  get started(): boolean {
    return this.start !== undefined;
  }

  /** Time of the video's end on the frames' clock (undefined before the first frame). */
  get endTime(): number | undefined {
    return this.start === undefined ? undefined : this.start + this.total / this.fps;
  }

  /** True when every output frame has been emitted. */
  get done(): boolean {
    return this.written >= this.total;
  }

  /** Half an output interval (seconds): how far ahead of an output frame's time a frame may be shown. */
  private get half(): number {
    return 0.5 / this.fps;
  }

  /** Output frames strictly before `time` (seconds, frames' clock), bounded by `total`. */
  private slotsBefore(time: number): number {
    const offset = time - (this.start ?? time);
    return Math.min(this.total, Math.max(0, Math.ceil(offset * this.fps - EPSILON)));
  }

  /** Emits the current frame for every output frame up to (not including) `upTo`. */
  private fill(upTo: number): void {
    const count = upTo - this.written;
    if (count <= 0 || !this.current) return;
    const data = this.current;
    if (this.emit(data, count)) {
      if (!this.currentShown) {
        if (!this.lastEmitted?.equals(data)) this.stats.distinct++;
        this.lastEmitted = data;
        this.currentShown = true;
      }
    } else {
      this.currentRefused = true;
    }
    this.written = upTo;
    this.stats.frames = upTo;
  }

  /** Replaces the held frame; one the emitter refused and never took counts as dropped. */
  private hold(data: Buffer): void {
    if (this.currentRefused && !this.currentShown) this.stats.dropped++;
    this.current = data;
    this.currentShown = false;
    this.currentRefused = false;
  }

  /**
   * A frame painted at `time` (seconds). A frame painted before the one already held came out of
   * capture order (a screenshot taken meanwhile, or a paint Chromium's encoder finished late) and is
   * dropped: showing it would step the video back in time. One painted before `advance()`'s time
   * but after the held one is shown from now on.
   */
  push(data: Buffer, time: number): void {
    this.stats.received++;
    if (time < this.currentTime) {
      this.stats.dropped++;
      return;
    }
    this.start ??= time;
    // The held frame keeps the output frames before this one's reach: those nearer the held frame,
    // and those more than half an interval before this one.
    this.fill(this.slotsBefore(Math.max((this.currentTime + time) / 2, time - this.half)));
    this.hold(data);
    this.currentTime = time;
  }

  /**
   * Declares that no frame painted before `time` is still to come: emits the held frame for every
   * output frame no later frame could be shown in (those over half an interval before `time`).
   */
  advance(time: number): void {
    if (this.start !== undefined) this.fill(this.slotsBefore(time - this.half));
  }

  /** Ends the capture: the last frame is held to the end. Throws when no frame ever came. */
  finish(): void {
    if (!this.current) throw new Error("no frame was captured");
    this.fill(this.total);
    if (this.currentRefused && !this.currentShown) this.stats.dropped++;
  }
}
