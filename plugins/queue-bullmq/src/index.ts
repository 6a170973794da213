export { BullMqQueue } from "./bullmq-queue.js";
export type { BullMqQueueOptions, ResolvedOptions } from "./options.js";
export { bullmqQueue } from "./plugin.js";
