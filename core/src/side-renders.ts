import type { AttemptDeps, AttemptPlan } from "./attempt.js";
import type { PageSession } from "./contracts/engine.js";
import type { FormatSpec, Formatter } from "./contracts/formatter.js";
import { htmlSnapshot } from "./page/html-snapshot.js";
import { extractMetadata } from "./page/metadata.js";
import { renderAddress } from "./render-address.js";

/** The markdown formatter, when one is installed (for `save_markdown`). */
export type SideFormatters = { md?: { formatter: Formatter; spec: FormatSpec } };

/**
 * Side renders of any format, taken from the same prepared page before the main format runs:
 * `metadata` / `save_metadata` (JSON), `save_html` (standalone HTML), `save_markdown`.
 * Each stored file lives as long as the render and gets its own address in the result.
 */
export async function sideRenders(
  session: PageSession,
  plan: AttemptPlan,
  deps: AttemptDeps,
  side: SideFormatters,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const { options, renderId } = plan;
  const extras: Record<string, unknown> = {};
  const expiresAt = Date.now() + deps.settings.renderTtlSeconds * 1000;
  const store = async (extension: string, contentType: string, body: Uint8Array): Promise<string> => {
    const key = `${renderId}.${extension}`;
    await deps.storage.put(key, body, { contentType, expiresAt });
    return (await renderAddress(deps.storage, deps.settings, key)).url;
  };
  if (options.metadata || options.saveMetadata) {
    const metadata = await extractMetadata(session, options.url);
    extras.metadata = metadata;
    if (options.saveMetadata) {
      extras.metadataUrl = await store("json", "application/json; charset=utf-8", Buffer.from(JSON.stringify(metadata, null, 2)));
    }
  }
  if (options.saveHtml && plan.format.format !== "html") {
    extras.htmlUrl = await store("html", "text/html; charset=utf-8", Buffer.from(await htmlSnapshot(session), "utf8"));
  }
  if (options.saveMarkdown && plan.format.format !== "md" && side.md) {
    const { formatter, spec } = side.md;
    const output = await formatter.render(session, { renderId, format: spec, options, logger: deps.logger, signal });
    const body = output.body instanceof Uint8Array ? output.body : await collect(output.body);
    extras.markdownUrl = await store(spec.extension, spec.contentType, body);
  }
  return extras;
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}
