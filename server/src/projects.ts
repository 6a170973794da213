import { randomBytes, timingSafeEqual } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "@renderkit/core";
import { ConfigError } from "./config.js";
import {
  checkStored,
  mtimeOf,
  PROJECTS_FILE,
  type StoredFile,
  type StoredProject,
  tighten,
  writePrivate,
} from "./project-file.js";
import { aadOf, generateKeys, loadMasterKey, MASTER_KEY_FILE, makeProject, seal, sha256, unseal } from "./project-secrets.js";
import type { Project, ProjectConfig, ServerConfig } from "./types.js";

export { generateKeys } from "./project-secrets.js";

/**
 * Projects and their keys (DESIGN §3, §5).
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

/** The projects the server knows, from the config file or from `<dataDir>/projects.json`. */
export class ProjectStore {
  private entries: Entry[] = [];
  private byPublishable = new Map<string, Project>();
  private writing: Promise<unknown> = Promise.resolve();
  private key: Buffer | undefined;
  /** Modification time of `projects.json` when it was last read, and when that was last checked. */
  private loadedMtime = 0;
  private checkedAt = 0;

  private constructor(
    private readonly config: ServerConfig,
    /** `projects.json` path, or undefined when the projects come from the config file. */
    private readonly file: string | undefined,
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
    const store = new ProjectStore(config, join(config.dataDir, PROJECTS_FILE), options, logger);
    const existed = await store.reload();
    let created: CreatedProject | undefined;
    if (!existed && options.createDefault !== false) created = await store.create("Default", { id: "default" });
    logger?.info("projects loaded", { source: store.file, count: store.entries.length });
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

  /** Where the projects come from: the config file, or this `projects.json`. */
  get source(): string {
    return this.file ?? "config";
  }

  /**
   * Re-reads `projects.json` (a project made by `renderkit projects create` while the server
   * runs). Returns false when the file does not exist. A no-op for config-file projects.
   */
  async reload(): Promise<boolean> {
    if (!this.file) return true;
    this.loadedMtime = await mtimeOf(this.file);
    const stored = await this.readFile();
    if (!stored) return false;
    if (stored.projects.length > 0) this.key ??= await this.masterKey(false);
    this.replace(stored.projects.map((p) => this.fromStored(p)));
    return true;
  }

  /**
   * Re-reads `projects.json` when it changed since it was read, so a key made by `renderkit
   * projects create` works at once; checks at most once a second (unknown keys cost one `stat`).
   * Resolves true when it re-read the file.
   */
  async refreshIfChanged(now = Date.now()): Promise<boolean> {
    if (!this.file || now - this.checkedAt < 1_000) return false;
    this.checkedAt = now;
    const mtime = await mtimeOf(this.file);
    if (mtime === 0 || mtime === this.loadedMtime) return false;
    try {
      await this.reload();
    } catch (error) {
      this.logger?.warn("projects.json changed but could not be read; keeping the projects loaded", {
        error: error instanceof Error ? error.message : String(error),
      });
      return false;
    }
    this.logger?.info("projects reloaded", { source: this.file, count: this.entries.length });
    return true;
  }

  /** Makes a project with fresh keys and saves it in `projects.json`; the secret key is returned only here. */
  create(name: string, options: CreateProjectOptions = {}): Promise<CreatedProject> {
    const run = this.writing.then(() => this.createNow(name, options));
    this.writing = run.catch(() => {});
    return run;
  }

  private async createNow(name: string, options: CreateProjectOptions): Promise<CreatedProject> {
    if (!this.file) {
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
    await mkdir(this.config.dataDir, { recursive: true, mode: 0o700 });
    const stored = (await this.readFile()) ?? { version: 1, projects: [] };
    this.key ??= await this.masterKey(stored.projects.length === 0);
    const taken = new Set(stored.projects.map((p) => p.id));
    if (options.id !== undefined && taken.has(options.id)) throw new Error(`A project with id "${options.id}" exists already`);
    let id = options.id ?? (slug(label) || "project");
    while (taken.has(id)) id = `${(slug(label) || "project").slice(0, 33)}-${randomBytes(3).toString("hex")}`;

    const keys = generateKeys();
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
    stored.projects.push(entry);
    await writePrivate(this.file, `${JSON.stringify(stored, null, 2)}\n`);
    this.replace(stored.projects.map((p) => this.fromStored(p)));
    this.logger?.info("project created", { id });
    return { project: this.byId(id)!, secretKey: keys.secretKey };
  }

  private async readFile(): Promise<StoredFile | undefined> {
    const file = this.file!;
    let text: string;
    try {
      text = await readFile(file, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
    }
    await tighten(file, this.logger);
    try {
      return checkStored(JSON.parse(text), file);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
  }

  private masterKey(mayGenerate: boolean): Promise<Buffer> {
    const given = this.options.masterKey ?? (process.env.RENDERKIT_MASTER_KEY || undefined);
    return loadMasterKey(this.config.dataDir, given, mayGenerate, this.logger);
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
        `cannot decrypt the keys of project "${p.id}" in ${this.file}: the master key (RENDERKIT_MASTER_KEY or ${MASTER_KEY_FILE}) is not the one they were written with`,
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
    };
    return { project: makeProject(base, webhookSecret, linkSigningKey), hash: Buffer.from(p.secretKeyHash, "hex") };
  }
}
