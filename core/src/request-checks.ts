import { checkCapabilities } from "./attempt.js";
import type { OptionTable } from "./contracts/option-spec.js";
import { RenderError } from "./errors.js";
import { checkTtl } from "./options/catalogue-output.js";
import { checkObjectKey, checkSideUploads, checkStorageOptions } from "./options/catalogue-storage.js";
import { checkCombinations } from "./options/combinations.js";
import { ignoredForFormat } from "./options/format-only.js";
import type { ParsedOptions } from "./options/parse.js";
import { checkPageOptions } from "./page/prepare.js";
import type { EngineRegistry, FormatterRegistry } from "./registry.js";
import type { RendererSettings } from "./settings.js";

/** What the request checks look at besides the options. */
export interface RequestCheckParts {
  settings: RendererSettings;
  engines: EngineRegistry;
  formatters: FormatterRegistry;
  /** The option table in force: the core's and every formatter's. */
  options: OptionTable;
}

function refuse(option: string, message: string): RenderError {
  return new RenderError("InvalidOptions", message, { details: { option } });
}

/**
 * Checks a parsed request against what this renderer can do, before anything is queued: the
 * engine's capabilities, the formatter's own checks, page and storage options, combinations that
 * cannot work, and options that need a part the renderer lacks. Throws `RenderError`. Sent options
 * the format does not read (`quality` with png) join `parsed.ignored`.
 */
export function checkRequest(parsed: ParsedOptions, parts: RequestCheckParts): void {
  const { options } = parsed;
  const engine = parts.engines.get(options.engine);
  const { formatter, spec } = parts.formatters.get(options.format);
  checkCapabilities(engine, spec);
  formatter.validate?.(options, spec);
  checkPageOptions(options);
  checkStorageOptions(options, parts.settings.destination !== undefined);
  checkSideUploads(options, spec);
  checkObjectKey(options, spec);
  checkCombinations(options, spec.format, parts.options, parts.formatters.rules);
  checkTtl(options, parts.settings);
  if (options.blockAds && parts.settings.adblock.lists.length === 0) {
    throw refuse("block_ads", "Option block_ads cannot be used: this server has no ad filter lists configured (adblock.lists)");
  }
  if (options.saveMarkdown && !parts.formatters.side("markdown")) {
    throw refuse("save_markdown", "Option save_markdown needs the md format: add @renderkit/format-markdown");
  }
  // Defaulted options this format does not read: the render goes ahead and the client is told.
  parsed.ignored.push(...ignoredForFormat(parsed.sent, spec.format, parts.options));
}
