import { randomBytes, timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "@renderkit/core";
import type { Redis } from "ioredis";
import { ConfigError } from "../config/error.js";
import type { Project, ProjectConfig, ServerConfig } from "../config/types.js";
import { FileProjectDocument, type ProjectDocument, RedisProjectDocument } from "./documents.js";
import { linkFieldsOf, PROJECTS_FILE, type StoredFile, type StoredProject } from "./file.js";
import { aadOf, seal, unseal } from "./sealed.js";
import { generateKeys, loadMasterKey, MASTER_KEY_FILE, makeProject, readMasterKey, sha256 } from "./secrets.js";

export { generateKeys } from "./secrets.js";

/**
 * Projects and their keys (docs/server-config.md "Projects and keys").
 *
 * The secret key is kept only as its SHA-256: API calls hash the presented key and compare
 * hashes in constant time. One exception is unavoidable: render-link tokens are HMACs of the
 * query keyed with the secret key itself, and an HMAC cannot be checked with a hash of its key.
 * So the key is kept a second time, as `linkSigningKey`, and in `projects.json` it (and the
 * webhook secret, which signs outgoing webhooks and so is needed in clear too) is encrypted with
 * AES-256-GCM under a master key: `RENDERKIT_MASTER_KEY` (64 hex) or `<dataDir>/master.key`.
 * A copy of `projects.json` alone (a backup, a support bundle) then reveals no usable secret.
 *
 * `webhookSecret` and `linkSigningKey` are non-enumerable on the `Project` objects handed out, so
 * logging or serialising a project cannot leak them; read them by name.
 */

export interface OpenProjectsOptions {
  /** Master key, 64 hex; default `RENDERKIT_MASTER_KEY`, else `<dataDir>/master.key` (generated once). */
  masterKey?: string;
  /** Create the "default" project when `projects.json` does not exist yet. Default true (the CLI passes false). */
  createDefault?: boolean;
  /** With `config.redis`: the connection the projects document is read from (required then). */
  redis?: Redis;
}

export interface CreateProjectOptions {
  /** Default: derived from the name, made unique. */
  id?: string;
  enabled?: boolean;
  rateLimit?: { requests: number; perSeconds: number };
  formats?: string[];
  allowTokenless?: boolean;
}

/** A project just made, with the one plaintext copy of its secret key the caller will ever see. */
export interface CreatedProject {
  project: Project;
  secretKey: string;
}

interface Entry {
  project: Project;
  hash: Buffer;
}

function slug(name: string): string {
  return name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "");
}

/**
 * The projects the server knows: from the config file, from `<dataDir>/projects.json` (one
 * process), or from Redis (API and worker nodes; `RENDERKIT_MASTER_KEY` the same on every node).
 */
export class ProjectStore {
  private entries: Entry[] = [];
  private byPublishable = new Map<string, Project>();
  private writing: Promise<unknown> = Promise.resolve();
  private key: Buffer | undefined;
  /** The document's version when it was last read, and when that was last checked. */
  private loadedVersion = "";
  private checkedAt = 0;

  private constructor(
    private readonly config: ServerConfig,
    /** Where created projects live; undefined when the projects come from the config file. */
    private readonly doc: ProjectDocument | undefined,
    private readonly options: OpenProjectsOptions,
    private readonly logger?: Logger,
  ) {}

  /**
   * Opens the store. Config-file projects when `config.projects` is non-empty; otherwise
   * `projects.json`, creating it with a "default" project on first use. `created` then carries
   * that project and its secret key, which the caller shows once: it is not stored in clear.
   */
  static async open(
    config: ServerConfig,
    logger?: Logger,
    options: OpenProjectsOptions = {},
  ): Promise<{ store: ProjectStore; created?: CreatedProject }> {
    if (config.projects.length > 0) {
      const store = new ProjectStore(config, undefined, options, logger);
      store.replace(config.projects.map((p) => store.fromConfig(p)));
      logger?.info("projects loaded", { source: "config", count: config.projects.length });
      return { store };
    }
    if (config.redis && !options.redis) throw new Error("ProjectStore.open: config.redis is set, give options.redis");
    const doc =
      config.redis && options.redis
        ? new RedisProjectDocument(options.redis, config.redis.prefix)
        : new FileProjectDocument(join(config.dataDir, PROJECTS_FILE), logger);
    const store = new ProjectStore(config, doc, options, logger);
    const existed = await store.reload();
    let created: CreatedProject | undefined;
    if (!existed && options.createDefault !== false) created = await store.create("Default", { id: "default" });
    logger?.info("projects loaded", { source: doc.source, count: store.entries.length });
    return created ? { store, created } : { store };
  }

  /** The project whose secret key this is. Compares the key's hash with every project's, in constant time. */
  bySecretKey(key: string): Project | undefined {
    const presented = sha256(key);
    let found: Project | undefined;
    for (const entry of this.entries) {
      // No early exit: the time taken does not tell which project, if any, matched.
      const same = timingSafeEqual(presented, entry.hash);
      found = same && !found ? entry.project : found;
    }
    return found;
  }

