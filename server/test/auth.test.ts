import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RenderError } from "@renderkit/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../dist/config/index.js";
import { authenticate } from "../dist/http/auth.js";
import { ProjectStore } from "../dist/projects/store.js";

const ON = {
  id: "on",
  secretKey: "sk_test_on_0123456789abcdef",
  publishableKey: "pk_test_on",
  webhookSecret: "whsec_on_0123456789abcdef",
};
const OFF = {
  id: "off",
  secretKey: "sk_test_off_0123456789abcdef",
  publishableKey: "pk_test_off",
  webhookSecret: "whsec_off_0123456789abcdef",
  enabled: false,
};

let dir: string;
let store: ProjectStore;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-auth-"));
  const config = await loadConfig({ env: {}, overrides: { dataDir: dir, projects: [ON, OFF] } });
  store = (await ProjectStore.open(config)).store;
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function refusal(header: string | null | undefined): RenderError {
  try {
    authenticate(header, store);
  } catch (error) {
    expect(error).toBeInstanceOf(RenderError);
    return error as RenderError;
  }
  throw new Error("authenticate accepted the header");
}

describe("authenticate", () => {
  it("accepts Bearer <secret key>, with any case of the scheme and surrounding space", () => {
    expect(authenticate(`Bearer ${ON.secretKey}`, store).id).toBe("on");
    expect(authenticate(`bearer ${ON.secretKey}`, store).id).toBe("on");
    expect(authenticate(`  BEARER   ${ON.secretKey}  `, store).id).toBe("on");
  });

  it.each([null, undefined, "", "   "])("NoApiKeySupplied for %j", (header) => {
    const error = refusal(header);
    expect(error.code).toBe("NoApiKeySupplied");
    expect(error.message).toBe("No API key: send Authorization: Bearer <secret key>");
  });

  it.each([
    ["no scheme", ON.secretKey],
    ["another scheme", `Basic ${ON.secretKey}`],
    ["scheme only", "Bearer"],
    ["two tokens", `Bearer ${ON.secretKey} extra`],
    ["token too short", "Bearer abc1234"],
    ["token too long", `Bearer ${"a".repeat(257)}`],
    ["non-ASCII token", `Bearer ${ON.secretKey}é`],
    ["control character", `Bearer sk_test\u0001abcdefgh`],
  ])("ApiKeyWrongFormat: %s", (_name, header) => {
    const error = refusal(header);
    expect(error.code).toBe("ApiKeyWrongFormat");
    expect(error.message).not.toContain(ON.secretKey);
  });

  it("ApiKeyNotFound for an unknown key (never echoing it), with a hint for a publishable key", () => {
    const unknown = `${ON.secretKey.slice(0, -1)}X`;
    const error = refusal(`Bearer ${unknown}`);
    expect(error.code).toBe("ApiKeyNotFound");
    expect(error.message).not.toContain(unknown);
    const publishable = refusal(`Bearer ${ON.publishableKey}`);
    expect(publishable.code).toBe("ApiKeyNotFound");
    expect(publishable.message).toContain("publishable key");
  });

  it("ProjectNotEnabled for a disabled project's key", () => {
    const error = refusal(`Bearer ${OFF.secretKey}`);
    expect(error.code).toBe("ProjectNotEnabled");
    expect(error.message).not.toContain(OFF.secretKey);
  });
});
