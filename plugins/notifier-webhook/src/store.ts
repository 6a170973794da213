import { createHash, randomUUID } from "node:crypto";
import { link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** One failed attempt, as stored (never the body of the answer). */
export interface AttemptError {
  attempt: number;
  at: number;
  reason: string;
  status?: number;
}

/** A delivery not yet done: `<dir>/pending/<renderId>.json`. */
export interface PendingDelivery {
  version: 1;
  renderId: string;
  /** The webhook address; may carry a receiver's token, so it is stored but never logged. */
  url: string;
  projectId?: string;
  /** The exact bytes every attempt sends. */
  body: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (ms since the epoch). */
  nextAttemptAt: number;
  createdAt: number;
  errors: AttemptError[];
}

/** `<dir>/delivered/<renderId>.json`: small, kept so a late duplicate is recognised. */
export interface DeliveredRecord {
  renderId: string;
  host: string;
  status: number;
  attempts: number;
  createdAt: number;
  deliveredAt: number;
}

/** `<dir>/failed/<renderId>.json`: the whole delivery (for a manual replay) and why it failed. */
export interface FailedDelivery extends PendingDelivery {
  failedAt: number;
  reason: string;
}

export type DeliveryState = "pending" | "delivered" | "failed";

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;
const STATES: readonly DeliveryState[] = ["pending", "delivered", "failed"];

/** File name of a render's delivery; ids that are not plain names are hashed (ids are opaque). */
export function deliveryFileName(renderId: string): string {
  return SAFE_NAME.test(renderId) ? `${renderId}.json` : `~${createHash("sha256").update(renderId).digest("hex")}.json`;
}

/**
 * The delivery files. Every write is atomic (temp file in `<dir>/tmp`, then rename or link);
 * a delivery moves to `delivered/` or `failed/` before it leaves `pending/`, so at every moment
 * at least one file records it.
 */
export class DeliveryStore {
  private readonly tmp: string;

  constructor(readonly dir: string) {
    this.tmp = join(dir, "tmp");
  }

  private path(state: DeliveryState, renderId: string): string {
    return join(this.dir, state, deliveryFileName(renderId));
  }

  async init(): Promise<void> {
    for (const sub of [...STATES, "tmp"]) await mkdir(join(this.dir, sub), { recursive: true });
  }

  private async temp(data: unknown): Promise<string> {
    const file = join(this.tmp, `${randomUUID()}.tmp`);
    await writeFile(file, JSON.stringify(data), { flush: true });
    return file;
  }

  private async write(target: string, data: unknown): Promise<void> {
    const file = await this.temp(data);
    try {
      await rename(file, target);
    } catch (error) {
      await rm(file, { force: true });
      throw error;
    }
  }

  /** Writes a new pending delivery; false when one for this render is already pending. */
  async create(delivery: PendingDelivery): Promise<boolean> {
    const target = this.path("pending", delivery.renderId);
    const file = await this.temp(delivery);
    try {
      // link() fails when the target exists: an exclusive create of a complete file.
      await link(file, target);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return false;
      // File systems without hard links: check, then rename (exclusive within this process only).
      if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS") throw error;
      if (await stat(target).catch(() => undefined)) return false;
      await rename(file, target);
      return true;
    } finally {
      await rm(file, { force: true });
    }
  }

  /** Saves the attempt count and the next due time. */
  update(delivery: PendingDelivery): Promise<void> {
    return this.write(this.path("pending", delivery.renderId), delivery);
  }

  async delivered(delivery: PendingDelivery, record: DeliveredRecord): Promise<void> {
    await this.write(this.path("delivered", delivery.renderId), record);
    await rm(this.path("pending", delivery.renderId), { force: true });
  }

  async failed(delivery: FailedDelivery): Promise<void> {
    await this.write(this.path("failed", delivery.renderId), delivery);
    await rm(this.path("pending", delivery.renderId), { force: true });
  }

  /** Removes a pending file whose delivery is already recorded as delivered or failed. */
  discard(renderId: string): Promise<void> {
    return rm(this.path("pending", renderId), { force: true });
  }

  /** Where a render's delivery stands, read from the files (`undefined`: never seen). */
  async state(
    renderId: string,
    states: readonly DeliveryState[] = ["delivered", "failed", "pending"],
  ): Promise<DeliveryState | undefined> {
    for (const state of states) {
      if (await stat(this.path(state, renderId)).catch(() => undefined)) return state;
    }
    return undefined;
  }

  /** Reads a stored record (tests and operators); `undefined` when absent or unreadable. */
  async read(state: DeliveryState, renderId: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.path(state, renderId), "utf8"));
    } catch {
      return undefined;
    }
  }

  /** Every pending delivery; unreadable files are reported by name and left in place. */
  async pending(): Promise<{ deliveries: PendingDelivery[]; unreadable: string[] }> {
    const deliveries: PendingDelivery[] = [];
    const unreadable: string[] = [];
    for (const name of await readdir(join(this.dir, "pending")).catch(() => [])) {
      if (!name.endsWith(".json")) continue;
      try {
        const parsed = JSON.parse(await readFile(join(this.dir, "pending", name), "utf8")) as PendingDelivery;
        if (parsed.version !== 1 || typeof parsed.renderId !== "string" || typeof parsed.body !== "string") {
          throw new Error("not a delivery");
        }
        if (deliveryFileName(parsed.renderId) !== name) throw new Error("file name does not match the render");
        deliveries.push(parsed);
      } catch {
        unreadable.push(name);
      }
    }
    return { deliveries, unreadable };
  }

  /** Removes delivered and failed records older than `retainMs` (and stale temp files); returns the records removed. */
  async sweep(retainMs: number, now = Date.now()): Promise<number> {
    const prune = async (sub: string, maxAge: number) => {
      let removed = 0;
      for (const name of await readdir(join(this.dir, sub)).catch(() => [])) {
        const file = join(this.dir, sub, name);
        const info = await stat(file).catch(() => undefined);
        if (info && now - info.mtimeMs > maxAge) {
          await rm(file, { force: true });
          removed++;
        }
      }
      return removed;
    };
    await prune("tmp", 3_600_000);
    return (await prune("delivered", retainMs)) + (await prune("failed", retainMs));
  }
}
