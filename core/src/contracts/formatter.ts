import type { Readable } from "node:stream";
import type { EngineCapability } from "./engine.js";
import type { Logger } from "./logger.js";
import type { OptionRule } from "./option-rule.js";
import type { OptionsOf, OptionTable } from "./option-spec.js";
import type { PageSession } from "./page-session.js";
import type { PageSettings } from "./page-settings.js";
import type { RenderOptions } from "./render-options.js";

/** A format a formatter produces. */
export interface FormatSpec {
  /** Value of the `format` option (`png`). */
  format: string;
  contentType: string;
  /** File extension without the dot (`png`). */
  extension: string;
  /** Engine capabilities this format needs. */
  requires: readonly EngineCapability[];
  /** Other names clients send for this format (`jpeg` for `jpg`), matched case-insensitively. */
  aliases?: readonly string[];
  /**
   * The output holds the whole document, not the viewport (a PDF prints every page): the core
   * pre-scrolls the page to its end, as for `full_page`, so lazy content is there.
   */
  wholeDocument?: boolean;
  /**
   * This format's output is the side file `save_html` (`"html"`), `save_markdown`
   * (`"markdown"`) or `save_mhtml` (`"mhtml"`) asks for: rendered in this format, that side file is the render itself;
   * rendered in another, the core asks this format's formatter for the side file.
   */
  sideRender?: SideRenderKind;
}

/** The side files a format can stand for (`save_html`, `save_markdown`). */
export type SideRenderKind = "html" | "markdown" | "mhtml";

/** What a formatter hands back; the core stores `body` and reports `extras` in the result. */
export interface FormatOutput {
  body: Uint8Array | Readable;
  /** Fields merged into the render result (`truncated`, `frameRate`...). */
  extras?: Record<string, unknown>;
}

/** The options a formatter sees: the core's, its own typed from its table `T`, and any other plugin's by name. */
/** `T` defaults to `{}`: the table of a formatter without options of its own. */
export type FormatOptions<T extends OptionTable = {}> = RenderOptions & OptionsOf<T> & Record<string, unknown>;

/** Everything a formatter may use while rendering; `T` is the formatter's own option table. */
export interface FormatContext<T extends OptionTable = {}> {
  readonly renderId: string;
  readonly format: FormatSpec;
  /** Validated options, defaults applied; plugin options appear under their own names. */
  readonly options: FormatOptions<T>;
  readonly logger: Logger;
  /** Aborts on timeout or cancel; long work must stop when it fires. */
  readonly signal: AbortSignal;
}

/** Turns a loaded page into bytes of one or more formats; `T` is its own option table. */
export interface Formatter<T extends OptionTable = {}> {
  /** Name for logs and errors (`@renderkit/format-image`). */
  readonly name: string;
  /** The formats this formatter produces; the registry refuses a format claimed twice. */
  readonly formats: readonly FormatSpec[];
  /**
   * Options this formatter adds to the request schema (refused if another part defines them,
   * unless with the same spec). Give an option `only` to have the core refuse or ignore it on the
   * other formats.
   */
  readonly options?: T & OptionTable;
  /** Combinations of options that cannot work, checked on every request whatever its format (400 `InvalidOptions`). */
  readonly rules?: readonly OptionRule[];
  /** Checks options whose validity depends on the format, when the request is parsed; throws `InvalidOptions`. */
  validate?(options: FormatOptions<T>, format: FormatSpec): void;
  /** Time a render of this format needs beyond loading the page (capture, encode); added to the attempt budget. */
  extraTimeMs?(options: FormatOptions<T>, format: FormatSpec): number;
  /** Adjusts page settings before the page opens (e.g. PDF loads with `media: print`). */
  pageSettings?(options: FormatOptions<T>, format: FormatSpec): Partial<PageSettings>;
  /**
   * Tallest output this render can hold, in device pixels (an encoder's limit), or undefined when
   * only `max_height` and the capture caps bound it. The core pre-scrolls no further down the page
   * than can end up in the output.
   */
  maxPixelHeight?(options: FormatOptions<T>, format: FormatSpec): number | undefined;
  /** Produces the output from a prepared page. */
  render(session: PageSession, context: FormatContext<T>): Promise<FormatOutput>;
}
