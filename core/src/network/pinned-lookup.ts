import type { LookupFunction } from "node:net";

/** An address vetted by the address policy (structurally `ResolvedAddress`). */
type Vetted = { address: string; family: 4 | 6 };
/** What `policyLookup` needs of an `AddressPolicy`. */
type Resolver = { resolve(hostname: string, port: number): Promise<Vetted> };

/** Host name (IPv6 without brackets) and port of an http(s) address; the port defaults by scheme. */
export function hostAndPort(url: URL): { host: string; port: number } {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return { host, port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80 };
}

/**
 * Node's `lookup` answering with an address vetted before: the connection goes where the check
 * looked, whatever DNS says now (docs/security.md#decisions: resolve once, then pin; no rebinding).
 */
export function pinnedLookup(pinned: Vetted): LookupFunction {
  return (_hostname, options, callback) => {
    if (options?.all) callback(null, [{ address: pinned.address, family: pinned.family }]);
    else callback(null, pinned.address, pinned.family);
  };
}

/**
 * Node's `lookup` that vets every host through `policy` (public addresses only, unless
 * allowlisted) and pins what it resolved, for clients that connect later and on their own (an
 * S3 client pointed at an endpoint a caller chose). `port` is the endpoint's port.
 */
export function policyLookup(policy: Resolver, port: number): LookupFunction {
  return (hostname, options, callback) => {
    policy.resolve(hostname, port).then(
      (pinned) => pinnedLookup(pinned)(hostname, options, callback),
      (error: Error) => callback(error as NodeJS.ErrnoException, "", 4),
    );
  };
}
