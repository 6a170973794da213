import type { RenderJobInfo } from "./contracts/job.js";
import type { RenderOptions } from "./contracts/render-options.js";
import type { RenderOrigin } from "./util/ids.js";

/** What the queue carries for one render (JSON only). */
export interface RenderJobData {
  /** The parsed options, without the secret ones when `sealed` holds them. */
  options: RenderOptions & Record<string, unknown>;
  /**
   * The secret options (`OptionSpec.secret`), sealed by `RendererSettings.jobSecrets` for this
   * render id. Absent when none was given, when the renderer has no `jobSecrets`, and in jobs
   * queued by versions before it: their `options` carry them.
   */
  sealed?: string;
  origin: RenderOrigin;
  /** What the submitter told, carried into events and the destination resolver. */
  job?: RenderJobInfo;
}
