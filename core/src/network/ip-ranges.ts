import { BlockList, isIP } from "node:net";

/** Ranges no render may reach (docs/security.md#decisions): private, loopback, link-local, CGNAT, multicast, reserved. */
const NON_PUBLIC_V4: readonly [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

const NON_PUBLIC_V6: readonly [string, number][] = [
  ["::", 128],
  ["::1", 128],
  ["100::", 64],
  ["64:ff9b:1::", 48],
  ["2001::", 23],
  ["3fff::", 20],
  ["5f00::", 16],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];

const blocked = new BlockList();
for (const [net, prefix] of NON_PUBLIC_V4) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of NON_PUBLIC_V6) blocked.addSubnet(net, prefix, "ipv6");

/** Expands an IPv6 address to its eight 16-bit groups. */
function groups6(address: string): number[] {
  let text = address.toLowerCase().split("%")[0] ?? "";
  const dotted = text.match(/(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted?.[1]) {
    const [a, b, c, d] = dotted[1].split(".").map(Number) as [number, number, number, number];
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const fill = tail === undefined ? [] : new Array(8 - h.length - t.length).fill("0");
  return [...h, ...fill, ...t].map((g) => Number.parseInt(g || "0", 16));
}

/** The IPv4 address embedded in a mapped, NAT64, 6to4 or compatible IPv6 address, if any. */
export function embeddedIPv4(address: string): string | undefined {
  const g = groups6(address);
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return v4(g[6] ?? 0, g[7] ?? 0); // ::ffff:a.b.c.d
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return v4(g[6] ?? 0, g[7] ?? 0); // ::ffff:0:a.b.c.d
  if (zeros(0, 6) && ((g[6] ?? 0) !== 0 || (g[7] ?? 0) > 1)) return v4(g[6] ?? 0, g[7] ?? 0); // ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return v4(g[6] ?? 0, g[7] ?? 0); // 64:ff9b::/96
  if (g[0] === 0x2002) return v4(g[1] ?? 0, g[2] ?? 0); // 6to4
  return undefined;
}

/** True when `address` (IPv4 or IPv6 literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, "ipv4");
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner !== undefined) return isPublicAddress(inner);
    return !blocked.check(address.split("%")[0] ?? address, "ipv6");
  }
  return false;
}
