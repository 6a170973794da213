import type { MetricsConfig } from "./types.js";
import { boolean, object, string } from "./values.js";

/** Printable ASCII without spaces, 16 to 512 characters: what fits in `Authorization: Bearer <token>`. */
const METRICS_TOKEN = /^[\x21-\x7e]{16,512}$/;

/** `metrics: { enabled, token }`: `/metrics` is off unless enabled; with a token, scrapes need it. */
export function metricsConfig(value: unknown, path: string): MetricsConfig {
  const v = object(value, path, ["enabled", "token"]);
  const out: MetricsConfig = { enabled: v.enabled === undefined ? false : boolean(v.enabled, `${path}.enabled`) };
  if (v.token !== undefined) {
    out.token = string(v.token, `${path}.token`, 16, 512, METRICS_TOKEN, "must be 16 to 512 printable characters without spaces");
    // Readable but not enumerable: logging or serialising the config cannot leak it.
    Object.defineProperty(out, "token", { enumerable: false });
  }
  return out;
}
