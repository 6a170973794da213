import type { AddressChecker } from "./contracts/address.js";
import type { Engine } from "./contracts/engine.js";
import type { FormatSpec, Formatter, SideRenderKind } from "./contracts/formatter.js";
import type { RenderJobInfo } from "./contracts/job.js";
import type { Logger } from "./contracts/logger.js";
import type { RenderOptions } from "./contracts/render-options.js";
import type { Storage } from "./contracts/storage.js";
import type { AdblockLists } from "./prepare/adblock/index.js";
import type { RendererSettings } from "./settings.js";

/** Everything one attempt needs, chosen by the renderer. */
export interface AttemptPlan {
  renderId: string;
  /** Which attempt of the render this is (1 for the first). */
  attempt: number;
  options: RenderOptions & Record<string, unknown>;
  engine: Engine;
  formatter: Formatter;
  format: FormatSpec;
  policy: AddressChecker;
  /** Formatters side renders use (`save_markdown`). */
  side?: SideFormatters;
  /** What the submitter told about the render, for the destination resolver. */
  job?: RenderJobInfo;
}

/** What the renderer lends every attempt. */
export interface AttemptDeps {
  storage: Storage;
  settings: RendererSettings;
  logger: Logger;
  /** The renderer's filter lists (`block_ads`). */
  adblock?: AdblockLists;
}

/** The formats whose output is a side file (`FormatSpec.sideRender`): the formatter registry. */
export interface SideFormatters {
  side(kind: SideRenderKind): { formatter: Formatter; spec: FormatSpec } | undefined;
}
