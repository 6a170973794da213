import { join } from "node:path";
import { definePlugin, NOTIFIER } from "@renderkit/core";
import { resolveTuning, type WebhookOptions } from "./options.js";
import { WebhookNotifier } from "./webhook-notifier.js";

/** Options of `webhookNotifier()`. */
export interface WebhookNotifierPluginOptions extends WebhookOptions {
  /** Where deliveries are kept. Default `<dataDir>/webhooks`. */
  dir?: string;
}

/**
 * Signed, retried, durable webhooks for renders submitted with `meta.webhookUrl`. Options are
 * checked when the factory is called. `register` starts the notifier in a microtask (loading
 * deliveries a previous run left pending) so the renderer's boot does not wait on the disk;
 * `notify()` awaits that same start, and a start that failed is retried by the next `notify()`.
 */
export const webhookNotifier = definePlugin((options: WebhookNotifierPluginOptions) => {
  resolveTuning(options);
  return {
    name: "@renderkit/notifier-webhook",
    register({ container, settings, logger }) {
      const notifier = new WebhookNotifier({
        ...options,
        dir: options.dir ?? join(settings.dataDir, "webhooks"),
        allowPrivate: options.allowPrivate ?? settings.allowPrivateNetworks,
        lookup: options.lookup ?? settings.lookup,
        logger,
      });
      container.register(NOTIFIER, { useValue: notifier });
      queueMicrotask(() => {
        notifier
          .start()
          .catch((error: unknown) =>
            logger.error("webhook notifier could not start", { dir: notifier.dir, error: String(error) }),
          );
      });
    },
  };
});
