import { createDecipheriv, createHash, randomBytes } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../dist/config/index.js";
import type { ServerConfig } from "../dist/config/types.js";
import { ProjectStore } from "../dist/projects/store.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "renderkit-projects-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const config = (overrides: Partial<ServerConfig> = {}) => loadConfig({ env: {}, overrides: { dataDir: dir, ...overrides } });
const mode = async (path: string) => (await stat(path)).mode & 0o777;

interface Sealed {
  iv: string;
  tag: string;
  data: string;
}
/** Decrypts a sealed field the way the store documents it: AES-256-GCM, AAD `renderkit:<id>:<field>`. */
function unseal(masterHex: string, sealed: Sealed, aad: string): string {
  const decipher = createDecipheriv("aes-256-gcm", Buffer.from(masterHex, "hex"), Buffer.from(sealed.iv, "base64url"));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, "base64url")), decipher.final()]).toString("utf8");
}

describe("ProjectStore on the data directory", () => {
  it("creates the default project once, with fresh keys, and finds it again after a restart", async () => {
    const cfg = await config();
    const first = await ProjectStore.open(cfg);
    expect(first.created).toBeDefined();
    const { project, secretKey } = first.created!;
    expect(project.id).toBe("default");
    expect(secretKey).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(project.publishableKey).toMatch(/^pk_[A-Za-z0-9_-]{22}$/);
    expect(project.webhookSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(project.secretKeyHash).toBe(createHash("sha256").update(secretKey).digest("hex"));
    expect(project.linkSigningKey).toBe(secretKey);
    expect(project).toMatchObject({ enabled: true, allowTokenless: false, rateLimit: { requests: 120, perSeconds: 60 } });
    expect(first.store.bySecretKey(secretKey)).toBe(project);

    const second = await ProjectStore.open(cfg);
    expect(second.created).toBeUndefined();
    expect(second.store.list()).toHaveLength(1);
    const again = second.store.bySecretKey(secretKey);
    expect(again?.id).toBe("default");
    expect(again?.webhookSecret).toBe(project.webhookSecret);
    expect(again?.linkSigningKey).toBe(secretKey);
  });

  it("keeps projects.json and master.key private and free of plaintext secrets", async () => {
    const { created } = await ProjectStore.open(await config());
    const file = join(dir, "projects.json");
    expect(await mode(file)).toBe(0o600);
    expect(await mode(join(dir, "master.key"))).toBe(0o600);
    const text = await readFile(file, "utf8");
    expect(text).not.toContain(created!.secretKey);
    expect(text).not.toContain(created!.project.webhookSecret);
    expect(text).toContain(created!.project.secretKeyHash);
    expect(text).toContain(created!.project.publishableKey);
    // Serialising a project does not leak its secrets either.
    expect(JSON.stringify(created!.project)).not.toContain(created!.secretKey);
    expect(JSON.stringify(created!.project)).not.toContain(created!.project.webhookSecret);
  });

  it("encrypts the link signing key with the master key (master.key or RENDERKIT_MASTER_KEY)", async () => {
    const { created } = await ProjectStore.open(await config());
    const master = (await readFile(join(dir, "master.key"), "utf8")).trim();
    expect(master).toMatch(/^[0-9a-f]{64}$/);
    const stored = JSON.parse(await readFile(join(dir, "projects.json"), "utf8"));
    const entry = stored.projects[0];
    expect(unseal(master, entry.linkSigningKey, "renderkit:default:linkSigningKey")).toBe(created!.secretKey);
    expect(unseal(master, entry.webhookSecret, "renderkit:default:webhookSecret")).toBe(created!.project.webhookSecret);
    // Another key does not open it.
    expect(() => unseal(randomBytes(32).toString("hex"), entry.linkSigningKey, "renderkit:default:linkSigningKey")).toThrow();
  });

  it("uses a given master key and refuses the wrong one without generating another", async () => {
    const key = randomBytes(32).toString("hex");
    const cfg = await config();
    const { created } = await ProjectStore.open(cfg, undefined, { masterKey: key });
    await expect(stat(join(dir, "master.key"))).rejects.toThrow(); // not written when given
    const stored = JSON.parse(await readFile(join(dir, "projects.json"), "utf8"));
    expect(unseal(key, stored.projects[0].linkSigningKey, "renderkit:default:linkSigningKey")).toBe(created!.secretKey);

    const wrong = ProjectStore.open(cfg, undefined, { masterKey: randomBytes(32).toString("hex") });
    await expect(wrong).rejects.toBeInstanceOf(ConfigError);
    await expect(ProjectStore.open(cfg, undefined, { masterKey: randomBytes(32).toString("hex") })).rejects.toThrow(
      /cannot decrypt/,
    );
    await expect(ProjectStore.open(cfg, undefined, { masterKey: "abc" })).rejects.toThrow(
      "RENDERKIT_MASTER_KEY must be 64 hexadecimal characters",
    );
    // Without the key, the missing master.key is reported, not silently replaced.
    await expect(ProjectStore.open(cfg)).rejects.toThrow(/master\.key is missing/);
    await expect(stat(join(dir, "master.key"))).rejects.toThrow();
  });

  it("create() persists a project with its own keys; list/byId/byPublishableKey find it", async () => {
    const cfg = await config();
    const { store, created } = await ProjectStore.open(cfg);
    const made = await store.create("Marketing Site", { rateLimit: { requests: 5, perSeconds: 10 }, formats: ["png"] });
    expect(made.project.id).toBe("marketing-site");
    expect(made.project.name).toBe("Marketing Site");
    expect(made.project.rateLimit).toEqual({ requests: 5, perSeconds: 10 });
    expect(made.project.formats).toEqual(["png"]);
    expect(made.secretKey).not.toBe(created!.secretKey);
    expect(store.list().map((p) => p.id)).toEqual(["default", "marketing-site"]);
    expect(store.byId("marketing-site")).toBe(made.project);
    expect(store.byPublishableKey(made.project.publishableKey)).toBe(made.project);
    expect(store.byPublishableKey(made.secretKey)).toBeUndefined();

    const same = await store.create("Marketing Site");
    expect(same.project.id).toMatch(/^marketing-site-[0-9a-f]{6}$/);
    await expect(store.create("x", { id: "default" })).rejects.toThrow('A project with id "default" exists already');
    await expect(store.create("   ")).rejects.toThrow("A project name must be 1 to 200 characters");

    const reopened = (await ProjectStore.open(cfg)).store;
    expect(reopened.list()).toHaveLength(3);
    expect(reopened.bySecretKey(made.secretKey)?.id).toBe("marketing-site");
    expect(reopened.bySecretKey(made.secretKey)?.linkSigningKey).toBe(made.secretKey);
    expect(await mode(join(dir, "projects.json"))).toBe(0o600);
  });

  it("concurrent create() calls all persist", async () => {
    const { store } = await ProjectStore.open(await config(), undefined, { createDefault: false });
    const made = await Promise.all(["a", "b", "c", "d"].map((name) => store.create(name)));
    const reopened = (await ProjectStore.open(await config())).store;
    expect(reopened.list().map((p) => p.id)).toEqual(["a", "b", "c", "d"]);
    for (const m of made) expect(reopened.bySecretKey(m.secretKey)?.id).toBe(m.project.id);
  });

  it("createDefault: false makes nothing until asked; reload() sees another process's project", async () => {
    const cfg = await config();
    const { store, created } = await ProjectStore.open(cfg, undefined, { createDefault: false });
    expect(created).toBeUndefined();
    expect(store.list()).toEqual([]);
    await expect(stat(join(dir, "projects.json"))).rejects.toThrow();

    const other = (await ProjectStore.open(cfg, undefined, { createDefault: false })).store;
    const made = await other.create("later");
    expect(store.bySecretKey(made.secretKey)).toBeUndefined();
    await store.reload();
    expect(store.bySecretKey(made.secretKey)?.id).toBe("later");
  });

  it("tightens a projects.json that others can read", async () => {
    await ProjectStore.open(await config());
    const file = join(dir, "projects.json");
    await chmod(file, 0o644);
    const warnings: string[] = [];
    const logger = { debug() {}, info() {}, warn: (m: string) => warnings.push(m), error() {} };
    await ProjectStore.open(await config(), logger);
    expect(await mode(file)).toBe(0o600);
    expect(warnings.join()).toContain("mode set to 0600");
  });

  it("reports a damaged projects.json by name", async () => {
    await writeFile(join(dir, "projects.json"), "{ nope");
    await expect(ProjectStore.open(await config())).rejects.toThrow(`${join(dir, "projects.json")} is not valid JSON`);
    await writeFile(join(dir, "projects.json"), JSON.stringify({ version: 1, projects: [{ id: "x" }] }));
    await expect(ProjectStore.open(await config())).rejects.toThrow("is damaged: projects[0] lacks a field");
  });
});

describe("ProjectStore on config-file projects", () => {
  const A = {
    id: "alpha",
    name: "Alpha",
    secretKey: "sk_test_alpha_0123456789abcdef",
    publishableKey: "pk_test_alpha",
    webhookSecret: "whsec_alpha_0123456789abcdef",
  };
  const B = {
    id: "beta",
    secretKey: "sk_test_beta_0123456789abcdefg",
    publishableKey: "pk_test_beta",
    webhookSecret: "whsec_beta_0123456789abcdefgh",
    enabled: false,
    rateLimit: { requests: 3, perSeconds: 60 },
    allowTokenless: true,
  };
  const C_KEY = "sk_test_gamma_0123456789abcdef";
  const C = {
    id: "gamma",
    secretKeyHash: createHash("sha256").update(C_KEY).digest("hex"),
    publishableKey: "pk_test_gamma",
    webhookSecret: "whsec_gamma_0123456789abcdef",
  };

  it("uses them, hashes the secret key, keeps it only as the link signing key, writes nothing", async () => {
    const { store, created } = await ProjectStore.open(await config({ projects: [A, B, C] }));
    expect(created).toBeUndefined();
    await expect(stat(join(dir, "projects.json"))).rejects.toThrow();
    await expect(stat(join(dir, "master.key"))).rejects.toThrow();
    const alpha = store.byId("alpha")!;
    expect(alpha).toMatchObject({
      name: "Alpha",
      enabled: true,
      allowTokenless: false,
      rateLimit: { requests: 120, perSeconds: 60 },
    });
    expect(alpha.secretKeyHash).toBe(createHash("sha256").update(A.secretKey).digest("hex"));
    expect(alpha.linkSigningKey).toBe(A.secretKey);
    expect(alpha.webhookSecret).toBe(A.webhookSecret);
    expect(Object.values(alpha)).not.toContain(A.secretKey);
    expect(store.byId("beta")).toMatchObject({
      name: "beta",
      enabled: false,
      allowTokenless: true,
      rateLimit: { requests: 3, perSeconds: 60 },
    });
    const gamma = store.byId("gamma")!;
    expect(gamma.linkSigningKey).toBeUndefined();
    expect(store.bySecretKey(C_KEY)).toBe(gamma);
    expect(store.byPublishableKey("pk_test_beta")?.id).toBe("beta");
    expect(store.source).toBe("config");
  });

  it("finds the right project by secret key and nothing for a wrong key of the same length", async () => {
    const { store } = await ProjectStore.open(await config({ projects: [A, B, C] }));
    expect(store.bySecretKey(A.secretKey)?.id).toBe("alpha");
    expect(store.bySecretKey(B.secretKey)?.id).toBe("beta");
    const flipped = A.secretKey.slice(0, -1) + (A.secretKey.endsWith("f") ? "e" : "f");
    expect(flipped).toHaveLength(A.secretKey.length);
    expect(store.bySecretKey(flipped)).toBeUndefined();
    expect(store.bySecretKey(A.secretKey.toUpperCase())).toBeUndefined();
    expect(store.bySecretKey("")).toBeUndefined();
    expect(store.bySecretKey(C.secretKeyHash)).toBeUndefined(); // the hash is not the key
    expect(store.bySecretKey(A.publishableKey)).toBeUndefined();
  });

  it("refuses create() with a clear error", async () => {
    const { store } = await ProjectStore.open(await config({ projects: [A] }));
    await expect(store.create("new")).rejects.toThrow("Projects are defined in the config file (projects)");
  });
});
