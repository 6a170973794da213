// The status of every catalogue option name in renderkit: supported (an option table the renderer
// or the server uses has it, by name or alias), with the values and combinations refused (core's
// OPTION_RULES and the format plugins' *_RULES),
// or ignored for a reason given by hand in scripts/compat/ignored.json. Imports the built packages.
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ConsoleLogger, createRenderer, snakeName } from "@renderkit/core";
import { CORE_OPTIONS, CORE_RULES, camelize, formatOnlyOptions, PDF_RULES } from "@renderkit/core/internal";
import * as image from "@renderkit/format-image";
import * as markdown from "@renderkit/format-markdown";
import * as svg from "@renderkit/format-svg";
import * as video from "@renderkit/format-video";
import { ROOT } from "./biome.mjs";

export const IGNORED_JSON = join(ROOT, "scripts", "compat", "ignored.json");

/**
 * Every request option the server accepts: core's catalogue, the format plugins' tables (as
 * `renderkit serve` installs them) and the server's own options. `source` is `core`, `format` or
 * `server`; `server` also covers core options marked `serverOnly`.
 */
export async function optionTables() {
  const renderer = await createRenderer({
    plugins: [image.imageFormats(), video.videoFormats(), markdown.markdownFormat(), svg.svgFormat()],
    dataDir: join(tmpdir(), "renderkit-compat-doc"),
    logger: new ConsoleLogger("silent"),
  });
  const { serverOptionTable } = await import(pathToFileURL(join(ROOT, "server", "dist", "http", "server-options.js")).href);
  const { defaultConfig } = await import("@renderkit/server");
  const options = new Map();
  for (const [name, spec] of Object.entries(renderer.optionTable)) {
    options.set(name, { name, spec, source: spec.serverOnly ? "server" : name in CORE_OPTIONS ? "core" : "format" });
  }
  for (const [name, spec] of Object.entries(serverOptionTable(defaultConfig(tmpdir())))) {
    options.set(name, { name, spec, source: "server" });
  }
  await renderer.close?.();
  return options;
}

/**
 * The refusals: core's `OPTION_RULES` and the format plugins' own rule lists (exports named
 * `*_RULES`, e.g. format-video's `VIDEO_RULES`, checked by the formatter's `validate`), each with
 * `source`: `core` or the package.
 */
export function allRules(options) {
  const plugins = {
    "@renderkit/format-image": image,
    "@renderkit/format-video": video,
    "@renderkit/format-markdown": markdown,
    "@renderkit/format-svg": svg,
  };
  const rules = [
    ...CORE_RULES.map((rule) => ({ ...rule, source: "core" })),
    ...PDF_RULES.map((rule) => ({ ...rule, source: "@renderkit/core (pdf)" })),
  ];
  // Options that only some formats read, refused on the others (`only` in their spec).
  const table = Object.fromEntries([...options.values()].map((o) => [o.name, o.spec]));
  for (const only of formatOnlyOptions(table)) {
    if (only.otherwise !== "ignore") rules.push({ option: only.option, why: only.why, source: "format-only" });
  }
  for (const [source, module] of Object.entries(plugins)) {
    for (const [name, value] of Object.entries(module)) {
      if (name.endsWith("_RULES") && Array.isArray(value)) rules.push(...value.map((rule) => ({ ...rule, source })));
    }
  }
  return rules;
}

/** camelCase spelling (any name or alias) → the option it names. */
export function optionIndex(options) {
  const index = new Map();
  for (const option of options.values()) {
    for (const spelling of [option.name, ...(option.spec.aliases ?? [])]) index.set(camelize(spelling), option);
  }
  return index;
}

export async function readIgnored() {
  return JSON.parse(await readFile(IGNORED_JSON, "utf8"));
}

/**
 * Each catalogue name with its status, and what is wrong with the inputs:
 * `{ entries: [{ name, section, unclear, status, option?, alias?, rules, group?, note? }], errors, unusedRules, extras }`.
 */
export function classify(catalogue, options, ignored, rules = allRules(options)) {
  const index = optionIndex(options);
  const errors = [];
  const groupOf = new Map();
  const known = new Set(catalogue.map((c) => c.name));
  for (const group of ignored.groups) {
    for (const name of group.names) {
      if (groupOf.has(name))
        errors.push(`${name} is listed twice in scripts/compat/ignored.json (${groupOf.get(name).id}, ${group.id})`);
      else groupOf.set(name, group);
      if (!known.has(name))
        errors.push(`${name} in scripts/compat/ignored.json (${group.id}) is not a catalogue name: remove it`);
    }
    for (const name of Object.keys(group.notes ?? {})) {
      if (!group.names.includes(name))
        errors.push(`scripts/compat/ignored.json (${group.id}) has a note for ${name}, which it does not list`);
    }
  }
  const used = new Set();
  const entries = catalogue.map((entry) => {
    const option = index.get(camelize(entry.name));
    const group = groupOf.get(entry.name);
    if (option) {
      used.add(option.name);
      const optionRules = rules.filter((rule) => index.get(camelize(rule.option))?.name === option.name);
      if (group) {
        errors.push(
          `${entry.name} is supported (option ${snakeName(option.name)}, ${option.source}) but scripts/compat/ignored.json lists it as ignored (${group.id}): remove it there, or run with --prune`,
        );
      }
      const alias = camelize(entry.name) !== option.name ? snakeName(option.name) : undefined;
      const linksOnly = ignored.linksOnly?.[entry.name];
      return { ...entry, status: "supported", option, alias, rules: optionRules, ...(linksOnly ? { linksOnly } : {}) };
    }
    if (group) return { ...entry, status: "ignored", group, note: group.notes?.[entry.name], rules: [] };
    errors.push(
      `${entry.name} (${entry.section}) has no status: no option table has it and scripts/compat/ignored.json does not list it`,
    );
    return { ...entry, status: "none", rules: [] };
  });
  for (const name of Object.keys(ignored.linksOnly ?? {})) {
    if (entries.find((e) => e.name === name)?.status !== "supported") {
      errors.push(`${name} is listed in linksOnly of scripts/compat/ignored.json but no option table has it: remove it there`);
    }
  }
  const extras = [...options.values()].filter((o) => !used.has(o.name) && !["url", "html", "format"].includes(o.name));
  return { entries, errors, extras };
}

/** `ignored` without the names that are supported (and without groups left empty). */
export function pruned(ignored, entries) {
  const supported = new Set(entries.filter((e) => e.status === "supported").map((e) => e.name));
  const groups = ignored.groups
    .map((group) => {
      const names = group.names.filter((n) => !supported.has(n));
      const notes = Object.fromEntries(Object.entries(group.notes ?? {}).filter(([n]) => !supported.has(n)));
      return { ...group, names, ...(group.notes ? { notes } : {}) };
    })
    .filter((group) => group.names.length > 0);
  return { ...ignored, groups };
}
