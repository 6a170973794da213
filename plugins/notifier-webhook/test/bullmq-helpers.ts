import { BullMqWebhookNotifier, type BullMqWebhookNotifierOptions } from "@renderkit/notifier-webhook";
import { type Receiver, recordingLogger, SECRET, startReceiver } from "./helpers.js";

/** Steps run after each test, newest first (receivers, notifiers, child processes, Redis). */
export type Cleanup = (() => Promise<void>)[];

export async function runCleanup(cleanup: Cleanup): Promise<void> {
  for (const step of cleanup.splice(0).reverse()) await step();
}

/** A loopback receiver closed after the test. */
export async function receiver(cleanup: Cleanup, reply?: Parameters<typeof startReceiver>[0]): Promise<Receiver> {
  const made = await startReceiver(reply);
  cleanup.push(() => made.close());
  return made;
}

let prefixes = 0;

/** A key prefix of its own for each test, so tests sharing one Redis never see each other's jobs. */
export function freshPrefix(): string {
  prefixes++;
  return `rk-test-${process.pid}-${prefixes}`;
}

export type TestNotifier = BullMqWebhookNotifier & { logs: ReturnType<typeof recordingLogger> };

/**
 * A BullMQ notifier for tests: project `p1` has the test secret, others none; loopback allowed only
 * for the receiver's port; short schedule, no jitter; closed after the test.
 */
export function bullmqNotifier(
  cleanup: Cleanup,
  redis: BullMqWebhookNotifierOptions["redis"],
  port: number | undefined,
  options: Partial<BullMqWebhookNotifierOptions> = {},
): TestNotifier {
  const logger = recordingLogger();
  const made = new BullMqWebhookNotifier({
    secretFor: (projectId) => (projectId === "p1" ? SECRET : undefined),
    allowPrivate: port === undefined ? false : [`127.0.0.1:${port}`],
    schedule: [50, 50, 50],
    jitter: 0,
    timeoutMs: 2_000,
    logger,
    redis,
    ...options,
  });
  cleanup.push(() => made.close());
  return Object.assign(made, { logs: logger });
}

/** The render id a hit's body names. */
export function renderIdOf(body: string): string {
  return (JSON.parse(body) as { renderId: string }).renderId;
}

/** Counts hits per render id. */
export function hitsPerRender(rx: Receiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const hit of rx.hits) counts.set(renderIdOf(hit.body), (counts.get(renderIdOf(hit.body)) ?? 0) + 1);
  return counts;
}
