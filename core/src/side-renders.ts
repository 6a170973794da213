import type { AttemptDeps, AttemptPlan, SideFormatters } from "./attempt-plan.js";
import type { PresignedSide } from "./contracts/destination.js";
import type { SideRenderKind } from "./contracts/formatter.js";
import type { PageSession } from "./contracts/page-session.js";
import { RenderError } from "./errors.js";
import { renderTtlSeconds } from "./options/catalogue-output.js";
import { extractMetadata } from "./page/metadata.js";
import { renderAddress } from "./render-address.js";
import { beforeStore } from "./run-gate.js";
import { savedCookies } from "./side/cookies.js";
import { savedHeaders } from "./side/headers.js";
import { extractLinks } from "./side/links.js";
import { isPrivateSuffix, sideFileKey } from "./side/side-keys.js";
import { sideDestination } from "./side-destination.js";
import { storeOrFail } from "./store-failure.js";

/** The side files a format can stand for: the option asking for each, and the result field of its address. */
export const SIDE_FILES = [
  { kind: "html", option: "saveHtml", field: "htmlUrl" },
  { kind: "markdown", option: "saveMarkdown", field: "markdownUrl" },
  { kind: "mhtml", option: "saveMhtml", field: "mhtmlUrl" },
] as const satisfies readonly { kind: SideRenderKind; option: string; field: string }[];

const JSON_TYPE = "application/json; charset=utf-8";

/** The engine's session lacks what `option` needs: the request cannot be honoured on it. */
function unsupported(option: string, what: string): RenderError {
  return new RenderError("InvalidOptions", `Option ${option} needs an engine that can ${what}`, { details: { option } });
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value, null, 2), "utf8");

/**
 * Side renders of any format, taken from the same prepared page before the main format runs:
 * `metadata` / `save_metadata` (JSON), `save_html` (standalone HTML), `save_markdown`,
 * `save_mhtml` (Chromium's MHTML snapshot), `save_cookies`, `save_headers`, `save_links` and
 * `save_resource_info` (JSON). Each stored file lives as long as the render and gets its own
 * address in the result (and so in the status record and the webhook). Nothing stored is logged.
 * The key of each file stored in the renderer's storage is pushed to `stored` as soon as it is
 * written, so that a failed attempt can remove what it left.
 */
export async function sideRenders(
  session: PageSession,
  plan: AttemptPlan,
  deps: AttemptDeps,
  side: SideFormatters,
  signal: AbortSignal,
  stored: string[] = [],
): Promise<Record<string, unknown>> {
  const { options, renderId } = plan;
  const extras: Record<string, unknown> = {};
  // `ttl`: side renders live as long as the render.
  const ttlSettings = { ...deps.settings, renderTtlSeconds: renderTtlSeconds(options, deps.settings) };
  const expiresAt = Date.now() + ttlSettings.renderTtlSeconds * 1000;
  // `<id>-<token>.<ext>` or `<id>-<token>-<what>.<ext>` (the server serves one dot, after the name):
  // a fresh random token per file, so no side file's address follows from the render's or another's.
  const store = async (suffix: string, contentType: string, body: Uint8Array, side?: PresignedSide): Promise<string> => {
    await beforeStore(deps.settings, plan);
    // The caller's own address (`s3_presigned_url_<side>`) when given: the result names it.
    const elsewhere = side ? await sideDestination(plan, deps, side) : undefined;
    if (elsewhere) {
      await storeOrFail(() => elsewhere.put(body, { contentType, expiresAt }), body, deps.logger, renderId);
      return elsewhere.url;
    }
    const key = sideFileKey(renderId, suffix);
    stored.push(key);
    await storeOrFail(() => deps.storage.put(key, body, { contentType, expiresAt }), body, deps.logger, renderId);
    return (await renderAddress(deps.storage, ttlSettings, key, { private: isPrivateSuffix(suffix) })).url;
  };
  if (options.metadata || options.saveMetadata) {
    const metadata = await extractMetadata(session, options.url);
    extras.metadata = metadata;
    if (options.saveMetadata) {
      extras.metadataUrl = await store(".json", JSON_TYPE, Buffer.from(JSON.stringify(metadata, null, 2)), "metadata");
    }
  }
  // `save_html`, `save_markdown`, `save_mhtml`: the output of the format that stands for the side
  // file, made from this page (unless the render is in that format: its address is the render's).
  for (const { kind, option, field } of SIDE_FILES) {
    if (!options[option] || plan.format.sideRender === kind) continue;
    const entry = side.side(kind);
    if (!entry) continue; // refused at parse time (`checkRequest`) when no format stands for it
    const { formatter, spec } = entry;
    if (kind === "mhtml" && !session.snapshot) throw unsupported("save_mhtml", "take an MHTML snapshot");
    const output = await formatter.render(session, { renderId, format: spec, options, logger: deps.logger, signal });
    const body = output.body instanceof Uint8Array ? output.body : await collect(output.body);
    extras[field] = await store(`.${spec.extension}`, spec.contentType, body, kind);
  }
  Object.assign(extras, await pageFacts(session, plan, store));
  return extras;
}

type Store = (suffix: string, contentType: string, body: Uint8Array, side?: PresignedSide) => Promise<string>;

/** `save_cookies`, `save_headers`, `save_links`, `save_resource_info`: JSON files of what the page is and did. */
async function pageFacts(session: PageSession, plan: AttemptPlan, store: Store): Promise<Record<string, unknown>> {
  const { options } = plan;
  const extras: Record<string, unknown> = {};
  if (options.saveCookies) {
    if (!session.cookies) throw unsupported("save_cookies", "read the page's cookies");
    extras.cookiesUrl = await store("-cookies.json", JSON_TYPE, json(savedCookies(await session.cookies())));
  }
  if (options.saveHeaders) {
    extras.headersUrl = await store("-headers.json", JSON_TYPE, json(savedHeaders(session.response, options.url === undefined)));
  }
  if (options.saveLinks) {
    extras.linksUrl = await store("-links.json", JSON_TYPE, json(await extractLinks(session)));
  }
  if (options.saveResourceInfo) {
    const report = session.resources?.();
    if (!report) throw unsupported("save_resource_info", "record the page's requests");
    extras.resourceInfoUrl = await store("-resources.json", JSON_TYPE, json(report.requests), "resourceInfo");
    if (report.omitted > 0) extras.resourceInfoOmitted = report.omitted;
  }
  return extras;
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
