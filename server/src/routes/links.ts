import { createHmac, timingSafeEqual } from "node:crypto";
import { RenderError, type RenderOptions, snakeName } from "@renderkit/core";
import type { H3, H3Event } from "h3";
import type { AppContext } from "../context.js";
import { paramsToOptions } from "../http/body.js";
import { attachment } from "../http/respond.js";
import type { Project } from "../types.js";
import { admitRender } from "./admit.js";
import { answerInType, invalidType } from "./answer.js";
import { failureResponse } from "./bodies.js";

/** The query string exactly as the client sent it: tokens are HMACs of these bytes. */
function rawQuery(event: H3Event): string {
  const nodeUrl = (event.runtime?.node?.req as { url?: string } | undefined)?.url;
  const target = nodeUrl ?? event.req.url;
  const at = target.indexOf("?");
  return at < 0 ? "" : target.slice(at + 1);
}

/** A link's query must be there and well-formed before its token can be compared. */
function checkQuery(query: string): void {
  if (query === "") throw new RenderError("NoQuerySent", "The render link has no query string");
  if (/%(?![0-9A-Fa-f]{2})/.test(query)) throw new RenderError("InvalidQuery", "The query string has a malformed %-escape");
}

function tokenMatches(query: string, token: string, key: string): boolean {
  const algorithm = token.length === 64 ? "sha256" : token.length === 40 ? "sha1" : undefined;
  if (!algorithm || !/^[0-9a-fA-F]+$/.test(token)) return false;
  const expected = createHmac(algorithm, key).update(query, "utf8").digest();
  return timingSafeEqual(expected, Buffer.from(token.toLowerCase(), "hex"));
}

async function linkProject(ctx: AppContext, key: string): Promise<Project> {
  let project = ctx.projects.byPublishableKey(key);
  if (!project && (await ctx.projects.refreshIfChanged())) project = ctx.projects.byPublishableKey(key);
  if (!project) throw new RenderError("ApiKeyNotFound", "Unknown publishable key in the render link");
  if (!project.enabled) throw new RenderError("ProjectNotEnabled", "This project is not enabled");
  return project;
}

/** Storage options a link may not carry: anyone holding a tokenless link could write to the project's buckets. */
const BUCKET_OPTIONS = ["useS3", "s3Path", "s3Bucket", "s3Region", "s3Endpoint", "cdnHost"] as const;

/**
 * What render links refuse, checked on the parsed options (every spelling of a name): an upload
 * to a presigned address, of the render or of a side file (a link answers with the render
 * itself), and, on tokenless links, the project's buckets.
 */
function refuseOnLinks(options: RenderOptions, signed: boolean): void {
  const refuse = (option: string, why: string) => {
    throw new RenderError("InvalidOptions", `Option ${snakeName(option)} ${why}`, { details: { option: snakeName(option) } });
  };
  if (options.s3PresignedUrl !== undefined)
    refuse("s3PresignedUrl", "cannot be used with render links: they answer with the render itself");
  // The side files' upload addresses (`s3_presigned_url_html`...), refused alike: a link writes nowhere but the server.
  const side = Object.entries(options).find(([name, value]) => name.startsWith("s3PresignedUrl") && value !== undefined)?.[0];
  if (side) refuse(side, "cannot be used with render links: a link uploads to no address of yours; use the API");
  if (signed) return;
  const bucket = BUCKET_OPTIONS.find((name) => options[name] !== undefined && options[name] !== false);
  if (bucket) refuse(bucket, "needs a signed render link or the API: a tokenless link may not write to the project's buckets");
}

/**
 * Render links (DESIGN §3): `GET|HEAD /v1/{publishable_key}/{token}/{format}?{query}` answers with
 * the render's bytes (or, with `response_type`, its JSON result, base64 text or no body); the
 * token is the hex HMAC-SHA256 (or SHA-1) of the raw query string keyed with the project's secret key. Tokenless links work only for projects that allow them.
 */
export function linkRoutes(app: H3, ctx: AppContext): void {
  /** Admits and answers a link; `authorize` checks its token (or tokenless permission) and query. */
  const render = async (event: H3Event, signed: boolean, authorize: (project: Project, query: string) => void) => {
    const { key = "", format = "" } = event.context.params ?? {};
    const query = rawQuery(event);
    let download: string | undefined;
    const { renderId, parsed, server } = await admitRender(event, ctx, {
      origin: "link",
      // Before the rate limit, unlike the API (see admitRender): a bad token is not counted today.
      project: async () => {
        const project = await linkProject(ctx, key);
        authorize(project, query);
        return project;
      },
      options: async () => {
        const fromQuery = paramsToOptions(new URLSearchParams(query));
        download = typeof fromQuery.download === "string" ? fromQuery.download : undefined;
        delete fromQuery.download;
        // webhook_url works as on the API; redirect_after has no meaning here (the link waits).
        fromQuery.format = format;
        return fromQuery;
      },
      refuse: (options, { responseType }) => {
        refuseOnLinks(options, signed);
        if (download && (responseType ?? "binary") !== "binary") {
          throw invalidType(`${responseType} cannot be used with download, which names the file of a binary answer`);
        }
      },
    });
    const stopping = ctx.state.stopWaiting.signal;
    const record = await ctx.store.wait(renderId, parsed.options.timeout + parsed.options.delay + 120_000, stopping);
    if (record?.status !== "succeeded" || !record.result) {
      if (record?.status === "failed") return failureResponse(event, record);
      if (stopping.aborted) throw new RenderError("ServiceUnavailable", "The server is shutting down; retry shortly");
      throw new RenderError("TimedOutError", "The render did not finish in time");
    }
    const extra: Record<string, string> = { "cache-control": "private, max-age=0" };
    if (download) extra["content-disposition"] = attachment(download);
    return answerInType(event, ctx, record, server.responseType ?? "binary", extra);
  };

  const signed = (event: H3Event) =>
    render(event, true, (project, query) => {
      checkQuery(query);
      const token = event.context.params?.token ?? "";
      if (!project.linkSigningKey || !tokenMatches(query, token, project.linkSigningKey)) {
        throw new RenderError("TokenNotMatchedError", "The token does not match the query string");
      }
    });
  const tokenless = (event: H3Event) =>
    render(event, false, (project, query) => {
      if (!project.allowTokenless) {
        throw new RenderError("TokenlessRequestsNotEnabled", "Tokenless render links are not enabled for this project");
      }
      checkQuery(query);
    });
  app.get("/v1/:key/:token/:format", signed);
  app.head("/v1/:key/:token/:format", signed);
  app.get("/v1/:key/:format", tokenless);
  app.head("/v1/:key/:format", tokenless);
}
