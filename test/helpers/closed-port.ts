/**
 * A loopback port nothing listens on, for the "could not be reached" cases. Below 1024: no
 * listen(0) is ever given it (those come from the ephemeral range, 32768-60999 here), so no other
 * test can take it meanwhile. A port taken and freed again could be handed to the next listen(0)
 * of a test running in parallel, such as one of the egress proxies every render opens. Not one of
 * Chromium's unsafe ports, should a test ever send a page there.
 */
export const CLOSED_PORT = 1023;
