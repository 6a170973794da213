import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { AddressChecker, Denial, ResolvedAddress } from "../contracts/address.js";
import type { Logger } from "../contracts/logger.js";
import { RenderError } from "../errors.js";
import { isPublicAddress } from "./ip-ranges.js";
import { hostAndPort } from "./pinned-lookup.js";

export type { Denial, ResolvedAddress } from "../contracts/address.js";

export type Lookup = (hostname: string) => Promise<ResolvedAddress[]>;

export interface AddressPolicyOptions {
  /**
   * Non-public destinations the operator allows: `true` allows all (never a default),
   * or a list of host names, IP literals, `host:port` pairs and CIDR blocks.
   */
  allowPrivate?: boolean | readonly string[];
  /** DNS lookup (tests and custom resolvers); default: the system resolver. */
  lookup?: Lookup;
  /** Where each refusal is logged (at info) with its precise reason, never the resolved address. */
  logger?: Logger;
}

/**
 * What a caller is told about a host name that is refused: the same code and words whether the
 * name does not resolve or resolves to a non-public address, so that probing names cannot tell
 * which internal hosts exist. (IP literals say "is not a public address": they reveal nothing.)
 */
const NAME_DENIAL = "does not resolve";

const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((r) => ({ address: r.address, family: r.family as 4 | 6 }));

interface AllowRule {
  host?: string;
  port?: number;
  cidr?: BlockList;
}

function parseRule(entry: string): AllowRule {
  const text = entry.trim().toLowerCase();
  const cidr = text.match(/^([0-9a-f:.]+)\/(\d{1,3})$/);
  if (cidr?.[1] && cidr[2]) {
    const list = new BlockList();
    list.addSubnet(cidr[1], Number(cidr[2]), isIP(cidr[1]) === 6 ? "ipv6" : "ipv4");
    return { cidr: list };
  }
  const bracketed = text.match(/^\[([0-9a-f:.]+)\](?::(\d+))?$/);
  if (bracketed?.[1]) return { host: bracketed[1], port: bracketed[2] ? Number(bracketed[2]) : undefined };
  const hostPort = text.match(/^([^:]+):(\d+)$/);
  if (hostPort?.[1]) return { host: hostPort[1], port: Number(hostPort[2]) };
  return { host: text };
}

/**
 * Decides which destinations a render may reach (docs/security.md#decisions) and pins each host name to the
 * address it first resolved to, so a page cannot rebind a name to a private address later.
 * One instance per render: the pins live as long as the render.
 */
export class AddressPolicy implements AddressChecker {
  private readonly allowAll: boolean;
  private readonly rules: AllowRule[];
  private readonly lookup: Lookup;
  private readonly pins = new Map<string, Promise<ResolvedAddress>>();
  /** Destinations refused so far (the engine reports them when navigation fails). */
  readonly denials: Denial[] = [];
  /** Allowed destinations that could not be reached (connection refused, reset, timed out). */
  readonly unreachable: Denial[] = [];

  constructor(private readonly options: AddressPolicyOptions = {}) {
    this.allowAll = options.allowPrivate === true;
    this.rules = Array.isArray(options.allowPrivate) ? options.allowPrivate.map(parseRule) : [];
    this.lookup = options.lookup ?? systemLookup;
  }

  /** A fresh policy with the same rules and no pins (one per render). */
  fork(): AddressPolicy {
    return new AddressPolicy(this.options);
  }

  private allowedByRule(host: string, address: string, port: number): boolean {
    if (this.allowAll) return true;
    return this.rules.some((rule) => {
      if (rule.port !== undefined && rule.port !== port) return false;
      if (rule.cidr) return rule.cidr.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
      return rule.host === host || rule.host === address;
    });
  }

  /** `resolve` for the host and port of an http(s) address. */
  resolveUrl(url: URL): Promise<ResolvedAddress> {
    const { host, port } = hostAndPort(url);
    return this.resolve(host, port);
  }

  /**
   * Resolves `host` (once per policy) and checks the address and port. Resolves with the
   * pinned address; throws `InvalidURLError` for an IP literal that is not allowed, and
   * `URLDoesNotResolveError` for a name that does not resolve or resolves to a non-public
   * address (one answer for both: see `NAME_DENIAL`).
   */
  async resolve(hostname: string, port: number): Promise<ResolvedAddress> {
    const host = hostname.toLowerCase().replace(/^\[|\]$/g, "");
    if (!host) throw new RenderError("InvalidURLError", "The address has no host name");
    let pinned = this.pins.get(host);
    if (!pinned) {
      pinned = this.pin(host, port);
      this.pins.set(host, pinned);
      pinned.catch(() => this.pins.delete(host));
    }
    const resolved = await pinned;
    if (!isPublicAddress(resolved.address) && !this.allowedByRule(host, resolved.address, port)) {
      if (!isIP(host)) throw this.refuseName(host, port, "resolves to a non-public address");
      const reason = `${host} is not a public address`;
      this.denials.push({ host, port, reason });
      this.options.logger?.info("address refused", { host, port, reason: "not a public address" });
      throw new RenderError("InvalidURLError", `Refused to load ${host}:${port}: ${reason}`);
    }
    return resolved;
  }

  private async pin(host: string, port: number): Promise<ResolvedAddress> {
    const family = isIP(host);
    if (family) return { address: host, family: family as 4 | 6 };
    let all: ResolvedAddress[];
    try {
      all = await this.lookup(host);
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException | undefined)?.code;
      throw this.refuseName(host, port, `does not resolve${typeof code === "string" ? ` (${code})` : ""}`, cause);
    }
    const first =
      all.find((a) => isPublicAddress(a.address)) ?? all.find((a) => this.allowedByRule(host, a.address, port)) ?? all[0];
    if (!first) throw this.refuseName(host, port, "resolves to no address");
    return first;
  }

  /**
   * The refusal of a host name: one code and message whatever the cause (`NAME_DENIAL`), so a
   * caller cannot map internal names; the precise reason goes to the operator's log only, never
   * with the address the name resolved to. `cause` is kept for code, not shown (a resolver that
   * is down, `EAI_AGAIN`, may be retried).
   */
  private refuseName(host: string, port: number, precise: string, cause?: unknown): RenderError {
    this.denials.push({ host, port, reason: NAME_DENIAL });
    this.options.logger?.info("address refused", { host, port, reason: precise });
    return new RenderError("URLDoesNotResolveError", `The host ${host} does not resolve to a public address`, {
      ...(cause === undefined ? {} : { cause }),
    });
  }
}
