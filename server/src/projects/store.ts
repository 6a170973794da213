import { timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import type { Logger } from "@renderkit/core";
import type { Redis } from "ioredis";
import type { Project, ServerConfig } from "../config/types.js";
import { FileProjectDocument, type ProjectDocument, RedisProjectDocument } from "./documents.js";
import { entryFromConfig, entryFromStored, type ProjectEntry } from "./entries.js";
import { PROJECTS_FILE, type StoredFile, type StoredProject } from "./file.js";
import { MasterKey } from "./master-key.js";
import { checkProjectId, type NewProjectSettings, newProjectId, newStoredProject, projectLabel } from "./new-project.js";
import { generateKeys, sha256 } from "./secrets.js";

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

export interface CreateProjectOptions extends NewProjectSettings {
  /** Default: derived from the name, made unique. */
  id?: string;
}

/** A project just made, with the one plaintext copy of its secret key the caller will ever see. */
export interface CreatedProject {
  project: Project;
  secretKey: string;
}

/**
 * The projects the server knows: from the config file, from `<dataDir>/projects.json` (one
 * process), or from Redis (API and worker nodes; `RENDERKIT_MASTER_KEY` the same on every node).
 */
export class ProjectStore {
  private entries: ProjectEntry[] = [];
  private byPublishable = new Map<string, Project>();
  private writing: Promise<unknown> = Promise.resolve();
  private readonly masterKey: MasterKey;
  /** The document's version when it was last read, and when that was last checked. */
  private loadedVersion = "";
  private checkedAt = 0;

  private constructor(
    private readonly config: ServerConfig,
    /** Where created projects live; undefined when the projects come from the config file. */
    private readonly doc: ProjectDocument | undefined,
    options: OpenProjectsOptions,
    private readonly logger?: Logger,
  ) {
    this.masterKey = new MasterKey(config, this.source, options.masterKey, logger);
  }

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
      store.replace(config.projects.map((p) => entryFromConfig(p, config)));
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
    if (stored.projects.length > 0) await this.masterKey.load(false);
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
    const label = projectLabel(name);
    checkProjectId(options.id);
    const keys = generateKeys();
    let id = "";
    let saved: StoredFile | undefined;
    await doc.update(async (current) => {
      const stored: StoredFile = current ?? { version: 1, projects: [] };
      const masterKey = await this.masterKey.load(stored.projects.length === 0);
      id = newProjectId(label, options.id, new Set(stored.projects.map((p) => p.id)));
      saved = { ...stored, projects: [...stored.projects, newStoredProject(id, label, keys, masterKey, options)] };
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
      if (files.length > 0) await this.masterKey.load(false);
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
  sharedMasterKey(mayGenerate: boolean): Promise<Buffer | undefined> {
    return this.masterKey.shared(mayGenerate);
  }

  private replace(projects: ProjectEntry[]): void {
    this.entries = projects;
    this.byPublishable = new Map(projects.map((e) => [e.project.publishableKey, e.project]));
  }

  /** A stored project, its keys opened with the master key (loaded by whoever read the document). */
  private fromStored(p: StoredProject): ProjectEntry {
    return entryFromStored(p, this.masterKey.loaded!, this.config, this.source);
  }
}
