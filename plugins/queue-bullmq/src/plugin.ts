import { definePlugin, QUEUE } from "@renderkit/core";
import { BullMqQueue } from "./bullmq-queue.js";
import { type BullMqQueueOptions, resolveOptions } from "./options.js";

/**
 * Puts the renderer's jobs on BullMQ (Redis), shared by every API and worker node. Options are
 * checked when the factory is called; `maxWaiting` defaults to the renderer's `maxQueued` and
 * `logger` to the renderer's logger. Nothing connects before the first add or start.
 */
export const bullmqQueue = definePlugin((options: BullMqQueueOptions) => {
  resolveOptions(options);
  return {
    name: "@renderkit/queue-bullmq",
    register({ provide, settings, logger }) {
      const queue = new BullMqQueue({
        ...options,
        maxWaiting: options.maxWaiting ?? settings.maxQueued,
        logger: options.logger ?? logger,
      });
      provide(QUEUE, queue);
    },
  };
});
