import { createRequire } from "node:module";
import { type OptionSpec, type OptionTable, snakeName } from "@renderkit/core";
import { CREATED, ERROR, errorResponses, HEALTH, NOT_FOUND_RECORD, READY, REDIRECT, RESULT, STATUS_RECORD } from "./schemas.js";

/** The server package's version (this file is in src/openapi/ or dist/openapi/, two folders below package.json). */
const VERSION: string = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

/** JSON Schema of one option, from the same spec that validates requests. */
function schemaOf(spec: OptionSpec): Record<string, unknown> {
  const base: Record<string, unknown> = { description: spec.doc };
  switch (spec.type) {
    case "boolean":
      return { ...base, type: "boolean", ...(spec.default !== undefined ? { default: spec.default } : {}) };
    case "number":
      return {
        ...base,
        type: spec.integer ? "integer" : "number",
        minimum: spec.min,
        maximum: spec.max,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case "string":
      return {
        ...base,
        type: "string",
        maxLength: spec.maxLength,
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case "enum":
      return {
        ...base,
        type: "string",
        enum: [...spec.values],
        ...(spec.default !== undefined ? { default: spec.default } : {}),
      };
    case "strings":
      return {
        ...base,
        oneOf: [
          { type: "string", maxLength: spec.maxLength },
          { type: "array", items: { type: "string", maxLength: spec.maxLength }, maxItems: spec.maxItems },
        ],
      };
    case "length":
      return {
        ...base,
        oneOf: [
          { type: "number", minimum: 0 },
          { type: "string", pattern: "^\\d+(\\.\\d+)?(px|in|cm|mm)?$" },
        ],
      };
  }
}

const json = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });
const param = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }) => ({
  name,
  in: "path",
  required: true,
  description,
  schema,
});

