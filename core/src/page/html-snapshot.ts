import type { PageSession } from "../contracts/page-session.js";

/**
 * The rendered DOM as a standalone document: scripts removed (they already ran; running them
 * again would render twice), a `<base>` so relative addresses keep working, a UTF-8 charset.
 */
const SNAPSHOT = `() => {
  const root = document.documentElement.cloneNode(true);
  root.querySelectorAll("script").forEach((s) => s.remove());
  let head = root.querySelector("head");
  if (!head) { head = document.createElement("head"); root.prepend(head); }
  head.querySelectorAll("meta[charset], meta[http-equiv='Content-Type' i]").forEach((m) => m.remove());
  const charset = document.createElement("meta");
  charset.setAttribute("charset", "utf-8");
  if (!head.querySelector("base") && /^https?:/.test(document.baseURI)) {
    const base = document.createElement("base");
    base.setAttribute("href", document.baseURI);
    head.prepend(base);
  }
  head.prepend(charset);
  const doctype = document.doctype ? "<!DOCTYPE " + document.doctype.name + ">" : "<!DOCTYPE html>";
  return doctype + "\\n" + root.outerHTML;
}`;

export function htmlSnapshot(session: PageSession): Promise<string> {
  return session.evaluate<string>(SNAPSHOT);
}
