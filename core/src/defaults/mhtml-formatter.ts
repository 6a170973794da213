import type { FormatContext, FormatOutput, FormatSpec, Formatter } from "../contracts/formatter.js";
import type { PageSession } from "../contracts/page-session.js";
import { RenderError } from "../errors.js";

/**
 * MHTML is a MIME `multipart/related` document (RFC 2557); Chromium maps `.mhtml` to this type
 * (`application/x-mimearchive` is only a secondary name some browsers also accept).
 */
export const MHTML_SPEC: FormatSpec = {
  format: "mhtml",
  contentType: "multipart/related",
  extension: "mhtml",
  requires: ["snapshot"],
  sideRender: "mhtml",
};

/** Chromium's MHTML snapshot of a page, also what `save_mhtml` stores. */
export async function mhtmlSnapshot(session: PageSession): Promise<Buffer> {
  if (!session.snapshot) {
    throw new RenderError("EngineResponseNotOkError", "This engine cannot take an MHTML snapshot", {
      details: { option: "engine" },
    });
  }
  return Buffer.from(await session.snapshot(), "utf8");
}

/**
 * The built-in `mhtml` format: Chromium's own MHTML archive of the page after its preparation
 * (scripts ran, banners hidden, clicks done), with style sheets, images and frames inside.
 */
export class MhtmlFormatter implements Formatter {
  readonly name = "@renderkit/core/mhtml";
  readonly formats = [MHTML_SPEC];

  async render(session: PageSession, _context: FormatContext): Promise<FormatOutput> {
    return { body: await mhtmlSnapshot(session) };
  }
}
