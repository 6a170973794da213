import { resolve } from "node:path";
import { ConsoleLogger, type Logger, type Notifier, type RenderEvent, withTimeout } from "@renderkit/core";
import { Semaphore } from "@renderkit/core/internal";
import { isFinalEvent, webhookBody } from "./body.js";
import { resolveTuning, retryDelay, type WebhookNotifierOptions, type WebhookTuning } from "./options.js";
import type { PostOutcome } from "./post.js";
import { hostOf, type Sender, sendDelivery } from "./send.js";
import { type DeliveryState, DeliveryStore, type PendingDelivery } from "./store.js";

/** How long `close()` waits for posts in flight before cutting them. */
const CLOSE_GRACE_MS = 5_000;
const MAX_TIMER_MS = 2 ** 31 - 1;
const MAX_STORED_ERRORS = 20;
const SWEEP_EVERY_MS = 6 * 3_600_000;

interface Entry {
  delivery: PendingDelivery;
  timer?: NodeJS.Timeout;
  busy: boolean;
}

/**
 * Posts `render.succeeded` / `render.failed` to the submitter's `job.webhookUrl`, signed, at
 * most once per render id, retried on the schedule, and kept on disk until delivered or given
 * up, so deliveries survive a restart. `start()` loads what a previous run left pending; the
 * plugin calls it right after registration and `notify()` awaits it, so using the class
 * directly needs no explicit call. A directory belongs to one process at a time.
 */
