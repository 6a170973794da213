import { forEachEngine } from "../helpers/setup.js";
import { expectRefused, outcome, ssrfCase, useSsrf } from "./ssrf-harness.js";

/**
 * SSRF, part 1: the requested address itself. Every spelling of an internal address, and every
 * scheme that is not http(s), is refused with a 4xx code, and the internal canary sees no
 * connection (docs/security.md#decisions). The canary listens on every local address at its port, so each loopback
 * spelling below would reach it if the policy let the browser go.
 */
forEachEngine((engine) => {
  const h = useSsrf(engine);
  const address = ssrfCase(h, "address");
  const scheme = ssrfCase(h, "scheme");
  const SMALL = { width: 400, height: 300, timeout: 20_000 };
  const refuses = async (url: string) => expectRefused(await outcome(h.render({ url, ...SMALL })));

  /** Spellings of the canary's host; `{port}` is its port. */
  const LOOPBACK = [
    ["dotted IPv4", "http://127.0.0.1:{port}/"],
    ["decimal IPv4", "http://2130706433:{port}/"],
    ["octal IPv4", "http://0177.0.0.1:{port}/"],
    ["whole octal IPv4", "http://017700000001:{port}/"],
    ["hex IPv4 (two parts)", "http://0x7f.1:{port}/"],
    ["whole hex IPv4", "http://0x7f000001:{port}/"],
    ["short IPv4 127.1", "http://127.1:{port}/"],
    ["short IPv4 127.0.1", "http://127.0.1:{port}/"],
    ["zero-padded IPv4", "http://127.000.000.001:{port}/"],
    ["IPv4 with a trailing dot", "http://127.0.0.1.:{port}/"],
    ["another 127/8 address", "http://127.0.0.2:{port}/"],
    ["IPv6 loopback", "http://[::1]:{port}/"],
    ["IPv4-mapped IPv6", "http://[::ffff:127.0.0.1]:{port}/"],
    ["IPv4-mapped IPv6, long hex form", "http://[0:0:0:0:0:ffff:7f00:1]:{port}/"],
    ["IPv4-compatible IPv6", "http://[::127.0.0.1]:{port}/"],
    ["NAT64 IPv6", "http://[64:ff9b::127.0.0.1]:{port}/"],
    ["unspecified 0.0.0.0", "http://0.0.0.0:{port}/"],
    ["unspecified 0", "http://0:{port}/"],
    ["unspecified [::]", "http://[::]:{port}/"],
    ["localhost", "http://localhost:{port}/"],
    ["localhost with a trailing dot", "http://localhost.:{port}/"],
    ["uppercase LOCALHOST", "http://LOCALHOST:{port}/"],
    ["mixed-case LocalHost.", "http://LocalHost.:{port}/"],
    ["userinfo before the host", "http://public@127.0.0.1:{port}/"],
    ["userinfo naming a public host", "http://example.com:80@127.0.0.1:{port}/"],
    ["backslash before @", "http://127.0.0.1:{port}\\@example.com/"],
    ["a name resolving to 127.0.0.1", "http://internal.test:{port}/"],
    ["a name resolving to ::1", "http://v6.internal.test:{port}/"],
    ["a name resolving to ::ffff:127.0.0.1", "http://mapped.internal.test:{port}/"],
    ["https to loopback (a CONNECT tunnel)", "https://127.0.0.1:{port}/"],
    ["https to localhost", "https://localhost:{port}/"],
  ] as const;

  for (const [name, template] of LOOPBACK) {
    address(`refuses ${name} (${template})`, () => refuses(template.replace("{port}", String(h.canary.port))));
  }

  // Nothing listens on these (nothing can, here); they must be refused before any connection.
  const INTERNAL = [
    ["cloud metadata 169.254.169.254", "http://169.254.169.254/latest/meta-data/"],
    ["cloud metadata, decimal", "http://2852039166/latest/meta-data/"],
    ["cloud metadata, hex", "http://0xa9fea9fe/"],
    ["cloud metadata, IPv4-mapped IPv6", "http://[::ffff:a9fe:a9fe]/"],
    ["a name resolving to cloud metadata", "http://metadata.test/computeMetadata/v1/"],
    ["AWS IPv6 metadata fd00:ec2::254", "http://[fd00:ec2::254]/"],
    ["Alibaba metadata (CGNAT)", "http://100.100.100.200/"],
    ["CGNAT 100.64.0.1", "http://100.64.0.1/"],
    ["private 10.0.0.1", "http://10.0.0.1/"],
    ["private 172.16.0.1", "http://172.16.0.1/"],
    ["private 172.31.255.254", "http://172.31.255.254/"],
    ["private 192.168.1.1", "http://192.168.1.1/"],
    ["a name resolving to private addresses", "http://private.test/"],
    ["multicast 224.0.0.1", "http://224.0.0.1/"],
    ["IPv6 multicast ff02::1", "http://[ff02::1]/"],
    ["IPv6 unique local fd12:3456::1", "http://[fd12:3456::1]/"],
    ["IPv6 unique local fc00::1", "http://[fc00::1]/"],
    ["IPv6 link-local fe80::1", "http://[fe80::1]/"],
    ["link-local 169.254.1.1", "http://169.254.1.1/"],
    ["broadcast 255.255.255.255", "http://255.255.255.255/"],
  ] as const;

  for (const [name, url] of INTERNAL) address(`refuses ${name} (${url})`, () => refuses(url));

  const SCHEMES = [
    "file:///etc/passwd",
    "FILE:///etc/passwd",
    "file://localhost/etc/passwd",
    "ftp://127.0.0.1:{port}/",
    "gopher://127.0.0.1:{port}/_GET%20/%20HTTP/1.0",
    "dict://127.0.0.1:{port}/info",
    "ws://127.0.0.1:{port}/",
    "wss://127.0.0.1:{port}/",
    "data:text/html,<img src=http://127.0.0.1:{port}/>",
    "blob:http://127.0.0.1:{port}/0b7c9f2e-4f1c-4d8e-9a57-6f6d5d2c1a10",
    "javascript:fetch('http://127.0.0.1:{port}/')",
    "chrome://version",
    "view-source:http://127.0.0.1:{port}/",
    "about:blank",
  ] as const;

  for (const template of SCHEMES) {
    scheme(`refuses the scheme of ${template}`, () => refuses(template.replaceAll("{port}", String(h.canary.port))));
  }
});
