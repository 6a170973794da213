import type { PageSettings, PageTarget } from "../../index.js";
import { checkTarget } from "../network/check-target.js";
import type { BrowserLease, BrowserPool } from "./browser-pool.js";

/**
 * An engine's `open`: checks the target and the upstream proxy before any browser work, leases a
 * browser from `pool` and lets `load` open the session on it. The session is tied to the lease
 * (closing the pool closes it; the session gives the slot back when it closes); when loading
 * fails the slot is given back at once.
 */
export async function openLeased<B, S extends { close(): Promise<void> }>(
  pool: BrowserPool<B>,
  target: PageTarget,
  settings: PageSettings,
  signal: AbortSignal,
  load: (lease: BrowserLease<B>) => Promise<S>,
): Promise<S> {
  await checkTarget(target, settings);
  const lease = await pool.lease(signal);
  try {
    const session = await load(lease);
    lease.hold(session);
    return session;
  } catch (error) {
    lease.release();
    throw error;
  }
}
