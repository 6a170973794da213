/** What a process does: API and renders (`serve`), the API alone (`serve --role api`), renders alone (`worker`). */
export type Role = "all" | "api" | "worker";

/** Outcome of one webhook delivery attempt made by this process (`WebhookOptions.onAttempt`). */
export type WebhookAttempt = { delivered: boolean; status?: number; permanent: boolean };

/** Where this process's webhook attempts are reported; the HTTP app's metrics set `listener`. */
export interface WebhookAttempts {
  listener?: (attempt: WebhookAttempt) => void;
}
