import { GENERIC_CODES, STATUS } from "../http/errors.js";

/** Schemas of the API's answers, shared by the OpenAPI document's operations. */
export const ERROR = {
  type: "object",
  description: "The one error body of the API; branch on error.code, never on the message.",
  required: ["error", "requestId"],
  properties: {
    error: {
      type: "object",
      required: ["message", "code"],
      properties: { message: { type: "string" }, code: { type: "string" } },
    },
    requestId: { type: "string", description: "Also sent as X-Request-Id" },
  },
};

export const RESULT = {
  type: "object",
  description:
    "A finished render. Formats add fields (images: width, height, truncated, blank; pdf: blank; video: duration...) and side renders their *Url fields.",
  required: ["renderId", "renderUrl", "size", "renderTime", "queueTime", "bandwidth"],
  properties: {
    renderId: { type: "string" },
    renderUrl: { type: "string", format: "uri", description: "Expires after renderTtlDays (30 by default)" },
    size: { type: "integer", description: "bytes" },
    renderTime: { type: "integer", description: "milliseconds" },
    queueTime: { type: "integer", description: "milliseconds" },
    bandwidth: { type: "integer", description: "bytes received by the browser" },
  },
  additionalProperties: true,
};

export const CREATED = {
  type: "object",
  required: ["status", "renderId", "statusUrl"],
  properties: {
    status: { type: "string", const: "created" },
    renderId: { type: "string" },
    statusUrl: { type: "string", format: "uri", description: "GET it for the status record" },
  },
};

export const REDIRECT = {
  type: "object",
  required: ["redirectUrl"],
  properties: { redirectUrl: { type: "string", format: "uri", description: "Same as the Location header" } },
};

export const STATUS_RECORD = {
  type: "object",
  description: "A render's state; once succeeded it carries the RenderResult fields, once failed the reason.",
  required: ["renderId", "statusUrl", "status"],
  properties: {
    ...RESULT.properties,
    statusUrl: { type: "string", format: "uri" },
    status: { type: "string", enum: ["created", "retrying", "succeeded", "failed"] },
    reason: { type: "string", description: "Why the render failed (status failed)" },
  },
  additionalProperties: true,
};

export const NOT_FOUND_RECORD = {
  type: "object",
  required: ["renderId", "status", "error", "requestId"],
  properties: {
    renderId: { type: "string" },
    statusUrl: { type: "string", format: "uri" },
    status: { type: "string", const: "not-found" },
    error: { type: "object", required: ["message"], properties: { message: { type: "string" } } },
    requestId: { type: "string" },
  },
};

export const HEALTH = { type: "object", required: ["status"], properties: { status: { type: "string", const: "ok" } } };

export const READY = {
  type: "object",
  description:
    "Without credentials, only `status`. With `Authorization: Bearer <metrics.token>` (the server's operator token), also role, engine and queue figures and the formats.",
  required: ["status"],
  properties: {
    status: { type: "string", const: "ready" },
    role: { type: "string", enum: ["all", "api", "worker"], description: "With the metrics token only" },
    engines: {
      type: "object",
      description: "Per engine browser figures (not on API-only nodes); with the metrics token only",
      additionalProperties: true,
    },
    queue: {
      type: "object",
      description: "With the metrics token only",
      required: ["waiting", "active"],
      properties: { waiting: { type: "integer" }, active: { type: "integer" } },
    },
    formats: { type: "array", items: { type: "string" }, description: "With the metrics token only" },
  },
};

/** The error codes answered with each status: the render API's codes, then the server's generic one. */
export function codesByStatus(): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  const add = (status: number, code: string) => {
    const list = out[status] ?? [];
    if (!list.includes(code)) list.push(code);
    out[status] = list;
  };
  for (const [code, status] of Object.entries(STATUS)) add(status, code);
  for (const [status, code] of Object.entries(GENERIC_CODES)) add(Number(status), code);
  return out;
}

const REASONS: Record<number, string> = {
  400: "Invalid request",
  401: "Missing, malformed or unknown key, or a disabled project",
  404: "Not found",
  405: "Method not allowed (Allow header)",
  413: "Body too large",
  416: "Range not satisfiable",
  429: "Rate limit reached (Retry-After)",
  431: "Headers too large",
  500: "Render or server failure",
  502: "The caller's proxy (option proxy) could not be reached or refused the page",
  503: "Draining, queue full or unreachable (Retry-After)",
};

/** Error responses of the given statuses, each listing its codes (the `code` enum) in the schema. */
export function errorResponses(statuses: readonly number[]): Record<string, unknown> {
  const codes = codesByStatus();
  return Object.fromEntries(
    statuses.map((status) => {
      const list = codes[status] ?? ["Error"];
      const schema = {
        allOf: [
          { $ref: "#/components/schemas/Error" },
          { type: "object", properties: { error: { type: "object", properties: { code: { type: "string", enum: list } } } } },
        ],
      };
      const description = `${REASONS[status] ?? "Error"}. Codes: ${list.join(", ")}`;
      return [String(status), { description, content: { "application/json": { schema } } }];
    }),
  );
}