  /** The project a publishable key (public, used in render links) names. */
  byPublishableKey(key: string): Project | undefined {
    return this.byPublishable.get(key);
  }

  byId(id: string): Project | undefined {
    return this.entries.find((e) => e.project.id === id)?.project;
  }

  list(): Project[] {
    return this.entries.map((e) => e.project);
  }

  /** Where the projects come from: `config`, a `projects.json` path, or `redis <prefix>:projects`. */
  get source(): string {
    return this.doc?.source ?? "config";
  }

  /**
   * Re-reads the projects document (a project made by `renderkit projects create` while the
   * server runs). Returns false when there is none yet. A no-op for config-file projects.
   */
  async reload(): Promise<boolean> {
    if (!this.doc) return true;
    this.loadedVersion = await this.doc.version();
    const stored = await this.doc.read();
    if (!stored) return false;
    if (stored.projects.length > 0) this.key ??= await this.masterKey(false);
    this.replace(stored.projects.map((p) => this.fromStored(p)));
    return true;
  }

  /**
   * Re-reads the projects when they changed since they were read, so a key made by `renderkit
   * projects create` works at once; checks at most once a second (unknown keys cost one stat or
   * one Redis read). Resolves true when it re-read them.
   */
  async refreshIfChanged(now = Date.now()): Promise<boolean> {
    if (!this.doc || now - this.checkedAt < 1_000) return false;
    this.checkedAt = now;
    const version = await this.doc.version().catch(() => this.loadedVersion);
    if (version === "0" || version === this.loadedVersion) return false;
    return this.reloadOrKeep();
  }

  /**
   * The project as the projects document has it now (the run gate of queued renders): re-reads
   * the projects when they changed, checked on every call (one stat, or one Redis read), so a
   * render does not start after its project was disabled however recently. Throws when the
   * document's version cannot be read (Redis unreachable): the caller waits rather than decide on
   * projects that may be stale. A document that changed but cannot be read keeps the projects
   * loaded, as `refreshIfChanged` does.
   */
  async current(id: string): Promise<Project | undefined> {
    if (this.doc) {
      const version = await this.doc.version();
      if (version !== "0" && version !== this.loadedVersion) await this.reloadOrKeep();
    }
    return this.byId(id);
  }

