import { type OptionSpec, type OptionTable, snakeName } from "@renderkit/core";

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

const ERROR = {
  type: "object",
  required: ["error", "requestId"],
  properties: {
    error: { type: "object", required: ["message"], properties: { message: { type: "string" }, code: { type: "string" } } },
    requestId: { type: "string" },
  },
};

const RESULT = {
  type: "object",
  required: ["renderUrl", "size", "renderTime", "queueTime", "bandwidth"],
  properties: {
    renderId: { type: "string" },
    renderUrl: { type: "string", format: "uri", description: "Expires after 30 days" },
    size: { type: "integer", description: "bytes" },
    renderTime: { type: "integer", description: "milliseconds" },
    queueTime: { type: "integer", description: "milliseconds" },
    bandwidth: { type: "integer", description: "bytes received by the browser" },
  },
};

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
  const errors = Object.fromEntries(
    ["400", "401", "404", "429", "500", "503"].map((s) => [
      s,
      { description: "Error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
    ]),
  );
  const renderIdParam = { name: "renderId", in: "path", required: true, schema: { type: "string" } };
  // response_type: json (the result), binary (the render's own type), base64 (text), none (empty).
  const rendered = {
    "application/json": { schema: { $ref: "#/components/schemas/RenderResult" } },
    "application/octet-stream": { schema: { type: "string", format: "binary" } },
    "text/plain": { schema: { type: "string", contentEncoding: "base64" } },
  };
  const syncAnswers = {
    "200": {
      description:
        "Rendered: the result (response_type json), the bytes in their content type (binary), their base64 text (base64) or an empty body (none); X-Render-Id and X-Render-* figures as headers",
      content: rendered,
    },
    "307": { description: "Still rendering after redirect_after seconds; follow Location (GET or POST)" },
    ...errors,
  };
  const syncOp = {
    summary: "Render and wait (307 to /v1/render/sync/{renderId} after redirect_after seconds)",
    requestBody: body,
    responses: syncAnswers,
  };
  const resumeOp = { summary: "Go on waiting for a sync render", parameters: [renderIdParam], responses: syncAnswers };
  const asyncOp = {
    summary: "Queue a render",
    requestBody: body,
    responses: { "201": { description: "Created (an empty body with response_type none)" }, ...errors },
  };
  const linkOp = {
    summary: "Render link: the render's bytes; token = hex HMAC-SHA256 (or SHA-1) of the raw query string",
    security: [],
    parameters: [
      { name: "publishableKey", in: "path", required: true, schema: { type: "string" } },
      { name: "token", in: "path", required: true, schema: { type: "string", pattern: "^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$" } },
      { name: "format", in: "path", required: true, schema: { type: "string", enum: [...formats] } },
    ],
    responses: {
      "200": { description: "The render's bytes (response_type binary, the default), or json, base64, none", content: rendered },
      ...errors,
    },
  };
  return {
    openapi: "3.1.0",
    info: { title: "renderkit render API", version: "1.0.0" },
    servers: [{ url: baseUrl }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { RenderRequest: request, RenderResult: RESULT, Error: ERROR },
    },
    paths: {
      "/v1/render/sync": { post: syncOp },
      "/v1/screenshot": { post: { ...syncOp, summary: "Alias of POST /v1/render/sync" } },
      "/v1/render/sync/{renderId}": {
        get: resumeOp,
        post: resumeOp,
      },
      "/v1/render/async": { post: asyncOp },
      "/v1/render": { post: { ...asyncOp, summary: "Alias of POST /v1/render/async" } },
      "/v1/screenshot/async": { post: { ...asyncOp, summary: "Alias of POST /v1/render/async" } },
      "/v1/render/{renderId}": {
        get: {
          summary: "Status of a render",
          parameters: [renderIdParam],
          responses: { "200": { description: "Status record" }, "404": { description: "not-found" }, "401": errors["401"] },
        },
      },
      "/v1/{publishableKey}/{token}/{format}": {
        get: linkOp,
        head: linkOp,
      },
      "/renders/{file}": {
        get: {
          summary: "A stored render (Range requests supported); 404 once expired",
          security: [],
          parameters: [{ name: "file", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": { description: "The render's bytes" },
            "206": { description: "A byte range" },
            "404": errors["404"],
          },
        },
      },
    },
  };
}
