import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConsoleLogger } from "@renderkit/core";
import { loadConfig, type RunningServer, type ServerConfig, startServer } from "@renderkit/server";

/** The project of `startApiServer`: generous rate limit, tokenless render links allowed. */
export const API_PROJECT = {
  id: "fuzz",
  secretKey: "sk_test_fuzz_0123456789abcdef",
  publishableKey: "pk_test_fuzz",
  webhookSecret: "whsec_fuzz_0123456789abcdef",
} as const;

/** The real server on a free loopback port, as an operator starts it (`@renderkit/server`). */
export interface ApiServer {
  readonly running: RunningServer;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/**
 * Starts the server from the published package with its production defaults (no private-network
 * allowlist: nothing on this machine can be rendered) and one project, `API_PROJECT`, whose rate
 * limit a test will not reach. `overrides` are config keys.
 */
export async function startApiServer(overrides: Partial<ServerConfig> = {}): Promise<ApiServer> {
  const dataDir = await mkdtemp(join(tmpdir(), "renderkit-api-"));
  try {
    const config = await loadConfig({
      env: {},
      overrides: {
        port: 0,
        host: "127.0.0.1",
        dataDir,
        drainSeconds: 2,
        projects: [{ ...API_PROJECT, rateLimit: { requests: 1_000_000, perSeconds: 60 }, allowTokenless: true }],
        ...overrides,
      } as Partial<ServerConfig>,
    });
    const running = await startServer(config, { logger: new ConsoleLogger("silent") });
    return {
      running,
      url: running.url,
      port: Number(new URL(running.url).port),
      async close() {
        await running.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
