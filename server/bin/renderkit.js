#!/usr/bin/env node
// The `renderkit` command. Committed (not built) so that npm links it at install time, before
// `npm run build` has made dist/: it only loads the built CLI, or says how to build it.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write(
    `renderkit: the server is not built (${cli} is missing).\n` +
      "Run `npm run build` (or `npm run setup`) in the renderkit repository, then try again.\n",
  );
  process.exit(1);
}
await import(new URL("../dist/cli.js", import.meta.url).href);
