import type { AttemptDeps, AttemptPlan } from "./attempt-plan.js";
import type { PresignedSide, RenderDestination } from "./contracts/destination.js";
import { RenderError } from "./errors.js";
import { PRESIGNED_SIDES } from "./options/catalogue-storage.js";
import { snakeName } from "./options/names.js";

/**
 * Where one side file goes when the caller gave its upload address (`s3_presigned_url_html`...):
 * the renderer's destination resolver, asked for that file. `undefined` when the option is not
 * set (the file stays in the renderer's storage). A resolver that does not take it fails the
 * render rather than storing the file where the caller did not ask.
 */
export async function sideDestination(
  plan: AttemptPlan,
  deps: AttemptDeps,
  side: PresignedSide,
): Promise<RenderDestination | undefined> {
  const { option } = PRESIGNED_SIDES[side];
  if (plan.options[option] === undefined) return undefined;
  const request = { renderId: plan.renderId, options: plan.options, job: plan.job, format: plan.format, side };
  const destination = await deps.settings.destination?.(request);
  if (!destination) {
    const name = snakeName(option);
    throw new RenderError(
      "InvalidOptions",
      `Option ${name} is not supported by this renderer (its destination resolver did not take it)`,
      {
        details: { option: name },
      },
    );
  }
  return destination;
}