export class WebhookNotifier implements Notifier {
  readonly name = "webhook";
  readonly dir: string;
  private readonly store: DeliveryStore;
  private readonly tuning: WebhookTuning;
  private readonly logger: Logger;
  private readonly sender: Sender;
  private readonly slots: Semaphore;
  /** Deliveries pending in this process, by render id. */
  private readonly entries = new Map<string, Entry>();
  /** Render ids between a `notify()`'s checks and its file write. */
  private readonly claiming = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private readonly closer = new AbortController();
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private closed = false;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: WebhookNotifierOptions) {
    this.tuning = resolveTuning(options);
    this.dir = resolve(options.dir);
    this.store = new DeliveryStore(this.dir);
    this.logger = options.logger ?? new ConsoleLogger();
    this.sender = {
      secretFor: options.secretFor,
      allowPrivate: options.allowPrivate ?? false,
      lookup: options.lookup,
      timeoutMs: this.tuning.timeoutMs,
      signal: this.closer.signal,
      onAttempt: options.onAttempt,
    };
    this.slots = new Semaphore(this.tuning.concurrency);
  }

  /** Creates the directories and schedules pending deliveries (due ones at once). Idempotent. */
  start(): Promise<void> {
    this.starting ??= this.load().catch((error: unknown) => {
      this.starting = undefined;
      throw error;
    });
    return this.starting;
  }

  private async load(): Promise<void> {
    await this.store.init();
    const { deliveries, unreadable } = await this.store.pending();
    for (const file of unreadable)
      this.logger.error("unreadable pending webhook delivery left in place", { dir: this.dir, file });
    for (const delivery of deliveries) {
      if (this.entries.has(delivery.renderId)) continue;
      // A crash between writing the outcome and removing the pending file: the outcome wins.
      if (await this.store.state(delivery.renderId, ["delivered", "failed"])) {
        await this.store.discard(delivery.renderId);
        continue;
      }
      const entry: Entry = { delivery, busy: false };
      this.entries.set(delivery.renderId, entry);
      if (!this.closed) this.arm(entry, delivery.nextAttemptAt - Date.now());
    }
    if (deliveries.length > 0) this.logger.info("webhook deliveries resumed", { count: deliveries.length });
    if (!this.closed) {
      this.sweep();
      this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
      this.sweeper.unref();
    }
  }

  private sweep(): void {
    this.store
      .sweep(this.tuning.retainMs)
      .catch((error: unknown) => this.logger.warn("webhook record sweep failed", { error: String(error) }));
  }

  /**
   * Persists a delivery for a final event carrying `job.webhookUrl` and schedules its first
   * attempt; resolves once it is on disk. Other events, and a render id already pending,
   * delivered or given up, are ignored. Rejects only when the delivery cannot be written.
   */
  async notify(event: RenderEvent): Promise<void> {
    if (!isFinalEvent(event)) return;
    // Checked, not trusted: jobs come back from a queue's JSON (and from older versions).
    const url = event.job?.webhookUrl;
    if (typeof url !== "string" || url === "") return;
    const projectId = typeof event.job?.projectId === "string" ? event.job.projectId : undefined;
    const body = webhookBody(event);
    const { renderId } = event;
    await this.start();
    if (this.entries.has(renderId) || this.claiming.has(renderId)) return this.duplicate(renderId, "pending");
    this.claiming.add(renderId);
    try {
      const done = await this.store.state(renderId, ["delivered", "failed"]);
      if (done) return this.duplicate(renderId, done);
      const now = Date.now();
      const delivery: PendingDelivery = {
        version: 1,
        renderId,
        url,
        projectId,
        body,
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        errors: [],
      };
      if (!(await this.store.create(delivery))) return this.duplicate(renderId, "pending");
      const entry: Entry = { delivery, busy: false };
      this.entries.set(renderId, entry);
      if (!this.closed) this.arm(entry, 0);
    } finally {
      this.claiming.delete(renderId);
    }
  }

  /** Where a render's delivery stands (`undefined`: no delivery for it). */
  state(renderId: string): Promise<DeliveryState | undefined> {
    return this.store.state(renderId);
  }

  private duplicate(renderId: string, state: DeliveryState): void {
    this.logger.debug("duplicate webhook notification ignored", { renderId, state });
  }

  private arm(entry: Entry, delay: number): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(
      () => {
        entry.timer = undefined;
        const run = this.attempt(entry).catch((error: unknown) =>
          this.logger.error("webhook attempt crashed", { renderId: entry.delivery.renderId, error: String(error) }),
        );
        this.running.add(run);
        void run.finally(() => this.running.delete(run));
      },
      Math.min(Math.max(0, delay), MAX_TIMER_MS),
    );
    entry.timer.unref();
  }

  private async attempt(entry: Entry): Promise<void> {
    const { delivery } = entry;
    if (this.closed || entry.busy) return;
    const wait = delivery.nextAttemptAt - Date.now();
    if (wait > 1_000) return this.arm(entry, wait); // a delay longer than one timer can hold
    entry.busy = true;
    const release = await this.slots.acquire(this.closer.signal).catch(() => undefined);
    let retryIn: number | undefined;
    try {
      if (!release || this.closed) return;
      const attempt = delivery.attempts + 1;
      const outcome = await sendDelivery(delivery, this.sender);
      if (outcome.interrupted) return; // cut by close(): unknown result, the file stays due
      retryIn = await this.settle(entry, attempt, outcome);
    } finally {
      entry.busy = false;
      release?.();
    }
    if (retryIn !== undefined && !this.closed) this.arm(entry, retryIn);
  }

  /** Records an attempt's outcome: delivered, given up, or due again (returns the delay). */
  private async settle(entry: Entry, attempt: number, outcome: PostOutcome): Promise<number | undefined> {
    const { delivery } = entry;
    const { renderId } = delivery;
    const log = { renderId, host: hostOf(delivery.url), status: outcome.status, attempt };
    delivery.attempts = attempt;
    const now = Date.now();
    if (outcome.delivered) {
      this.logger.info("webhook delivered", log);
      const record = {
        renderId,
        host: log.host,
        status: outcome.status ?? 0,
        attempts: attempt,
        createdAt: delivery.createdAt,
        deliveredAt: now,
      };
      // The entry stays in the map until the record is written, so a duplicate `notify()` sees it.
      await this.record(renderId, this.store.delivered(delivery, record));
      this.entries.delete(renderId);
      return undefined;
    }
    delivery.errors = [...delivery.errors, { attempt, at: now, reason: outcome.reason, status: outcome.status }].slice(
      -MAX_STORED_ERRORS,
    );
    const retryIn = outcome.permanent ? undefined : retryDelay(this.tuning, attempt);
    if (retryIn === undefined) {
      this.logger.warn("webhook delivery given up", { ...log, reason: outcome.reason, permanent: outcome.permanent });
      await this.record(renderId, this.store.failed({ ...delivery, failedAt: now, reason: outcome.reason }));
      this.entries.delete(renderId);
      return undefined;
    }
    delivery.nextAttemptAt = now + retryIn;
    this.logger.info("webhook attempt failed, will retry", { ...log, reason: outcome.reason, retryInMs: retryIn });
    await this.record(renderId, this.store.update(delivery));
    return Math.max(0, delivery.nextAttemptAt - Date.now());
  }

  private async record(renderId: string, write: Promise<void>): Promise<void> {
    try {
      await write;
    } catch (error) {
      // The in-memory state moves on; the file lags behind, and a restart may send once more.
      this.logger.error("webhook delivery record could not be written", { renderId, error: String(error) });
    }
  }

  /** Stops the timers and waits (up to 5 s) for posts in flight; pending files stay for the next start. */
  close(): Promise<void> {
    this.closed = true;
    this.closing ??= (async () => {
      clearInterval(this.sweeper);
      await this.starting?.catch(() => undefined);
      for (const entry of this.entries.values()) clearTimeout(entry.timer);
      const inFlight = () => Promise.allSettled([...this.running]);
      await withTimeout(inFlight(), CLOSE_GRACE_MS).catch(async () => {
        this.closer.abort();
        await withTimeout(inFlight(), 1_000).catch(() => undefined);
      });
      this.closer.abort();
    })();
    return this.closing;
  }
}
