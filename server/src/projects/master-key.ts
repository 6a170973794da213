import { join } from "node:path";
import type { Logger } from "@renderkit/core";
import type { ServerConfig } from "../config/types.js";
import { loadMasterKey, MASTER_KEY_FILE, readMasterKey } from "./secrets.js";

/**
 * The master key as one project store holds it: read (or generated, when nothing is sealed with
 * another key yet) on first need, then kept. It seals the keys of the projects document and the
 * caller secrets of queued renders.
 */
export class MasterKey {
  private key: Buffer | undefined;

  constructor(
    private readonly config: Pick<ServerConfig, "dataDir" | "redis">,
    /** Where the sealed keys live (`ProjectStore.source`), for messages. */
    private readonly holder: string,
    /** The key the store was opened with (`OpenProjectsOptions.masterKey`). */
    private readonly given: string | undefined,
    private readonly logger?: Logger,
  ) {}

  /** The key once read or generated; undefined before. */
  get loaded(): Buffer | undefined {
    return this.key;
  }

  /** The key, read on first need; generated then only when `mayGenerate` (nothing is sealed yet). */
  async load(mayGenerate: boolean): Promise<Buffer> {
    this.key ??= await this.open(mayGenerate);
    return this.key;
  }

  /**
   * The key for the server's other sealed data (`ProjectStore.sharedMasterKey`): generated when
   * there is none yet and `mayGenerate`; without `mayGenerate`, undefined when there is none.
   */
  async shared(mayGenerate: boolean): Promise<Buffer | undefined> {
    if (this.key) return this.key;
    // No project's keys are sealed yet (a store loads the key when some are), so a new key is safe.
    if (!mayGenerate) {
      this.key = await readMasterKey(this.config.dataDir, this.givenKey(), this.logger);
      return this.key;
    }
    this.key = await this.open(true);
    return this.key;
  }

  private givenKey(): string | undefined {
    return this.given ?? (process.env.RENDERKIT_MASTER_KEY || undefined);
  }

  private async open(mayGenerate: boolean): Promise<Buffer> {
    const given = this.givenKey();
    if (given === undefined && mayGenerate && this.config.redis) {
      const file = join(this.config.dataDir, MASTER_KEY_FILE);
      if (!(await readMasterKey(this.config.dataDir, undefined).catch(() => undefined))) {
        this.logger?.warn(
          "no RENDERKIT_MASTER_KEY: the master key is generated into this node's data directory; it seals the projects' keys in Redis and the caller secrets of queued renders, so give every other node the same key (RENDERKIT_MASTER_KEY) or they can neither read the projects nor run those renders",
          { file },
        );
      }
    }
    return loadMasterKey(this.config.dataDir, given, mayGenerate, this.logger, this.holder);
  }
}
