import { BullMqWebhookNotifier, type BullMqWebhookNotifierOptions } from "@renderkit/notifier-webhook";
import type { Cleanup } from "../../../test/helpers/cleanup.js";
import { notifierDefaults, type Receiver, type recordingLogger } from "./helpers.js";

let prefixes = 0;

/** A key prefix of its own for each test, so tests sharing one Redis never see each other's jobs. */
export function freshPrefix(): string {
  prefixes++;
  return `rk-test-${process.pid}-${prefixes}`;
}

export type TestNotifier = BullMqWebhookNotifier & { logs: ReturnType<typeof recordingLogger> };

/** A BullMQ notifier for tests, from `notifierDefaults(port)`; closed after the test. */
export function bullmqNotifier(
  cleanup: Cleanup,
  redis: BullMqWebhookNotifierOptions["redis"],
  port: number | undefined,
  options: Partial<BullMqWebhookNotifierOptions> = {},
): TestNotifier {
  const defaults = notifierDefaults(port);
  const made = new BullMqWebhookNotifier({ ...defaults, redis, ...options });
  cleanup.push(() => made.close());
  return Object.assign(made, { logs: defaults.logger });
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
