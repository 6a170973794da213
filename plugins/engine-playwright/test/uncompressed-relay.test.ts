import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import type { Logger } from "@renderkit/core";
import { findChromium } from "@renderkit/core/chromium";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChromiumProcess } from "../../../core/dist/chromium/browser/chromium-process.js";
import { uncompressedRelay } from "../dist/uncompressed-relay.js";

/**
 * Playwright's WebSocket client offers per-message compression and Chromium accepts it, so every
 * large DevTools message (a screenshot) would be deflated and inflated. The engine connects
 * through a relay that drops the offer. Checked against a real Chromium: its handshake answer.
 */

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** Sends a WebSocket handshake offering compression to `endpoint`; resolves with the answer's head. */
function handshake(endpoint: string): Promise<string> {
  const url = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      const end = answer.indexOf("\r\n\r\n");
      if (end < 0) return;
      socket.destroy();
      resolve(answer.slice(0, end));
    });
    socket.on("error", reject);
    socket.write(
      [
        `GET ${url.pathname} HTTP/1.1`,
        `Host: ${url.host}`,
        "Upgrade: websocket",
        "Connection: Upgrade",
        `Sec-WebSocket-Key: ${randomBytes(16).toString("base64")}`,
        "Sec-WebSocket-Version: 13",
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits",
        "",
        "",
      ].join("\r\n"),
    );
  });
}

describe("the uncompressed DevTools relay (real Chromium)", () => {
  let proc: ChromiumProcess;
  beforeAll(async () => {
    proc = await ChromiumProcess.launch({ executablePath: findChromium(), logger: silent });
  });
  afterAll(() => proc?.kill());

  it("Chromium accepts compression when offered directly, and is never offered it through the relay", async () => {
    const direct = await handshake(proc.wsEndpoint);
    expect(direct).toMatch(/^HTTP\/1\.1 101/);
    expect(direct).toMatch(/sec-websocket-extensions: *permessage-deflate/i);
    const relay = await uncompressedRelay(proc.wsEndpoint);
    try {
      const relayed = await handshake(relay.endpoint);
      expect(relayed).toMatch(/^HTTP\/1\.1 101/);
      expect(relayed).not.toMatch(/sec-websocket-extensions/i);
    } finally {
      relay.close();
    }
  });

  it("carries a Playwright connection, and closing it ends that connection", async () => {
    const relay = await uncompressedRelay(proc.wsEndpoint);
    const browser = await chromium.connectOverCDP(relay.endpoint, { timeout: 30_000 });
    const disconnected = new Promise<void>((resolve) => browser.on("disconnected", () => resolve()));
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.setContent("<p>through the relay</p>");
    expect(await page.textContent("p")).toBe("through the relay");
    expect((await page.screenshot()).subarray(1, 4).toString()).toBe("PNG");
    relay.close();
    await disconnected;
    expect(browser.isConnected()).toBe(false);
  });
});
