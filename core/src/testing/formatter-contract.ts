import { afterAll, beforeAll, describe } from "vitest";
import { optionChecks } from "./formatter-checks-options.js";
import { renderChecks } from "./formatter-checks-render.js";
import { specChecks } from "./formatter-checks-spec.js";
import { type FormatterContractOptions, FormatterHarness } from "./formatter-harness.js";

/**
 * The behaviour every `Formatter` plugin must show, the way the core and a client rely on it: what
 * it declares (formats, options), its hooks' answers, and real renders of a loopback fixture page
 * through `createRenderer({ plugins: [engine(), plugin()] })`, aborted ones included. The renderer
 * may reach the fixture's `127.0.0.1:<port>` and nothing else private; its data directory is a
 * fresh temporary one, removed afterwards.
 */
export function formatterContract(options: FormatterContractOptions): void {
  describe(`formatter contract: ${options.name}`, () => {
    const h = new FormatterHarness(options);

    beforeAll(() => h.start(), 60_000);
    afterAll(() => h.stop(), 60_000);

    specChecks(h);
    optionChecks(h);
    renderChecks(h);
  });
}
