export { type FinalRenderEvent, isFinalEvent, webhookBody } from "./body.js";
export { BullMqWebhookNotifier, type BullMqWebhookNotifierOptions } from "./bullmq-notifier.js";
export {
  DEFAULT_SCHEDULE,
  type WebhookNotifierOptions,
  type WebhookOptions,
  type WebhookRedisOptions,
} from "./options.js";
export { type WebhookNotifierPluginOptions, webhookNotifier } from "./plugin.js";
export { MAX_RESPONSE_BYTES } from "./post.js";
export { USER_AGENT } from "./send.js";
export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  signWebhook,
  type VerifyOptions,
  verifyWebhookSignature,
} from "./signature.js";
export type { AttemptError, DeliveredRecord, DeliveryState, FailedDelivery, PendingDelivery } from "./store.js";
export { WebhookNotifier } from "./webhook-notifier.js";
