/** Where the writer sends bytes (an `FfmpegProcess`). */
export interface FrameSink {
  write(chunk: Uint8Array): Promise<void>;
}

interface Run {
  data: Buffer;
  count: number;
}

/**
 * Feeds runs of frames (an image and how many output frames show it) to ffmpeg's stdin one write
 * at a time, awaiting `drain`, while the capture goes on. Repeats share one buffer, so memory
 * holds distinct images only; when ffmpeg falls so far behind that they exceed `maxBytes`, a new
 * image is refused and the previous one repeated instead (the frame count stays exact, the
 * reported frame rate shows the loss).
 */
export class FrameWriter {
  private readonly queue: Run[] = [];
  private queuedBytes = 0;
  private pumping: Promise<void> | undefined;
  private failure: unknown;
  private failed = false;
  /** Frames handed to the sink so far. */
  written = 0;

  constructor(
    private readonly sink: FrameSink,
    private readonly maxBytes: number,
  ) {}

  /** The sink's error, once a write failed (ffmpeg died); later runs are discarded. */
  get error(): unknown {
    return this.failed ? this.failure : undefined;
  }

  /** Queues `count` frames of `data`; false when it repeated the previous image instead (see class doc). */
  enqueue(data: Buffer, count: number): boolean {
    if (count <= 0 || this.failed) return !this.failed;
    const tail = this.queue.at(-1);
    if (tail?.data === data) {
      tail.count += count;
      return true;
    }
    if (tail && this.queuedBytes + data.length > this.maxBytes) {
      tail.count += count;
      return false;
    }
    this.queue.push({ data, count });
    this.queuedBytes += data.length;
    this.pumping ??= this.pump();
    return true;
  }

  private async pump(): Promise<void> {
    try {
      for (let run = this.queue[0]; run; run = this.queue[0]) {
        // `count` may grow while we write (a held frame); the loop sees it.
        while (run.count > 0) {
          run.count--;
          await this.sink.write(run.data);
          this.written++;
        }
        this.queue.shift();
        this.queuedBytes -= run.data.length;
      }
    } catch (error) {
      this.failed = true;
      this.failure = error;
      this.queue.length = 0;
      this.queuedBytes = 0;
    } finally {
      this.pumping = undefined;
    }
  }

  /** Resolves when everything queued is written; rejects with the sink's error. */
  async flush(): Promise<void> {
    while (this.pumping) await this.pumping;
    if (this.failed) throw this.failure;
  }
}
