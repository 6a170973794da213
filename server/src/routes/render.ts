import { isRenderError } from "@renderkit/core";
import type { H3, H3Event } from "h3";
import { readOptions } from "../http/body.js";
import type { AppContext } from "../http/context.js";
import { answerHeaders, headOf, json, lookupProject, projectOf, requestId } from "../http/respond.js";
import { RESPONSE_TYPES, type ResponseType } from "../state/job-info.js";
import type { RenderRecord } from "../state/records.js";
import { type Admission, admitRender } from "./admit.js";
import { answerInType, invalidType, refuseForType } from "./answer.js";
import { failureResponse, statusBody } from "./bodies.js";

/**
 * Waits up to `seconds` for the render; 200 with the result in the `response_type` asked for,
 * the failure (JSON), or a 307 to wait again.
 */
async function waitAndAnswer(
  event: H3Event,
  ctx: AppContext,
  renderId: string,
  seconds: number,
  type: ResponseType,
): Promise<Response> {
  // The render is accepted: should the records become unreachable meanwhile, the client is sent to
  // wait again (307) rather than told to retry (503), which would make it submit a second render.
  const record = await ctx.store.wait(renderId, seconds * 1000, ctx.state.stopWaiting.signal).catch((error: unknown) => {
    if (isRenderError(error) && error.code === "ServiceUnavailable") return undefined;
    throw error;
  });
  return syncAnswer(event, ctx, renderId, record, type);
}

function syncAnswer(
  event: H3Event,
  ctx: AppContext,
  renderId: string,
  record: RenderRecord | undefined,
  type: ResponseType,
): Response | Promise<Response> {
  if (record?.status === "succeeded") return answerInType(event, ctx, record, type);
  if (record?.status === "failed") return failureResponse(event, record);
  const redirectUrl = `${ctx.baseUrl}/v1/render/sync/${encodeURIComponent(renderId)}`;
  return json(event, 307, { redirectUrl }, { ...answerHeaders(event), location: redirectUrl });
}

/** The render endpoints of the spec, plus the compatibility aliases (docs/api.md#endpoints). */
export function renderRoutes(app: H3, ctx: AppContext): void {
  /** The API's admission: the secret key in `Authorization`, the options in the body. */
  const api = (event: H3Event, origin: "sync" | "async", refuse: Admission["refuse"]): Admission => ({
    origin,
    project: () => projectOf(event, ctx),
    options: () => readOptions(event.req, ctx.config.maxBodyBytes),
    refuse,
  });
  const sync = async (event: H3Event) => {
    const { renderId, server } = await admitRender(
      event,
      ctx,
      api(event, "sync", (options, { responseType }) => refuseForType(responseType ?? "json", options)),
    );
    return waitAndAnswer(event, ctx, renderId, server.redirectAfter, server.responseType ?? "json");
  };
  const async_ = async (event: H3Event) => {
    const refuse: Admission["refuse"] = (_, { responseType }) => {
      if (responseType === "binary" || responseType === "base64") {
        throw invalidType(
          `${responseType} needs the bytes, which an async render does not have yet: use POST /v1/render/sync or a render link, or json/none here`,
        );
      }
    };
    const { renderId, server } = await admitRender(event, ctx, api(event, "async", refuse));
    const statusUrl = `${ctx.baseUrl}/v1/render/${encodeURIComponent(renderId)}`;
    if (server.responseType === "none") {
      // Fire and forget (a webhook, or a later status lookup): the id and the status address, no body.
      const headers = { "x-request-id": requestId(event), ...answerHeaders(event), "x-render-id": renderId, location: statusUrl };
      return new Response(null, { status: 201, headers: { ...headers, "content-length": "0" } });
    }
    return json(event, 201, { status: "created", renderId, statusUrl }, answerHeaders(event));
  };
  const resume = async (event: H3Event) => {
    const project = await lookupProject(event, ctx);
    const renderId = event.context.params?.renderId ?? "";
    const record = await ctx.store.get(renderId);
    if (!record || record.projectId !== project.id) return notFound(event, ctx, renderId);
    const type = RESPONSE_TYPES.find((name) => name === record.responseType) ?? "json";
    return waitAndAnswer(event, ctx, renderId, record.redirectAfter ?? ctx.config.redirectAfter, type);
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
