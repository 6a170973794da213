// The option names clients of this API family send, as their option catalogue lists them, and the
// committed copy of them in scripts/compat/catalogue.json (docs/compatibility.md gives each one's
// status). The catalogue document itself is not part of the repository: the committed copy is what
// CI checks against. Given a copy of the catalogue (`--catalogue <file>`, also to
// gen-compat-doc.mjs), the generator also checks that the committed names still match it.
//   node scripts/compat/catalogue.mjs --catalogue <file>           print the names it lists
//   node scripts/compat/catalogue.mjs --catalogue <file> --write   rewrite scripts/compat/catalogue.json
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { biomeFormat } from "./biome.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const CATALOGUE_JSON = join(HERE, "catalogue.json");
/** A copy of the catalogue document, when one is given (`--catalogue <file>`; never on a CI clone). */
export const CATALOGUE_MD = process.argv.includes("--catalogue")
  ? process.argv[process.argv.indexOf("--catalogue") + 1]
  : undefined;

/** Backticked spans of `text`. */
const spans = (text) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/**
 * Names in the first cell of a table row. Parentheses hold values or remarks (`headers` (`"shell"`),
 * `llm_output` (`object, array, enum`)), except "(also `x`)", which names a second spelling.
 */
function rowNames(cell) {
  const names = [];
  let depth = 0;
  let outside = "";
  let inside = "";
  for (const ch of cell) {
    if (ch === "(") depth++;
    if (depth === 0) outside += ch;
    else inside += ch;
    if (ch === ")") {
      depth--;
      if (depth === 0) {
        if (/^\(also /.test(inside)) outside += inside;
        inside = "";
      }
    }
  }
  for (const span of spans(outside)) names.push(...span.split(",").map((s) => s.trim()));
  return names;
}

/** The last paragraph's `watermark_url, _width, ...`: a leading `_` continues the previous family. */
function expandFamily(list) {
  const out = [];
  let family = "";
  for (const name of list) {
    if (name.startsWith("_") && family) out.push(family + name);
    else {
      out.push(name);
      family = name.replace(/_[^_]*$/, "");
    }
  }
  return out;
}

/** `[{ name, section, unclear }]` in catalogue order; `unclear`: the row is marked [U]. */
export function extractCatalogue(markdown) {
  const out = [];
  let section = "";
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const heading = line.match(/^#{2,4}\s+(.*)$/);
    if (heading) {
      section = heading[1].replace(/\s*\(.*$/, "").trim();
      continue;
    }
    if (line.startsWith("|")) {
      const cells = line.split(/(?<!\\)\|/).slice(1, -1);
      const first = cells[0]?.trim() ?? "";
      if (!first.startsWith("`")) continue; // header and separator rows
      const unclear = /\[U/.test(line);
      for (const name of rowNames(first)) out.push({ name, section, unclear });
      continue;
    }
    // The closing paragraph: **Async, webhook and watermark:** ... (it may wrap over several lines).
    const para = line.match(/^\*\*([^*]+?):?\*\*(.*)$/);
    if (para) {
      let text = para[2];
      while (lines[i + 1]?.trim()) text += ` ${lines[++i]}`;
      const names = expandFamily(spans(text).flatMap((s) => s.split(",").map((n) => n.trim())));
      const unclearFrom = text.indexOf("**[U]**");
      for (const name of names) out.push({ name, section: para[1].replace(/:$/, ""), unclear: unclearFrom >= 0 });
    }
  }
  const seen = new Set();
  return out.filter(({ name }) => !seen.has(name) && seen.add(name));
}

/** The stored form (catalogue.json): names per section in catalogue order, and the [U] ones. */
export function toStored(entries) {
  const sections = [];
  for (const { name, section } of entries) {
    if (sections.at(-1)?.section !== section) sections.push({ section, names: [] });
    sections.at(-1).names.push(name);
  }
  return { sections, unclear: entries.filter((e) => e.unclear).map((e) => e.name) };
}

/** Back to `[{ name, section, unclear }]`. */
export function fromStored(stored) {
  const unclear = new Set(stored.unclear);
  return stored.sections.flatMap(({ section, names }) => names.map((name) => ({ name, section, unclear: unclear.has(name) })));
}

/** The committed names. */
export async function committedCatalogue() {
  return fromStored(JSON.parse(await readFile(CATALOGUE_JSON, "utf8")));
}

/** The names extracted from the catalogue next to the working copy, or undefined when it is not there. */
export async function liveCatalogue() {
  if (!CATALOGUE_MD || !existsSync(CATALOGUE_MD)) return undefined;
  return extractCatalogue(await readFile(CATALOGUE_MD, "utf8"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const names = await liveCatalogue();
  if (!names) {
    console.error(`${CATALOGUE_MD ?? "the catalogue document (--catalogue <file>)"} not found`);
    process.exit(1);
  }
  const json = biomeFormat(`${JSON.stringify(toStored(names), null, 2)}\n`, CATALOGUE_JSON);
  if (process.argv.includes("--write")) {
    await writeFile(CATALOGUE_JSON, json);
    console.log(`wrote ${names.length} names to ${CATALOGUE_JSON}`);
  } else process.stdout.write(json);
}
