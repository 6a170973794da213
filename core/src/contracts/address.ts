/** An address a host name resolved to. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Why a destination was refused or could not be reached. */
export interface Denial {
  host: string;
  port: number;
  reason: string;
}

/**
 * The address policy of one render, as engines and the network layer use it: every destination
 * the page asks for is resolved through it (once per host name, then pinned) and refused unless
 * public or allowed by the operator. The core's `AddressPolicy` implements it.
 */
export interface AddressChecker {
  /** Resolves and checks `hostname:port`; throws `InvalidURLError` (refused) or `URLDoesNotResolveError`. */
  resolve(hostname: string, port: number): Promise<ResolvedAddress>;
  /** `resolve` for the host and port of an http(s) address. */
  resolveUrl(url: URL): Promise<ResolvedAddress>;
  /** Destinations refused so far (reported when navigation fails). */
  readonly denials: Denial[];
  /** Allowed destinations that could not be reached (connection refused, reset, timed out). */
  readonly unreachable: Denial[];
}

/** An upstream proxy the render's requests go through (`proxy`), after the address policy allowed them. */
export interface UpstreamProxy {
  /** Host name or IP literal (IPv6 without brackets). */
  host: string;
  port: number;
  /** Credentials for `Proxy-Authorization: Basic`, when the value carried them. */
  username?: string;
  password?: string;
}
