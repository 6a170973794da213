import { join } from "node:path";
import { definePlugin, NOTIFIER } from "@renderkit/core";
import { BullMqWebhookNotifier } from "./bullmq-notifier.js";
import { resolveRedis, resolveTuning, type WebhookOptions, type WebhookRedisOptions } from "./options.js";
import { WebhookNotifier } from "./webhook-notifier.js";

/** Options of `webhookNotifier()`. */
export interface WebhookNotifierPluginOptions extends WebhookOptions {
  /** Where deliveries are kept without `redis`. Default `<dataDir>/webhooks`. */
  dir?: string;
  /** Keep deliveries in Redis (BullMQ queue `webhooks`) for nodes on several machines; `dir` is then unused. */
  redis?: WebhookRedisOptions;
  /** With `redis`: run a delivery worker in this process. Default true; API-only nodes pass false. */
  deliver?: boolean;
}

/**
 * Signed, retried, durable webhooks for renders submitted with `job.webhookUrl`. Options are
 * checked when the factory is called. Without `redis`, deliveries are files in `dir` (one
 * process per directory); with it, BullMQ jobs in Redis shared by every node (`bullmq` and
 * `ioredis` are then loaded, and only then). `register` starts the notifier in a microtask
 * (resuming pending deliveries) so the renderer's boot does not wait on the disk or Redis;
 * `notify()` awaits that same start, and a start that failed is retried by the next `notify()`.
 */
export const webhookNotifier = definePlugin((options: WebhookNotifierPluginOptions) => {
  resolveTuning(options);
  if (options.redis !== undefined) resolveRedis(options.redis);
  return {
    name: "@renderkit/notifier-webhook",
    register({ provide, settings, logger }) {
      const shared = {
        ...options,
        allowPrivate: options.allowPrivate ?? settings.allowPrivateNetworks,
        lookup: options.lookup ?? settings.lookup,
        logger,
      };
      const notifier = options.redis
        ? new BullMqWebhookNotifier({ ...shared, redis: options.redis })
        : new WebhookNotifier({ ...shared, dir: options.dir ?? join(settings.dataDir, "webhooks") });
      // The Redis address is not logged: it may carry a password.
      const where = notifier instanceof WebhookNotifier ? { dir: notifier.dir } : { prefix: notifier.prefix };
      provide(NOTIFIER, notifier);
      queueMicrotask(() => {
        notifier
          .start()
          .catch((error: unknown) => logger.error("webhook notifier could not start", { ...where, error: String(error) }));
      });
    },
  };
});
