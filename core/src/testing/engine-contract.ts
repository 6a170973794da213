import { afterAll, beforeAll, describe } from "vitest";
import { captureChecks } from "./engine-checks-capture.js";
import { interactChecks } from "./engine-checks-interact.js";
import { lifecycleChecks } from "./engine-checks-lifecycle.js";
import { networkChecks } from "./engine-checks-network.js";
import { pageChecks } from "./engine-checks-page.js";
import { prepareChecks } from "./engine-checks-prepare.js";
import { sideChecks } from "./engine-checks-side.js";
import { engineRoutes } from "./engine-fixture.js";
import { type EngineContractOptions, EngineHarness } from "./engine-harness.js";
import { startFixtureServer } from "./fixture-server.js";

/**
 * The behaviour every `Engine` must show. The suite starts its own loopback servers (an allowed
 * fixture and a forbidden one) and allows only the fixture's `127.0.0.1:<port>`; `make` is
 * called once for the shared engine and once more for the shutdown check.
 */
export function engineContract(options: EngineContractOptions): void {
  describe(`engine contract: ${options.name}`, () => {
    const h = new EngineHarness(options);

    beforeAll(async () => {
      h.forbidden = await startFixtureServer({ "*": "<title>forbidden</title>" });
      h.fixture = await startFixtureServer(engineRoutes(() => h.forbidden.url));
      h.engine = await options.make();
      await h.engine.start();
    }, 60_000);

    afterAll(async () => {
      await h.engine?.close();
      await h.fixture?.close();
      await h.forbidden?.close();
    }, 60_000);

    networkChecks(h);
    pageChecks(h);
    captureChecks(h);
    prepareChecks(h);
    interactChecks(h);
    sideChecks(h);
    lifecycleChecks(h);
  });
}
