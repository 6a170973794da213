import type { Readable } from "node:stream";
import type { RenderOptions } from "../options/catalogue.js";
import type { OptionTable } from "../options/spec.js";
import type { EngineCapability, PageSession, PageSettings } from "./engine.js";
import type { Logger } from "./logger.js";

/** A format a formatter produces. */
export interface FormatSpec {
  /** Value of the `format` option (`png`). */
  format: string;
  contentType: string;
  /** File extension without the dot (`png`). */
  extension: string;
  /** Engine capabilities this format needs. */
  requires: readonly EngineCapability[];
}

/** What a formatter hands back; the core stores `body` and reports `extras` in the result. */
export interface FormatOutput {
  body: Uint8Array | Readable;
  /** Fields merged into the render result (`truncated`, `frameRate`...). */
  extras?: Record<string, unknown>;
}

/** Everything a formatter may use while rendering. */
export interface FormatContext {
  readonly renderId: string;
  readonly format: FormatSpec;
  /** Validated options, defaults applied; plugin options appear under their own names. */
  readonly options: RenderOptions & Record<string, unknown>;
  readonly logger: Logger;
  /** Aborts on timeout or cancel; long work must stop when it fires. */
  readonly signal: AbortSignal;
}

/** Turns a loaded page into bytes of one or more formats. */
export interface Formatter {
  /** Name for logs and errors (`@renderkit/format-image`). */
  readonly name: string;
  /** The formats this formatter produces; the registry refuses a format claimed twice. */
  readonly formats: readonly FormatSpec[];
  /** Options this formatter adds to the request schema (refused if another part defines them). */
  readonly options?: OptionTable;
  /** Checks options whose validity depends on the format, when the request is parsed; throws `InvalidOptions`. */
  validate?(options: FormatContext["options"], format: FormatSpec): void;
  /** Time a render of this format needs beyond loading the page (capture, encode); added to the attempt budget. */
  extraTimeMs?(options: FormatContext["options"], format: FormatSpec): number;
  /** Adjusts page settings before the page opens (e.g. PDF loads with `media: print`). */
  pageSettings?(options: FormatContext["options"], format: FormatSpec): Partial<PageSettings>;
  /**
   * Tallest output this render can hold, in device pixels (an encoder's limit), or undefined when
   * only `max_height` and the capture caps bound it. The core pre-scrolls no further down the page
   * than can end up in the output.
   */
  maxPixelHeight?(options: FormatContext["options"], format: FormatSpec): number | undefined;
  /** Produces the output from a prepared page. */
  render(session: PageSession, context: FormatContext): Promise<FormatOutput>;
}