  /** Re-reads the projects; on failure keeps those loaded (logged) and resolves false. */
  private async reloadOrKeep(): Promise<boolean> {
    const source = this.doc?.source ?? "config";
    try {
      await this.reload();
    } catch (error) {
      this.logger?.warn("the projects changed but could not be read; keeping the projects loaded", {
        source,
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
    this.logger?.info("projects reloaded", { source, count: this.entries.length });
    return true;
  }

  /** Makes a project with fresh keys and saves it in `projects.json`; the secret key is returned only here. */
  create(name: string, options: CreateProjectOptions = {}): Promise<CreatedProject> {
    const run = this.writing.then(() => this.createNow(name, options));
    this.writing = run.catch(() => {});
    return run;
  }

  private async createNow(name: string, options: CreateProjectOptions): Promise<CreatedProject> {
    const doc = this.doc;
    if (!doc) {
      throw new Error(
        "Projects are defined in the config file (projects); add the project there, or remove them to use the data directory's projects",
      );
    }
    const label = name.trim();
    if (label.length === 0 || label.length > 200 || /[\p{Cc}]/u.test(label))
      throw new Error("A project name must be 1 to 200 characters without control characters");
    if (options.id !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(options.id)) {
      throw new Error("A project id must be 1 to 64 letters, digits, '-' or '_' (starting with a letter or digit)");
    }
    const keys = generateKeys();
    let id = "";
    let saved: StoredFile | undefined;
    await doc.update(async (current) => {
      const stored: StoredFile = current ?? { version: 1, projects: [] };
      this.key ??= await this.masterKey(stored.projects.length === 0);
      const taken = new Set(stored.projects.map((p) => p.id));
      if (options.id !== undefined && taken.has(options.id)) throw new Error(`A project with id "${options.id}" exists already`);
      id = options.id ?? (slug(label) || "project");
      while (taken.has(id)) id = `${(slug(label) || "project").slice(0, 33)}-${randomBytes(3).toString("hex")}`;
      const entry: StoredProject = {
        id,
        name: label,
        secretKeyHash: sha256(keys.secretKey).toString("hex"),
        publishableKey: keys.publishableKey,
        webhookSecret: seal(this.key, keys.webhookSecret, aadOf(id, "webhookSecret")),
        linkSigningKey: seal(this.key, keys.secretKey, aadOf(id, "linkSigningKey")),
        enabled: options.enabled ?? true,
        ...(options.rateLimit ? { rateLimit: { ...options.rateLimit } } : {}),
        ...(options.formats ? { formats: [...options.formats] } : {}),
        allowTokenless: options.allowTokenless ?? false,
        createdAt: new Date().toISOString(),
      };
      saved = { ...stored, projects: [...stored.projects, entry] };
      return saved;
    });
    this.loadedVersion = await doc.version().catch(() => "");
    this.replace((saved as StoredFile).projects.map((p) => this.fromStored(p)));
    this.logger?.info("project created", { id });
    return { project: this.byId(id)!, secretKey: keys.secretKey };
  }

  /**
   * Enables or disables a project of the projects document (`renderkit projects disable ID`):
   * its keys then answer 401 `ProjectNotEnabled` on every node, within a second.
   */
  setEnabled(id: string, enabled: boolean): Promise<Project> {
    const run = this.writing.then(async () => {
      const doc = this.doc;
      if (!doc) throw new Error("Projects are defined in the config file (projects); change `enabled` there");
      let saved: StoredFile | undefined;
      await doc.update(async (current) => {
        const stored: StoredFile = current ?? { version: 1, projects: [] };
        if (!stored.projects.some((p) => p.id === id)) throw new Error(`No project with id "${id}"`);
        saved = { ...stored, projects: stored.projects.map((p) => (p.id === id ? { ...p, enabled } : p)) };
        return saved;
      });
      const files = (saved as StoredFile).projects;
      if (files.length > 0) this.key ??= await this.masterKey(false);
      this.loadedVersion = await doc.version().catch(() => "");
      this.replace(files.map((p) => this.fromStored(p)));
      this.logger?.info(enabled ? "project enabled" : "project disabled", { id });
      return this.byId(id) as Project;
    });
    this.writing = run.catch(() => {});
    return run;
  }

  /**
   * The master key for the server's other sealed data (the caller secrets of queued renders): the
   * one the projects' keys are sealed with. Generated when there is none yet and `mayGenerate`;
   * a worker passes false (a key of its own would open nothing the API nodes sealed) and gets
   * undefined then.
   */
  async sharedMasterKey(mayGenerate: boolean): Promise<Buffer | undefined> {
    if (this.key) return this.key;
    // No project's keys are sealed yet (reload() loads the key when some are), so a new key is safe.
    if (!mayGenerate) {
      this.key = await readMasterKey(this.config.dataDir, this.givenMasterKey(), this.logger);
      return this.key;
    }
    this.key = await this.masterKey(true);
    return this.key;
  }

  private givenMasterKey(): string | undefined {
    return this.options.masterKey ?? (process.env.RENDERKIT_MASTER_KEY || undefined);
  }

  private async masterKey(mayGenerate: boolean): Promise<Buffer> {
    const given = this.givenMasterKey();
    if (given === undefined && mayGenerate && this.config.redis) {
      const file = join(this.config.dataDir, MASTER_KEY_FILE);
      if (!(await readMasterKey(this.config.dataDir, undefined).catch(() => undefined))) {
        this.logger?.warn(
          "no RENDERKIT_MASTER_KEY: the master key is generated into this node's data directory; it seals the projects' keys in Redis and the caller secrets of queued renders, so give every other node the same key (RENDERKIT_MASTER_KEY) or they can neither read the projects nor run those renders",
          { file },
        );
      }
    }
    return loadMasterKey(this.config.dataDir, given, mayGenerate, this.logger, this.source);
  }

  private replace(projects: Entry[]): void {
    this.entries = projects;
    this.byPublishable = new Map(projects.map((e) => [e.project.publishableKey, e.project]));
  }

  private fromConfig(p: ProjectConfig): Entry {
    const hash = p.secretKey !== undefined ? sha256(p.secretKey) : Buffer.from(p.secretKeyHash ?? "", "hex");
    const base = {
      id: p.id,
      name: p.name ?? p.id,
      secretKeyHash: hash.toString("hex"),
      publishableKey: p.publishableKey,
      enabled: p.enabled ?? true,
      rateLimit: p.rateLimit ?? this.config.rateLimit,
      ...(p.formats ? { formats: p.formats } : {}),
      allowTokenless: p.allowTokenless ?? false,
      ...linkFieldsOf(p),
      ...(p.s3 ? { s3: p.s3 } : {}),
    };
    return { project: makeProject(base, p.webhookSecret, p.secretKey), hash };
  }

  private fromStored(p: StoredProject): Entry {
    const key = this.key!;
    let webhookSecret: string;
    let linkSigningKey: string;
    try {
      webhookSecret = unseal(key, p.webhookSecret, aadOf(p.id, "webhookSecret"));
      linkSigningKey = unseal(key, p.linkSigningKey, aadOf(p.id, "linkSigningKey"));
    } catch {
      throw new ConfigError(
        `cannot decrypt the keys of project "${p.id}" in ${this.source}: the master key (RENDERKIT_MASTER_KEY or ${MASTER_KEY_FILE}) is not the one they were written with` +
          (this.config.redis ? "; give every node the same RENDERKIT_MASTER_KEY" : ""),
      );
    }
    const base = {
      id: p.id,
      name: p.name,
      secretKeyHash: p.secretKeyHash.toLowerCase(),
      publishableKey: p.publishableKey,
      enabled: p.enabled,
      rateLimit: p.rateLimit ?? this.config.rateLimit,
      ...(p.formats ? { formats: p.formats } : {}),
      allowTokenless: p.allowTokenless ?? false,
      ...linkFieldsOf(p),
    };
    return { project: makeProject(base, webhookSecret, linkSigningKey), hash: Buffer.from(p.secretKeyHash, "hex") };
  }
}
