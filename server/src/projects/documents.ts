import { mkdir, readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Logger } from "@renderkit/core";
import type { Redis } from "ioredis";
import { ConfigError } from "../config/error.js";
import { shared } from "../state/redis-client.js";
import { checkStored, mtimeOf, type StoredFile, tighten, writePrivate } from "./file.js";

/**
 * Where the projects made with `renderkit projects create` live: `projects.json` in the data
 * directory of a single process, or a Redis hash shared by every API and worker node. Both hold
 * the same document (secrets sealed under the master key).
 */
export interface ProjectDocument {
  /** Where the projects live, for messages: a file path or `redis <prefix>:projects`. */
  readonly source: string;
  /** The stored projects; undefined when none were ever written. */
  read(): Promise<StoredFile | undefined>;
  /** Changes with every write (file mtime, document version); cheap to ask. */
  version(): Promise<string>;
  /** Reads, applies `change`, writes; a concurrent writer's change is not lost (Redis) or is serialised by the caller (file). */
  update(change: (current: StoredFile | undefined) => Promise<StoredFile>): Promise<void>;
}

const parse = (text: string, source: string): StoredFile => {
  try {
    return checkStored(JSON.parse(text), source);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${source} is not valid JSON: ${(error as Error).message}`);
  }
};

/** `projects.json`: private (0600), written atomically. */
export class FileProjectDocument implements ProjectDocument {
  constructor(
    readonly source: string,
    private readonly logger?: Logger,
  ) {}

  async read(): Promise<StoredFile | undefined> {
    let text: string;
    try {
      text = await readFile(this.source, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new ConfigError(`cannot read ${this.source}: ${(error as Error).message}`);
    }
    await tighten(this.source, this.logger);
    return parse(text, this.source);
  }

  async version(): Promise<string> {
    return String(await mtimeOf(this.source));
  }

  async update(change: (current: StoredFile | undefined) => Promise<StoredFile>): Promise<void> {
    await mkdir(dirname(this.source), { recursive: true, mode: 0o700 });
    const next = await change(await this.read());
    await writePrivate(this.source, `${JSON.stringify(next, null, 2)}\n`);
  }
}

/**
 * The projects of API and worker nodes: hash `<prefix>:projects` with the document (`doc`) and a
 * counter (`version`). Writes are optimistic (WATCH / MULTI): two `projects create` on two
 * machines both land.
 */
export class RedisProjectDocument implements ProjectDocument {
  readonly source: string;
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.key = `${prefix}:projects`;
    this.source = `redis ${this.key}`;
  }

  async read(): Promise<StoredFile | undefined> {
    const text = await shared(this.redis.hget(this.key, "doc"));
    return text === null ? undefined : parse(text, this.source);
  }

  async version(): Promise<string> {
    return (await shared(this.redis.hget(this.key, "version"))) ?? "0";
  }

  async update(change: (current: StoredFile | undefined) => Promise<StoredFile>): Promise<void> {
    // A dedicated connection: WATCH belongs to the connection, and the shared one serves requests.
    const client = this.redis.duplicate({ enableOfflineQueue: true });
    // Failures surface on the commands below; the event would otherwise be "unhandled".
    client.on("error", () => undefined);
    try {
      for (let tries = 0; tries < 10; tries++) {
        await shared(client.watch(this.key));
        const text = await shared(client.hget(this.key, "doc"));
        const next = await change(text === null ? undefined : parse(text, this.source));
        const done = await shared(
          client.multi().hset(this.key, "doc", JSON.stringify(next)).hincrby(this.key, "version", 1).exec(),
        );
        if (done) return;
      }
      throw new Error(`${this.source} kept changing while a project was being saved; try again`);
    } finally {
      client.disconnect();
    }
  }
}
