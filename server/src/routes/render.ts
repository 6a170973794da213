import { isRenderError } from "@renderkit/core";
import type { H3, H3Event } from "h3";
import type { AppContext } from "../context.js";
import { readOptions } from "../http/body.js";
import { answerHeaders, guardRender, headOf, json, lookupProject, projectOf } from "../http/respond.js";
import type { RenderRecord } from "../state/records.js";
import { failureResponse, resultBody, statusBody } from "./bodies.js";
import { submitRender } from "./submit.js";

/** Waits up to `seconds` for the render; 200 with the result, the failure, or a 307 to wait again. */
async function waitAndAnswer(event: H3Event, ctx: AppContext, renderId: string, seconds: number): Promise<Response> {
  // The render is accepted: should the records become unreachable meanwhile, the client is sent to
  // wait again (307) rather than told to retry (503), which would make it submit a second render.
  const record = await ctx.store.wait(renderId, seconds * 1000, ctx.state.stopWaiting.signal).catch((error: unknown) => {
    if (isRenderError(error) && error.code === "ServiceUnavailable") return undefined;
    throw error;
  });
  return syncAnswer(event, ctx, renderId, record);
}

function syncAnswer(event: H3Event, ctx: AppContext, renderId: string, record: RenderRecord | undefined): Response {
  if (record?.status === "succeeded") return json(event, 200, resultBody(record), answerHeaders(event));
  if (record?.status === "failed") return failureResponse(event, record);
  const redirectUrl = `${ctx.baseUrl}/v1/render/sync/${encodeURIComponent(renderId)}`;
  return json(event, 307, { redirectUrl }, { ...answerHeaders(event), location: redirectUrl });
}

/** The render endpoints of the spec, plus the compatibility aliases of DESIGN §3. */
export function renderRoutes(app: H3, ctx: AppContext): void {
  const sync = async (event: H3Event) => {
    const project = await guardRender(event, ctx);
    const input = await readOptions(event.req, ctx.config.maxBodyBytes);
    const { renderId, server } = await submitRender(event, ctx, project, input, "sync");
    return waitAndAnswer(event, ctx, renderId, server.redirectAfter);
  };
  const async_ = async (event: H3Event) => {
    const project = await guardRender(event, ctx);
    const input = await readOptions(event.req, ctx.config.maxBodyBytes);
    const { renderId } = await submitRender(event, ctx, project, input, "async");
    const statusUrl = `${ctx.baseUrl}/v1/render/${encodeURIComponent(renderId)}`;
    return json(event, 201, { status: "created", renderId, statusUrl }, answerHeaders(event));
  };
  const resume = async (event: H3Event) => {
    const project = await lookupProject(event, ctx);
    const renderId = event.context.params?.renderId ?? "";
    const record = await ctx.store.get(renderId);
    if (!record || record.projectId !== project.id) return notFound(event, ctx, renderId);
    return waitAndAnswer(event, ctx, renderId, record.redirectAfter ?? ctx.config.redirectAfter);
  };
  const status = async (event: H3Event) => {
    const project = await lookupProject(event, ctx);
    const renderId = decodeURIComponent(event.context.params?.renderId ?? "");
    const record = await ctx.store.get(renderId);
    if (!record || record.projectId !== project.id) return notFound(event, ctx, renderId);
    return json(event, 200, statusBody(record, ctx.baseUrl), answerHeaders(event));
  };
  const noId = async (event: H3Event) => {
    await projectOf(event, ctx);
    return json(event, 400, {
      error: { message: "No render id: use GET /v1/render/{renderId}", code: "NoRenderIdProvided" },
      requestId: event.context.requestId,
    });
  };

  app.post("/v1/render/sync", sync);
  app.post("/v1/screenshot", sync);
  app.post("/v1/render/async", async_);
  app.post("/v1/render", async_);
  app.post("/v1/screenshot/async", async_);
  app.get("/v1/render/sync/:renderId", resume);
  app.post("/v1/render/sync/:renderId", resume);
  app.get("/v1/render/:renderId", status);
  app.head("/v1/render/:renderId", headOf(status));
  app.get("/v1/render", noId);
  app.head("/v1/render", headOf(noId));
  app.get("/v1/render/", noId);
}

/** 404 for unknown renders and renders of other projects: the same answer, no data. */
function notFound(event: H3Event, ctx: AppContext, renderId: string): Response {
  return json(event, 404, {
    renderId,
    statusUrl: `${ctx.baseUrl}/v1/render/${encodeURIComponent(renderId)}`,
    status: "not-found",
    error: { message: "No render with this id exists for this project" },
    requestId: event.context.requestId,
  });
}