/** The OpenAPI 3.1 document of the API, with the request schema built from the option table. */
export function openApiDocument(options: OptionTable, formats: readonly string[], baseUrl: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(options)) properties[snakeName(name)] = schemaOf(spec);
  properties.format = { ...(properties.format as object), enum: [...formats] };
  const request = {
    type: "object",
    description: "Render options; camelCase spellings are accepted too. One of url or html is required.",
    properties,
    additionalProperties: true,
  };
  const body = {
    required: true,
    content: {
      "application/json": { schema: { $ref: "#/components/schemas/RenderRequest" } },
      "application/x-www-form-urlencoded": { schema: { $ref: "#/components/schemas/RenderRequest" } },
    },
  };
  const apiErrors = errorResponses([400, 401, 405, 413, 429, 431, 500, 503]);
  const renderIdParam = param("renderId", "The id a render call answered with");
  // response_type: json (the result), binary (the render's own type), base64 (text), none (empty).
  const rendered = {
    ...json("RenderResult"),
    "application/octet-stream": { schema: { type: "string", format: "binary" } },
    "text/plain": { schema: { type: "string", contentEncoding: "base64" } },
  };
  const redirect = {
    description: "Still rendering after redirect_after seconds; follow Location (GET or POST)",
    headers: { Location: { schema: { type: "string", format: "uri" } } },
    content: json("Redirect"),
  };
  const syncAnswers = {
    "200": {
      description:
        "Rendered: the result (response_type json), the bytes in their content type (binary), their base64 text (base64) or an empty body (none); X-Render-Id and X-Render-* figures as headers",
      content: rendered,
    },
    "307": redirect,
    ...apiErrors,
    ...errorResponses([502]),
  };
  const tags = (tag: string) => ({ tags: [tag] });
  const syncOp = (operationId: string, summary: string) => ({
    operationId,
    ...tags("Render"),
    summary,
    description: "Render and wait; after redirect_after seconds a 307 to /v1/render/sync/{renderId}.",
    requestBody: body,
    responses: syncAnswers,
  });
  const resumeOp = (operationId: string) => ({
    operationId,
    ...tags("Render"),
    summary: "Go on waiting for a sync render",
    description: "The address of a 307: waits again, answering in the original response_type, the failure, or another 307.",
    parameters: [renderIdParam],
    responses: { ...syncAnswers, ...errorResponses([404]) },
  });
  const asyncOp = (operationId: string, summary: string) => ({
    operationId,
    ...tags("Render"),
    summary,
    requestBody: body,
    responses: {
      "201": {
        description: "Queued: the record's address (an empty body with X-Render-Id and Location for response_type none)",
        content: json("Created"),
      },
      ...apiErrors,
    },
  });
  const linkAnswers = {
    "200": { description: "The render's bytes (response_type binary, the default), or json, base64, none", content: rendered },
    ...errorResponses([400, 401, 404, 405, 429, 500, 502, 503]),
  };
  const keyParam = param("publishableKey", "The project's publishable key");
  const formatParam = param("format", "The output format", { type: "string", enum: [...formats] });
  const query = {
    name: "options",
    in: "query",
    required: true,
    description: "The render options (RenderRequest) as query parameters; download=<name> answers as an attachment",
    schema: { $ref: "#/components/schemas/RenderRequest" },
    style: "form",
    explode: true,
  };
  const signedLink = (operationId: string) => ({
    operationId,
    ...tags("Render links"),
    summary: "Signed render link",
    description:
      "The render's bytes; token is the hex HMAC-SHA256 of `<format>?<raw query string>`, keyed with the project's secret key (query-only and SHA-1 tokens: see docs/api.md). With `expires` (Unix seconds) in the query the link answers 410 RenderLinkExpired after that time.",
    security: [],
    parameters: [
      keyParam,
      param("token", "HMAC-SHA256 of `<format>?<raw query string>`", {
        type: "string",
        pattern: "^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$",
      }),
      formatParam,
      query,
    ],
    responses: linkAnswers,
  });
  const tokenlessLink = (operationId: string) => ({
    operationId,
    ...tags("Render links"),
    summary: "Tokenless render link",
    description:
      "Like the signed link without a token, for projects with allowTokenless (400 TokenlessRequestsNotEnabled otherwise).",
    security: [],
    parameters: [keyParam, formatParam, query],
    responses: linkAnswers,
  });
  const statusOp = (operationId: string) => ({
    operationId,
    ...tags("Render"),
    summary: "Status of a render",
    parameters: [renderIdParam],
    responses: {
      "200": { description: "The status record", content: json("RenderStatus") },
      "404": {
        description: "Unknown id, or another project's render (the same answer)",
        content: json("RenderNotFound"),
      },
      ...errorResponses([401, 429]),
    },
  });
  const fileOp = (operationId: string) => ({
    operationId,
    ...tags("Stored renders"),
    summary: "A stored render or side file (Range requests supported); 404 once expired",
    description:
      "With S3 storage, a 302 to a fresh presigned address instead (images, PDF and media only). The cookie and header files of save_cookies and save_headers are served only with the project's secret key (Authorization: Bearer), never cached; another project's key gets 404.",
    security: [],
    parameters: [param("key", "The key as in renderUrl or a side file's address (htmlUrl, cookiesUrl...)")],
    responses: {
      "200": {
        description: "The render's bytes",
        content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
      },
      "206": {
        description: "A byte range",
        content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
      },
      "302": {
        description: "To a presigned address of the render's bucket",
        headers: { Location: { schema: { type: "string" } } },
      },
      ...errorResponses([401, 404, 416]),
    },
  });
  const meta = (operationId: string, summary: string, ok: Record<string, unknown>, statuses: number[] = []) => ({
    operationId,
    ...tags("Service"),
    summary,
    security: [],
    responses: { "200": ok, ...errorResponses(statuses) },
  });
  const health = (id: string) => meta(id, "Liveness", { description: "The process answers", content: json("Health") });
  const ready = (id: string) =>
    meta(id, "Readiness (figures with the metrics token)", { description: "Ready for renders", content: json("Ready") }, [503]);
  const openapi = (id: string) =>
    meta(id, "This document", { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } });
  return {
    openapi: "3.1.0",
    info: { title: "renderkit render API", version: VERSION },
    servers: [{ url: baseUrl }],
    security: [{ bearer: [] }],
    tags: [
      { name: "Render", description: "Renders with the project's secret key" },
      { name: "Render links", description: "Renders from a URL, for img src and links" },
      { name: "Stored renders", description: "The renders' bytes at renderUrl" },
      { name: "Service", description: "Health, readiness and this document" },
    ],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "The project's secret key" } },
      schemas: {
        RenderRequest: request,
        RenderResult: RESULT,
        RenderStatus: STATUS_RECORD,
        RenderNotFound: NOT_FOUND_RECORD,
        Created: CREATED,
        Redirect: REDIRECT,
        Error: ERROR,
        Health: HEALTH,
        Ready: READY,
      },
    },
    paths: {
      "/v1/render/sync": { post: syncOp("renderSync", "Render and wait") },
      "/v1/screenshot": { post: syncOp("screenshot", "Render and wait (alias of POST /v1/render/sync)") },
      "/v1/render/sync/{renderId}": { get: resumeOp("resumeSyncRender"), post: resumeOp("resumeSyncRenderPost") },
      "/v1/render/async": { post: asyncOp("renderAsync", "Queue a render") },
      "/v1/render": {
        post: asyncOp("render", "Queue a render (alias of POST /v1/render/async)"),
        get: {
          operationId: "renderStatusWithoutId",
          ...tags("Render"),
          summary: "Always 400 NoRenderIdProvided",
          responses: errorResponses([400, 401]),
        },
      },
      "/v1/screenshot/async": { post: asyncOp("screenshotAsync", "Queue a render (alias of POST /v1/render/async)") },
      "/v1/render/{renderId}": { get: statusOp("getRenderStatus"), head: statusOp("headRenderStatus") },
      "/v1/{publishableKey}/{token}/{format}": { get: signedLink("renderLink"), head: signedLink("renderLinkHead") },
      "/v1/{publishableKey}/{format}": {
        get: tokenlessLink("tokenlessRenderLink"),
        head: tokenlessLink("tokenlessRenderLinkHead"),
      },
      "/renders/{key}": { get: fileOp("getStoredRender"), head: fileOp("headStoredRender") },
      "/health": { get: health("health"), head: health("healthHead") },
      "/ready": { get: ready("ready"), head: ready("readyHead") },
      "/v1/openapi.json": { get: openapi("openapi"), head: openapi("openapiHead") },
      "/docs": {
        get: meta("docs", "This API reference as an HTML page", {
          description: "HTML",
          content: { "text/html": { schema: { type: "string" } } },
        }),
      },
    },
  };
}
