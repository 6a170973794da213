import { createHmac, timingSafeEqual } from "node:crypto";
import { RenderError, type RenderOptions, snakeName } from "@renderkit/core";
import { camelize } from "@renderkit/core/internal";
import type { H3, H3Event } from "h3";
import type { Project } from "../config/types.js";
import { paramsToOptions } from "../http/body.js";
import type { AppContext } from "../http/context.js";
import { HttpProblem } from "../http/errors.js";
import { attachment } from "../http/respond.js";
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

/**
 * How a token was made, when it matches: `format`, the HMAC-SHA256 of `<format>?<query>` (the
 * format as in the path); `query`, the HMAC-SHA256 of the query alone (the `urlbox` client's);
 * `sha1`, the HMAC-SHA1 of the query. Compared in constant time.
 */
function tokenForm(key: string, format: string, query: string, token: string): "format" | "query" | "sha1" | undefined {
  if (!/^(?:[0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/.test(token)) return undefined;
  const given = Buffer.from(token, "hex");
  const same = (algorithm: "sha256" | "sha1", text: string) =>
    timingSafeEqual(createHmac(algorithm, key).update(text, "utf8").digest(), given);
  if (given.length === 20) return same("sha1", query) ? "sha1" : undefined;
  if (same("sha256", `${format}?${query}`)) return "format";
  return same("sha256", query) ? "query" : undefined;
}

const notMatched = (why: string) => new RenderError("TokenNotMatchedError", `The token does not match the query string${why}`);

/**
 * A signed link's token must cover its format: a token of the query alone (or SHA-1) would let
 * a published png link be replayed as html or md. Such tokens pass only when the query itself
 * names the path's format (`format=png`, covered by the HMAC), or when the project opted in to
 * legacy tokens.
 */
function checkToken(project: Project, format: string, query: string, token: string): void {
  const form = project.linkSigningKey ? tokenForm(project.linkSigningKey, format, query, token) : undefined;
  if (form === undefined) throw notMatched("");
  if (form === "format" || project.legacyLinkTokens) return;
  if (form === "sha1") {
    throw notMatched(
      ": SHA-1 tokens are accepted only from projects with legacyLinkTokens; sign `<format>?<query>` with HMAC-SHA256",
    );
  }
  const named = new URLSearchParams(query).getAll("format");
  if (named.length === 1 && named[0] === format) return;
  throw notMatched(
    `: this token covers the query but not the format ${format}; sign \`${format}?<query>\`, or put format=${format} in the query before signing`,
  );
}

/** Tolerance for the link maker's clock being ahead of ours, on `linkMaxAgeSeconds`. */
const CLOCK_SKEW_SECONDS = 60;

/**
 * `expires` (Unix seconds, covered by the token): past it the link answers 410
 * `RenderLinkExpired`. A project with `linkMaxAgeSeconds` requires it, at most that far ahead.
 */
function checkExpiry(project: Project, expires: unknown, now = Date.now()): void {
  const max = project.linkMaxAgeSeconds;
  if (expires === undefined) {
    if (max === undefined) return;
    throw new RenderError(
      "InvalidQuery",
      `This project's render links must carry expires=<Unix time in seconds>, at most ${max} s ahead (linkMaxAgeSeconds)`,
    );
  }
  if (typeof expires !== "string" || !/^\d{1,12}$/.test(expires)) {
    throw new RenderError("InvalidQuery", "expires must appear once, as a Unix time in whole seconds");
  }
  const at = Number(expires) * 1000;
  if (now > at) throw new HttpProblem(410, `The render link expired at ${new Date(at).toISOString()}`, "RenderLinkExpired");
  if (max !== undefined && at > now + (max + CLOCK_SKEW_SECONDS) * 1000) {
    throw new RenderError(
      "InvalidQuery",
      `expires is more than ${max} s ahead: this project's render links may last at most ${max} s (linkMaxAgeSeconds)`,
    );
  }
}

/** Formats the project's links may produce (`linkFormats`), checked on the parsed format (aliases resolved). */
function checkLinkFormat(project: Project, format: string): void {
  if (project.linkFormats && !project.linkFormats.includes(format)) {
    throw new RenderError(
      "OptionNotAvailableOnPlan",
      `Format ${format} is not available on this project's render links (allowed: ${project.linkFormats.join(", ")})`,
      { details: { option: "format" } },
    );
  }
}

async function linkProject(ctx: AppContext, key: string): Promise<Project> {
  // At most once a second, as for API keys: a project disabled by the CLI is refused here too.
  await ctx.projects.refreshIfChanged();
  let project = ctx.projects.byPublishableKey(key);
  if (!project && (await ctx.projects.refreshIfChanged())) project = ctx.projects.byPublishableKey(key);
  if (!project) throw new RenderError("ApiKeyNotFound", "Unknown publishable key in the render link");
  if (!project.enabled) throw new RenderError("ProjectNotEnabled", "This project is not enabled");
  return project;
}

/** Storage options a link may not carry: anyone holding a tokenless link could write to the project's buckets. */
const BUCKET_OPTIONS = ["useS3", "s3Path", "s3Bucket", "s3Region", "s3Endpoint", "cdnHost"] as const;

/**
 * `webhook_url` on a tokenless link, in any spelling (`webhookUrl`, `webhook_url[]`), even empty:
 * anyone holding the publishable key could otherwise make the server send POSTs signed with the
 * project's webhook secret to an address of their choosing. Refused before the address is looked up.
 */
function refuseWebhook(query: Record<string, unknown>): void {
  if (!Object.keys(query).some((name) => camelize(name) === "webhookUrl")) return;
  throw new RenderError(
    "InvalidOptions",
    "Option webhook_url needs a signed render link or the API: anyone holding a tokenless link could point it elsewhere",
    { details: { option: "webhook_url" } },
  );
}

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
 * Render links (docs/api.md#render-links): `GET|HEAD /v1/{publishable_key}/{token}/{format}?{query}`
 * answers with the render's bytes (or, with `response_type`, its JSON result, base64 text or no
 * body). The token is the hex HMAC-SHA256 of `<format>?<raw query>` keyed with the project's
 * secret key (older forms: see `checkToken`); `expires` bounds its life. Tokenless links work only
 * for projects that allow them. The request is counted against the rate limit before its token is
 * checked, so guessing tokens meets 429 like any other request.
 */
export function linkRoutes(app: H3, ctx: AppContext): void {
  const render = async (event: H3Event, signed: boolean) => {
    const { key = "", format = "", token = "" } = event.context.params ?? {};
    const query = rawQuery(event);
    let project: Project | undefined;
    let download: string | undefined;
    const { renderId, parsed, server } = await admitRender(event, ctx, {
      origin: "link",
      project: async () => {
        project = await linkProject(ctx, key);
        if (!signed && !project.allowTokenless) {
          throw new RenderError("TokenlessRequestsNotEnabled", "Tokenless render links are not enabled for this project");
        }
        return project;
      },
      // Read once the request is counted: a wrong token costs its sender a request of the project's limit.
      options: async () => {
        const owner = project as Project;
        checkQuery(query);
        if (signed) checkToken(owner, format, query, token);
        const fromQuery = paramsToOptions(new URLSearchParams(query));
        if (signed) checkExpiry(owner, fromQuery.expires);
        else if (fromQuery.expires !== undefined) {
          throw new RenderError(
            "InvalidQuery",
            "expires needs a signed render link: anyone could remove it from a tokenless one",
          );
        }
        delete fromQuery.expires;
        if (fromQuery.download !== undefined && typeof fromQuery.download !== "string") {
          throw new RenderError("InvalidQuery", "download must appear once, as the file name of the answer");
        }
        download = fromQuery.download;
        delete fromQuery.download;
        if (!signed) refuseWebhook(fromQuery);
        // webhook_url works on signed links as on the API; redirect_after has no meaning here (the link waits).
        fromQuery.format = format;
        return fromQuery;
      },
      refuse: (options, { responseType }) => {
        checkLinkFormat(project as Project, options.format);
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

  const signed = (event: H3Event) => render(event, true);
  const tokenless = (event: H3Event) => render(event, false);
  app.get("/v1/:key/:token/:format", signed);
  app.head("/v1/:key/:token/:format", signed);
  app.get("/v1/:key/:format", tokenless);
  app.head("/v1/:key/:format", tokenless);
}
