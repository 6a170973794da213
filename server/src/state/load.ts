import { RenderError, type RenderEvent } from "@renderkit/core";
import type { Project } from "../types.js";

/**
 * Renders each project has waiting or running in this process, so one project cannot take the
 * whole queue from the others (a burst of slow renders within its rate limit would otherwise
 * leave every other project with 503 for as long as they run).
 */
export class ProjectLoad {
  private readonly pending = new Map<string, Set<string>>();

  /** Follows the renderer's events (`renderer.on(e => load.apply(e))`). */
  apply(event: RenderEvent): void {
    const projectId = event.meta?.projectId;
    if (typeof projectId !== "string") return;
    if (event.type === "render.created") {
      const set = this.pending.get(projectId) ?? new Set<string>();
      set.add(event.renderId);
      this.pending.set(projectId, set);
    } else if (event.type === "render.succeeded" || event.type === "render.failed") {
      const set = this.pending.get(projectId);
      set?.delete(event.renderId);
      if (set?.size === 0) this.pending.delete(projectId);
    }
  }

  /** Renders of `projectId` accepted by this process and not ended yet. */
  count(projectId: string): number {
    return this.pending.get(projectId)?.size ?? 0;
  }

  /** Throws 429 `RateLimitExceededError` when `project` already holds `limit` renders. */
  check(project: Project, limit: number): void {
    const held = this.count(project.id);
    if (held >= limit) {
      throw new RenderError(
        "RateLimitExceededError",
        `This project has ${held} renders waiting or running (at most ${limit}); retry when some have finished`,
        { details: { retryAfter: 5 } },
      );
    }
  }
}
