import type { RenderEvent } from "./events.js";

/** Tells the outside world that a render ended (webhooks, message buses). */
export interface Notifier {
  /** Short name for logs (`webhook`). */
  readonly name: string;
  /**
   * Called once per finished render. Must not throw for delivery problems: a notifier
   * owns its retries and records what it could not deliver.
   */
  notify(event: RenderEvent): Promise<void>;
  /** Flushes or persists pending deliveries and releases resources. */
  close?(): Promise<void>;
}
