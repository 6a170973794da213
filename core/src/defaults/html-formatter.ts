import type { FormatContext, FormatOutput, FormatSpec, Formatter } from "../contracts/formatter.js";
import type { PageSession } from "../contracts/page-session.js";
import { htmlSnapshot } from "../page/html-snapshot.js";

/** The built-in `html` format: the rendered DOM after scripts ran, as a standalone document. */
export class HtmlFormatter implements Formatter {
  readonly name = "@renderkit/core/html";
  readonly formats: FormatSpec[] = [
    { format: "html", contentType: "text/html; charset=utf-8", extension: "html", requires: ["content"], sideRender: "html" },
  ];

  async render(session: PageSession, _context: FormatContext): Promise<FormatOutput> {
    return { body: Buffer.from(await htmlSnapshot(session), "utf8") };
  }
}
