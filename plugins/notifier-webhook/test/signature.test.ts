import { createHmac } from "node:crypto";
import { signWebhook, verifyWebhookSignature } from "@renderkit/notifier-webhook";
import { describe, expect, it } from "vitest";

const BODY = '{"event":"render.succeeded","renderId":"abc","note":"héllo ✓"}';
const SECRET = "whsec_abc";
const T = 1_700_000_000;
const NOW = T * 1000;
const hex = (t: number | string, body: string | Buffer, secret = SECRET) =>
  createHmac("sha256", secret).update(`${t}.`).update(body).digest("hex");

describe("signWebhook", () => {
  it("signs `<t>.<body>` with HMAC-SHA256 in lowercase hex (spec)", () => {
    expect(signWebhook(BODY, SECRET, T)).toBe(`t=${T},sha256=${hex(T, BODY)}`);
    expect(signWebhook(BODY, SECRET)).toMatch(/^t=\d{10},sha256=[0-9a-f]{64}$/);
  });

  it("uses the current time by default", () => {
    const t = Number(/^t=(\d+)/.exec(signWebhook(BODY, SECRET))?.[1]);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);
  });

  it("refuses an empty secret or a bad timestamp", () => {
    expect(() => signWebhook(BODY, "", T)).toThrow(TypeError);
    expect(() => signWebhook(BODY, SECRET, 1.5)).toThrow(RangeError);
    expect(() => signWebhook(BODY, SECRET, -1)).toThrow(RangeError);
  });
});

describe("verifyWebhookSignature", () => {
  const header = signWebhook(BODY, SECRET, T);

  it("accepts its own signature over the string or the raw bytes", () => {
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhookSignature(header, Buffer.from(BODY, "utf8"), SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhookSignature(header, new TextEncoder().encode(BODY), SECRET, { now: NOW })).toBe(true);
  });

  it("refuses a tampered body, a wrong secret, and a re-serialised body", () => {
    expect(verifyWebhookSignature(header, BODY.replace("abc", "abd"), SECRET, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(header, BODY, "whsec_abd", { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(header, JSON.stringify(JSON.parse(BODY), null, 1), SECRET, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(header, `${BODY} `, SECRET, { now: NOW })).toBe(false);
  });

  it("enforces the replay window: 300 s by default, both directions, configurable", () => {
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: NOW + 300_000 })).toBe(true);
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: NOW + 301_000 })).toBe(false);
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: NOW - 301_000 })).toBe(false);
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: NOW + 500_000, toleranceSeconds: 600 })).toBe(true);
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: NOW + 2_000, toleranceSeconds: 1 })).toBe(false);
    expect(verifyWebhookSignature(signWebhook(BODY, SECRET, T - 3_600), BODY, SECRET, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(signWebhook(BODY, SECRET), BODY, SECRET)).toBe(true);
  });

  it("tolerates spaces, other parts and several sha256 values (secret rotation)", () => {
    const token = hex(T, BODY);
    expect(verifyWebhookSignature(` t=${T} , sha256=${token} `, BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhookSignature(`v0=zzz,sha256=${token},t=${T},x`, BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhookSignature(`t=${T},sha256=${"0".repeat(64)},sha256=${token}`, BODY, SECRET, { now: NOW })).toBe(true);
    expect(verifyWebhookSignature(`t=${T},sha256=${hex(T, BODY, "old")}`, BODY, SECRET, { now: NOW })).toBe(false);
  });

  it("returns false for malformed input and never throws", () => {
    const token = hex(T, BODY);
    const bad: unknown[] = [
      undefined,
      "",
      "garbage",
      `sha256=${token}`,
      `t=${T}`,
      `t=,sha256=${token}`,
      `t=abc,sha256=${token}`,
      `t=${T}.5,sha256=${token}`,
      `t=-${T},sha256=${token}`,
      `t=${T},t=${T},sha256=${token}`,
      `t=${T},sha256=${token.slice(2)}`,
      `t=${T},sha256=${token}00`,
      `t=${T},sha256=${token.replace(/.$/, "g")}`,
      `t=${"9".repeat(400)},sha256=${token}`,
      42,
      null,
    ];
    for (const value of bad) {
      expect(verifyWebhookSignature(value as string | undefined, BODY, SECRET, { now: NOW }), String(value)).toBe(false);
    }
    expect(verifyWebhookSignature(header, BODY, "", { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(header, null as unknown as string, SECRET, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(header, BODY, undefined as unknown as string, { now: NOW })).toBe(false);
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: Number.NaN })).toBe(false);
    expect(verifyWebhookSignature(header, BODY, SECRET, { now: NOW, toleranceSeconds: Number.NaN })).toBe(false);
  });
});
