#!/usr/bin/env node
// Generates docs/compatibility.md: every option name of the catalogue with its status in renderkit
// (supported, refused in combinations, ignored and why). Imports the built packages
// (`npx tsc -b tsconfig.build.json` first).
//   node scripts/gen-compat-doc.mjs           print the markdown
//   node scripts/gen-compat-doc.mjs --write   rewrite docs/compatibility.md
//   node scripts/gen-compat-doc.mjs --check   fail when the page is stale, a catalogue name has no status,
//                                             or a name listed as ignored is supported (npm test)
//   --prune (with --write, or alone)          first drop the supported names from scripts/compat/ignored.json
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { biomeFormat, ROOT } from "./compat/biome.mjs";
import { CATALOGUE_MD, committedCatalogue, liveCatalogue } from "./compat/catalogue.mjs";
import { compatMarkdown } from "./compat/markdown.mjs";
import { allRules, classify, IGNORED_JSON, optionTables, pruned, readIgnored } from "./compat/status.mjs";

const TARGET = join(ROOT, "docs", "compatibility.md");
const args = new Set(process.argv.slice(2));

/** Differences between the committed names and the catalogue's, when the catalogue is here. */
async function catalogueDrift(committed) {
  const live = await liveCatalogue();
  if (!live) return [];
  const key = (e) => `${e.name}\t${e.section}\t${e.unclear}`;
  const had = new Set(committed.map(key));
  const has = new Set(live.map(key));
  const added = live.filter((e) => !had.has(key(e))).map((e) => e.name);
  const gone = committed.filter((e) => !has.has(key(e))).map((e) => e.name);
  if (added.length === 0 && gone.length === 0 && committed.map((e) => e.name).join() === live.map((e) => e.name).join())
    return [];
  return [
    `scripts/compat/catalogue.json no longer matches ${CATALOGUE_MD}` +
      (added.length ? `; new or changed there: ${added.join(", ")}` : "") +
      (gone.length ? `; gone or changed: ${gone.join(", ")}` : "") +
      ": run `node scripts/compat/catalogue.mjs --write`",
  ];
}

const catalogue = await committedCatalogue();
const options = await optionTables();
const rules = allRules(options);
let ignored = await readIgnored();
let result = classify(catalogue, options, ignored, rules);
if (args.has("--prune")) {
  const next = pruned(ignored, result.entries);
  const removed = ignored.groups.flatMap((g) => g.names).length - next.groups.flatMap((g) => g.names).length;
  await writeFile(IGNORED_JSON, biomeFormat(`${JSON.stringify(next, null, 2)}\n`, IGNORED_JSON));
  console.error(`pruned ${removed} supported names from scripts/compat/ignored.json`);
  ignored = next;
  result = classify(catalogue, options, ignored, rules);
}
const errors = [...(await catalogueDrift(catalogue)), ...result.errors];
const markdown = biomeFormat(compatMarkdown(result, ignored, rules, options), TARGET);
const counts = ["supported", "ignored", "none"].map((s) => `${result.entries.filter((e) => e.status === s).length} ${s}`);
const summary = `${catalogue.length} catalogue names: ${counts.join(", ")}; ${rules.length} refusal rules`;

if (args.has("--check")) {
  const current = await readFile(TARGET, "utf8").catch(() => "");
  if (current !== markdown)
    errors.push("docs/compatibility.md is out of date: run `node scripts/gen-compat-doc.mjs --write` and commit it");
} else if (args.has("--write")) {
  await writeFile(TARGET, markdown);
  console.error(`wrote ${TARGET}`);
} else if (!args.has("--prune")) {
  process.stdout.write(markdown);
}
console.error(summary);
if (errors.length) {
  for (const error of errors) console.error(`error: ${error}`);
  process.exit(1);
}
if (args.has("--check")) console.error("docs/compatibility.md is up to date");
