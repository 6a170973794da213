import { RenderError, type RunGate } from "@renderkit/core";
import type { Project } from "../config/types.js";
import type { ProjectStore } from "../projects/store.js";

/**
 * The renderer's run gate on a server: a render whose project was disabled (`renderkit projects
 * disable`) or removed after it was queued does not start, and one that was running stores
 * nothing: it ends `failed` with `ProjectNotEnabled`, and its `render.failed` webhook is sent as
 * for any failure. The projects are read as they are now (a disable made by the CLI or on another
 * node counts at once); when they cannot be read, the render waits in the queue.
 */
export function projectRunGate(projects: ProjectStore): RunGate {
  return async ({ job, stage }) => {
    // Every render the server admits names its project; a job without one has nothing to check.
    const id = job?.projectId;
    if (id === undefined) return;
    let project: Project | undefined;
    try {
      project = await projects.current(id);
    } catch (error) {
      // Not a refusal (a RenderError would end the render): the render waits in the queue.
      const why = error instanceof Error ? error.message : String(error);
      throw new Error(`the projects could not be read: ${why}`, { cause: error });
    }
    if (project?.enabled) return;
    const what = project ? "This project is not enabled" : "This project no longer exists";
    const then = stage === "start" ? "the render was not started" : "the render was stopped and its output was not stored";
    throw new RenderError("ProjectNotEnabled", `${what}: ${then}`);
  };
}
