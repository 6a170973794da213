// The core's notifier contract, run for the file-backed and the BullMQ webhook notifier. Each gets
// a real loopback receiver; the contract's events carry no destination, so a thin wrapper adds
// the webhook address (`job.webhookUrl`) as the renderer does for a render submitted with one.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Notifier } from "@renderkit/core";
import { type NotifierUnderTest, notifierContract } from "@renderkit/core/testing";
import { BullMqWebhookNotifier, WebhookNotifier } from "@renderkit/notifier-webhook";
import { useRedis } from "../../../test/helpers/redis.js";
import { freshPrefix, renderIdOf } from "./bullmq-helpers.js";
import { closedPort, notifierDefaults, startReceiver } from "./helpers.js";

const redis = useRedis();

/** Hands `inner` every event addressed to `url`, for project `p1` (whose secret signs the body). */
function addressed(inner: Notifier, url: string): Notifier {
  return {
    name: inner.name,
    notify: (event) => inner.notify({ ...event, job: { projectId: "p1", webhookUrl: url } }),
    close: () => inner.close?.() ?? Promise.resolve(),
  };
}

/** Makes a notifier for the receiver's `port` (file-backed or BullMQ), plus what to remove afterwards. */
type Make = (port: number) => Promise<{ notifier: Notifier; remove?: () => Promise<void> }>;

const fileBacked: Make = async (port) => {
  const dir = await mkdtemp(join(tmpdir(), "rk-webhook-contract-"));
  const notifier = new WebhookNotifier({ ...notifierDefaults(port), dir });
  return { notifier, remove: () => rm(dir, { recursive: true, force: true }) };
};

const bullmq: Make = async (port) => ({
  notifier: new BullMqWebhookNotifier({ ...notifierDefaults(port), redis: { url: redis.url, prefix: freshPrefix() } }),
});

/** A notifier posting to a fresh receiver that answers 200 and records each render id it gets. */
async function delivering(make: Make): Promise<NotifierUnderTest> {
  const receiver = await startReceiver();
  const { notifier, remove } = await make(receiver.port);
  return {
    notifier: addressed(notifier, receiver.url()),
    delivered: async () => receiver.hits.map((hit) => renderIdOf(hit.body)),
    async close() {
      await receiver.close();
      await remove?.();
    },
  };
}

/** A notifier whose every delivery fails: nothing listens on its port. */
async function failing(make: Make): Promise<{ notifier: Notifier; close: () => Promise<void> }> {
  const port = await closedPort();
  const { notifier, remove } = await make(port);
  return { notifier: addressed(notifier, `http://127.0.0.1:${port}/hook`), close: async () => remove?.() };
}

for (const [name, make] of [
  ["WebhookNotifier (files)", fileBacked],
  ["BullMqWebhookNotifier (Redis)", bullmq],
] as const) {
  notifierContract({ name, make: () => delivering(make), failing: () => failing(make) });
}
