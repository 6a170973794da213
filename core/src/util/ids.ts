import { randomUUID } from "node:crypto";

/** How a render was requested; the suffix is part of its opaque id (docs/api.md#render-identifiers). */
export type RenderOrigin = "sync" | "async" | "link";

const SUFFIX: Record<RenderOrigin, string> = { sync: "_s", async: "", link: "_l" };

/** A fresh render identifier: UUID v4 plus the origin's suffix. Opaque to everyone else. */
export function newRenderId(origin: RenderOrigin = "async"): string {
  return `${randomUUID()}${SUFFIX[origin]}`;
}

/** True when `id` is safe to use as a storage key segment (no separators, bounded length). */
export function isSafeId(id: string): boolean {
  return /^[A-Za-z0-9_-]{1,128}$/.test(id);
}
