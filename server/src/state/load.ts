import { RenderError, type RenderEvent } from "@renderkit/core";
import type { Project } from "../config/types.js";

/**
 * Renders each project has waiting or running, so one project cannot take the whole queue from
 * the others (a burst of slow renders within its rate limit would otherwise leave every other
 * project with 503 for as long as they run). A render's place is reserved before it is queued
 * and released by its final event.
 */
export interface ProjectLoad {
  /** Reserves a place for `renderId`, or throws 429 `RateLimitExceededError` when `project` holds `limit`. */
  reserve(project: Project, renderId: string, limit: number): Promise<void>;
  /** Gives a place back (a render that could not be queued). */
  release(projectId: string, renderId: string): Promise<void>;
  /** Follows the renderer's events: a final event releases the render's place. */
  apply(event: RenderEvent): void | Promise<void>;
  /** Renders of `projectId` holding a place. */
  count(projectId: string): Promise<number>;
}

/** The refusal when a project holds its share. */
export function loadRefusal(held: number, limit: number): RenderError {
  return new RenderError(
    "RateLimitExceededError",
    `This project has ${held} renders waiting or running (at most ${limit}); retry when some have finished`,
    { details: { retryAfter: 5 } },
  );
}

/**
 * In one process: a set of render ids per project. The check and the reservation run in one
 * synchronous step, before any await, so concurrent requests cannot both see the last place free.
 */
export class MemoryProjectLoad implements ProjectLoad {
  private readonly pending = new Map<string, Set<string>>();

  reserve(project: Project, renderId: string, limit: number): Promise<void> {
    const set = this.pending.get(project.id) ?? new Set<string>();
    if (set.size >= limit) return Promise.reject(loadRefusal(set.size, limit));
    set.add(renderId);
    this.pending.set(project.id, set);
    return Promise.resolve();
  }

  async release(projectId: string, renderId: string): Promise<void> {
    const set = this.pending.get(projectId);
    set?.delete(renderId);
    if (set?.size === 0) this.pending.delete(projectId);
  }

  apply(event: RenderEvent): void {
    const projectId = event.job?.projectId;
    if (typeof projectId !== "string") return;
    if (event.type === "render.succeeded" || event.type === "render.failed") void this.release(projectId, event.renderId);
  }

  async count(projectId: string): Promise<number> {
    return this.pending.get(projectId)?.size ?? 0;
  }
}
