import { privateSideFileRender } from "@renderkit/core/internal";
import type { H3Event } from "h3";
import type { AppContext } from "../http/context.js";
import { HttpProblem } from "../http/errors.js";
import { projectOf } from "../http/respond.js";

/**
 * Side files that hold credentials (`save_cookies`; `save_headers`, whose `set-cookie` carries the
 * same cookies) are served only to the project whose render made them: their random address alone
 * is not enough, since it travels in status records, webhooks and `X-Render-*` headers. The
 * project's `Authorization: Bearer <secret key>` is checked before anything is read: without a
 * valid key the answer is the API's 401; with another project's key, or for a render that is
 * unknown or expired, the same 404 as a missing file. Resolves with whether `key` is such a file.
 */
export async function checkPrivateFile(event: H3Event, ctx: AppContext, key: string): Promise<boolean> {
  const renderId = privateSideFileRender(key);
  if (renderId === undefined) return false;
  const project = await projectOf(event, ctx);
  const record = await ctx.store.get(renderId);
  if (!record || record.projectId !== project.id) throw new HttpProblem(404, "No such render, or it expired");
  return true;
}
