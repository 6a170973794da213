import { Worker } from "bullmq";
import type { StoredJob } from "./stored-job.js";

/** BullMQ's worker, plus a way out when its `close()` cannot finish because Redis is gone. */
export class RenderWorker extends Worker<StoredJob, void> {
  /**
   * Stops the timers that `close()` stops only after its Redis round trips: the lock renewal
   * (`LockManager`, closed after the running jobs were recorded) and the stall check (stopped
   * by `pause`). Without this, a worker closed during an outage would keep the process alive.
   */
  halt(): void {
    void this.lockManager.close();
    this.pause(true).catch(() => undefined);
  }
}
