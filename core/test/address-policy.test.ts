import { AddressPolicy, type Lookup } from "@renderkit/core";
import { expectRenderError } from "@renderkit/core/testing";
import { describe, expect, it } from "vitest";

/** A lookup answering from a table, counting its calls per name. */
function tableLookup(table: Record<string, string[]>): Lookup & { calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const lookup = async (host: string) => {
    calls.set(host, (calls.get(host) ?? 0) + 1);
    const answer = table[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return answer.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(lookup, { calls });
}

describe("AddressPolicy", () => {
  it("allows public addresses and refuses non-public ones by default", async () => {
    const policy = new AddressPolicy();
    await expect(policy.resolve("8.8.8.8", 443)).resolves.toEqual({ address: "8.8.8.8", family: 4 });
    await expect(policy.resolve("[2606:4700::1111]", 443)).resolves.toEqual({ address: "2606:4700::1111", family: 6 });
    for (const host of ["127.0.0.1", "[::1]", "169.254.169.254", "100.64.0.1", "[fd00::1]", "[::ffff:7f00:1]", "10.0.0.1"]) {
      await expectRenderError(policy.resolve(host, 80), "InvalidURLError");
    }
    expect(policy.denials.map((d) => d.host)).toContain("169.254.169.254");
    expect(policy.denials[0]).toMatchObject({ host: "127.0.0.1", port: 80 });
  });

  it("allowPrivate: false is the default", async () => {
    await expectRenderError(new AddressPolicy({ allowPrivate: false }).resolve("127.0.0.1", 80), "InvalidURLError");
    await expectRenderError(new AddressPolicy({ allowPrivate: [] }).resolve("127.0.0.1", 80), "InvalidURLError");
  });

  it("allowPrivate: true allows every destination", async () => {
    const policy = new AddressPolicy({ allowPrivate: true });
    await expect(policy.resolve("127.0.0.1", 1)).resolves.toMatchObject({ address: "127.0.0.1" });
    await expect(policy.resolve("[fe80::1]", 2)).resolves.toMatchObject({ address: "fe80::1" });
  });

  it("a host:port entry allows that port only", async () => {
    const policy = new AddressPolicy({ allowPrivate: ["127.0.0.1:8080"] });
    await expect(policy.resolve("127.0.0.1", 8080)).resolves.toMatchObject({ address: "127.0.0.1" });
    await expectRenderError(policy.resolve("127.0.0.1", 8081), "InvalidURLError");
    await expectRenderError(policy.resolve("127.0.0.2", 8080), "InvalidURLError");
  });

  it("a bracketed IPv6 entry with a port allows that address and port", async () => {
    const policy = new AddressPolicy({ allowPrivate: ["[::1]:3000"] });
    await expect(policy.resolve("[::1]", 3000)).resolves.toMatchObject({ address: "::1", family: 6 });
    await expect(policy.resolve("::1", 3000)).resolves.toMatchObject({ address: "::1" });
    await expectRenderError(policy.resolve("[::1]", 3001), "InvalidURLError");
  });

  it("CIDR entries allow addresses inside the block, on any port", async () => {
    const policy = new AddressPolicy({ allowPrivate: ["10.0.0.0/8", "fd00::/8"] });
    await expect(policy.resolve("10.20.30.40", 1234)).resolves.toMatchObject({ address: "10.20.30.40" });
    await expect(policy.resolve("[fd12::5]", 80)).resolves.toMatchObject({ address: "fd12::5" });
    await expectRenderError(policy.resolve("192.168.1.1", 80), "InvalidURLError");
    await expectRenderError(policy.resolve("[fe80::1]", 80), "InvalidURLError");
  });

  it("host name entries allow that name (and only it) to resolve privately", async () => {
    const lookup = tableLookup({ "intranet.test": ["10.0.0.5"], "other.test": ["10.0.0.5"] });
    const policy = new AddressPolicy({ allowPrivate: ["Intranet.test"], lookup });
    await expect(policy.resolve("intranet.test", 80)).resolves.toEqual({ address: "10.0.0.5", family: 4 });
    await expectRenderError(policy.resolve("other.test", 80), "URLDoesNotResolveError");
  });

  it("refuses a name whose lookup gives a private address exactly as a name that does not resolve", async () => {
    const lookup = tableLookup({ "evil.test": ["127.0.0.1"], "meta.test": ["::ffff:169.254.169.254"] });
    const policy = new AddressPolicy({ lookup });
    const error = await expectRenderError(policy.resolve("evil.test", 80), "URLDoesNotResolveError");
    expect(error.message).toBe("The host evil.test does not resolve to a public address");
    await expectRenderError(policy.resolve("meta.test", 80), "URLDoesNotResolveError");
    const missing = await expectRenderError(policy.resolve("missing.test", 80), "URLDoesNotResolveError");
    expect(missing.message).toBe("The host missing.test does not resolve to a public address");
    // The engines' record of refusals says the same for both, and never the address.
    expect(policy.denials).toEqual([
      { host: "evil.test", port: 80, reason: "does not resolve" },
      { host: "meta.test", port: 80, reason: "does not resolve" },
      { host: "missing.test", port: 80, reason: "does not resolve" },
    ]);
  });

  it("logs the precise reason of a refusal for the operator, without the resolved address", async () => {
    const lines: { message: string; fields?: Record<string, unknown> }[] = [];
    const logger = {
      debug: () => undefined,
      info: (message: string, fields?: Record<string, unknown>) => lines.push({ message, fields }),
      warn: () => undefined,
      error: () => undefined,
    };
    const policy = new AddressPolicy({ lookup: tableLookup({ "evil.test": ["10.1.2.3"] }), logger });
    await expectRenderError(policy.resolve("evil.test", 80), "URLDoesNotResolveError");
    await expectRenderError(policy.resolve("missing.test", 81), "URLDoesNotResolveError");
    await expectRenderError(policy.resolve("10.0.0.1", 82), "InvalidURLError");
    expect(lines.map((l) => l.fields)).toEqual([
      { host: "evil.test", port: 80, reason: "resolves to a non-public address" },
      { host: "missing.test", port: 81, reason: expect.stringMatching(/^does not resolve/) },
      { host: "10.0.0.1", port: 82, reason: "not a public address" },
    ]);
    expect(JSON.stringify(lines)).not.toContain("10.1.2.3");
  });

  it("prefers a public answer when a name has several", async () => {
    const lookup = tableLookup({ "mixed.test": ["10.0.0.1", "93.184.216.34"] });
    await expect(new AddressPolicy({ lookup }).resolve("mixed.test", 443)).resolves.toMatchObject({ address: "93.184.216.34" });
  });

  it("gives URLDoesNotResolveError when the lookup fails or answers nothing", async () => {
    const policy = new AddressPolicy({ lookup: tableLookup({ "empty.test": [] }) });
    await expectRenderError(policy.resolve("nowhere.test", 80), "URLDoesNotResolveError");
    await expectRenderError(policy.resolve("empty.test", 80), "URLDoesNotResolveError");
    expect(policy.denials).toContainEqual({ host: "nowhere.test", port: 80, reason: "does not resolve" });
  });

  it("pins a name to its first answer: a rebinding lookup is asked once per host", async () => {
    const answers = ["93.184.216.34", "127.0.0.1"];
    let calls = 0;
    const lookup: Lookup = async () => [{ address: answers[Math.min(calls++, 1)] as string, family: 4 }];
    const policy = new AddressPolicy({ lookup });
    const first = await policy.resolve("rebind.test", 80);
    const again = await Promise.all([policy.resolve("rebind.test", 443), policy.resolve("REBIND.test", 80)]);
    expect(first.address).toBe("93.184.216.34");
    expect(again.map((a) => a.address)).toEqual(["93.184.216.34", "93.184.216.34"]);
    expect(calls).toBe(1);
  });

  it("looks a name up once even when asked concurrently", async () => {
    const lookup = tableLookup({ "busy.test": ["93.184.216.34"] });
    const policy = new AddressPolicy({ lookup });
    await Promise.all(Array.from({ length: 10 }, () => policy.resolve("busy.test", 443)));
    expect(lookup.calls.get("busy.test")).toBe(1);
  });

  it("fork() keeps the rules and starts with no pins", async () => {
    const lookup = tableLookup({ "site.test": ["93.184.216.34"] });
    const policy = new AddressPolicy({ allowPrivate: ["127.0.0.1:9"], lookup });
    await policy.resolve("site.test", 80);
    const fork = policy.fork();
    await fork.resolve("site.test", 80);
    expect(lookup.calls.get("site.test")).toBe(2);
    await expect(fork.resolve("127.0.0.1", 9)).resolves.toMatchObject({ address: "127.0.0.1" });
    await expectRenderError(fork.resolve("127.0.0.1", 10), "InvalidURLError");
    expect(fork.denials).toHaveLength(1);
    expect(policy.denials).toHaveLength(0);
  });

  it("does not pin a failed lookup", async () => {
    let calls = 0;
    const lookup: Lookup = async () => {
      if (calls++ === 0) throw new Error("temporary failure");
      return [{ address: "93.184.216.34", family: 4 }];
    };
    const policy = new AddressPolicy({ lookup });
    await expectRenderError(policy.resolve("flaky.test", 80), "URLDoesNotResolveError");
    await expect(policy.resolve("flaky.test", 80)).resolves.toMatchObject({ address: "93.184.216.34" });
  });
});
