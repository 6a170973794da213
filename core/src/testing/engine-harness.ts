import { it } from "vitest";
import type { Engine, EngineCapability } from "../contracts/engine.js";
import type { PageSession } from "../contracts/page-session.js";
import type { PageSettings, PageTarget } from "../contracts/page-settings.js";
import { AddressPolicy, type AddressPolicyOptions } from "../network/address-policy.js";
import type { FixtureServer } from "./fixture-server.js";
import { makePageSettings } from "./page-settings.js";

export interface EngineContractOptions {
  /** Title of the `describe` block. */
  name: string;
  /** A fresh engine: called once for the shared engine and once more for the shutdown check. */
  make: () => Promise<Engine> | Engine;
  /** Timeout of each check in ms (default 30 000). */
  testTimeoutMs?: number;
  /** Titles of checks to skip (document why next to the call). */
  skip?: readonly string[];
}

/**
 * Shared state of the engine suite: one engine and two loopback servers, `fixture` (allowed
 * by every policy the harness makes) and `forbidden` (never allowed; it must see no request).
 */
export class EngineHarness {
  engine!: Engine;
  fixture!: FixtureServer;
  forbidden!: FixtureServer;

  constructor(readonly options: EngineContractOptions) {}

  /** Address of `path` on the allowed fixture. */
  url(path = "/"): string {
    return `${this.fixture.url}${path}`;
  }

  /** A fresh policy that allows the fixture's port and nothing else private. */
  policy(extra: AddressPolicyOptions = {}): AddressPolicy {
    return new AddressPolicy({ allowPrivate: [`127.0.0.1:${this.fixture.port}`], ...extra });
  }

  settings(overrides: Partial<PageSettings> = {}): PageSettings {
    return makePageSettings(overrides.policy ?? this.policy(), overrides);
  }

  open(target: PageTarget, overrides: Partial<PageSettings> = {}, signal = new AbortController().signal): Promise<PageSession> {
    return this.engine.open(target, this.settings(overrides), signal);
  }

  /** Opens a page, runs `body`, and closes the page whatever happens. */
  async withPage<T>(
    target: PageTarget,
    overrides: Partial<PageSettings>,
    body: (session: PageSession) => Promise<T>,
  ): Promise<T> {
    const session = await this.open(target, overrides);
    try {
      return await body(session);
    } finally {
      await session.close();
    }
  }

  /** Registers one check; skipped when listed in `options.skip` or the engine lacks `needs`. */
  check(title: string, body: () => Promise<void>, needs?: EngineCapability): void {
    it(
      title,
      async (ctx) => {
        if (this.options.skip?.includes(title)) return ctx.skip(`skipped by the caller`);
        if (needs && !this.engine.capabilities.has(needs)) return ctx.skip(`engine lacks ${needs}`);
        await body();
      },
      this.options.testTimeoutMs ?? 30_000,
    );
  }
}
