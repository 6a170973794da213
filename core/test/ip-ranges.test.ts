import { describe, expect, it } from "vitest";
import { isPublicAddress } from "../dist/network/ip-ranges.js";

/** One address inside every non-public range docs/security.md#decisions names (and the reserved ones beside them). */
const REFUSED = [
  ["0.0.0.0", "this network"],
  ["0.1.2.3", "this network"],
  ["10.0.0.1", "private 10/8"],
  ["10.255.255.255", "private 10/8"],
  ["100.64.0.1", "CGNAT"],
  ["100.127.255.254", "CGNAT"],
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["169.254.169.254", "cloud metadata / link-local"],
  ["172.16.0.1", "private 172.16/12"],
  ["172.31.255.255", "private 172.16/12"],
  ["192.0.0.170", "IETF protocol assignments"],
  ["192.0.2.1", "TEST-NET-1"],
  ["192.88.99.1", "6to4 relay anycast"],
  ["192.168.1.1", "private 192.168/16"],
  ["198.18.0.1", "benchmarking"],
  ["198.51.100.7", "TEST-NET-2"],
  ["203.0.113.9", "TEST-NET-3"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast (SSDP)"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback, long form"],
  ["::ffff:127.0.0.1", "IPv4-mapped loopback"],
  ["::ffff:7f00:1", "IPv4-mapped loopback, hex"],
  ["::ffff:169.254.169.254", "IPv4-mapped metadata"],
  ["::ffff:a9fe:a9fe", "IPv4-mapped metadata, hex"],
  ["::ffff:10.1.2.3", "IPv4-mapped private"],
  ["::127.0.0.1", "IPv4-compatible loopback"],
  ["64:ff9b::a9fe:a9fe", "NAT64 metadata"],
  ["64:ff9b::127.0.0.1", "NAT64 loopback"],
  ["64:ff9b::10.0.0.1", "NAT64 private"],
  ["2002:7f00:1::", "6to4 of loopback"],
  ["2002:a9fe:a9fe::1", "6to4 of metadata"],
  ["2002:c0a8:0101::1", "6to4 of 192.168.1.1"],
  ["100::1", "discard-only"],
  ["2001:db8::1", "documentation"],
  ["fc00::1", "unique local"],
  ["fd00::1", "unique local"],
  ["fd12:3456:789a::1", "unique local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local with zone"],
  ["febf::1", "link-local, top of range"],
  ["fec0::1", "site-local (deprecated)"],
  ["ff02::1", "multicast"],
  ["ff05::2", "multicast"],
  ["FD00::1", "unique local, upper case"],
] as const;

const ALLOWED = [
  "8.8.8.8",
  "1.1.1.1",
  "93.184.216.34",
  "100.63.255.255",
  "100.128.0.1",
  "172.15.255.255",
  "172.32.0.1",
  "169.253.255.255",
  "192.169.0.1",
  "2606:4700::1111",
  "2001:4860:4860::8888",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
];

describe("isPublicAddress", () => {
  it.each(REFUSED)("refuses %s (%s)", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(ALLOWED)("allows %s", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each(["", "localhost", "example.com", "1.2.3", "999.1.1.1", "::gg"])("refuses %j, which is not an IP literal", (text) => {
    expect(isPublicAddress(text)).toBe(false);
  });
});
