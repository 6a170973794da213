import type { EgressLimits } from "../contracts/page-settings.js";

// The settings' egress caps per render; the Chromium runtime's egress proxy enforces them
// (chromium/network/egress-caps.ts).

/**
 * Defaults that never bite an ordinary page. Bytes: the heaviest pages of the HTTP Archive weigh
 * tens of MB (the median about 2.5 MB), so 200 MiB only stops a page that streams without end.
 * Connections: Chromium opens at most 256 sockets per browser context for ordinary requests (6 per
 * host); through a render's proxy, 600 images on 200 hosts had 246 open at once. A cap of 256
 * never holds an ordinary request back; WebSockets, which Chromium pools apart, wait beyond it.
 */
export const DEFAULT_EGRESS_LIMITS: EgressLimits = { maxBytes: 200 * 1024 * 1024, maxConnections: 256 };

/**
 * Smallest `maxConnections` the server accepts. An https tunnel holds its slot while Chromium
 * keeps it open idle (up to minutes), so a low cap can make a page that used many hosts wait.
 */
export const MIN_EGRESS_CONNECTIONS = 64;
