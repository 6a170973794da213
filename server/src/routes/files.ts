import { Readable } from "node:stream";
import type { ByteRange } from "@renderkit/core";
import type { H3, H3Event } from "h3";
import type { AppContext } from "../http/context.js";
import { HttpProblem } from "../http/errors.js";
import { isInertContent, renderBytesHeaders } from "../http/respond.js";
import { checkPrivateFile } from "./private-files.js";
import { findRender } from "./stored.js";

/** Parses a single `bytes=` range; undefined for none or several, null when unsatisfiable. */
function parseRange(header: string | null, size: number): ByteRange | undefined | null {
  if (!header) return undefined;
  const match = header.match(/^bytes=(\d*)-(\d*)$/);
  if (!match) return undefined;
  const [, from = "", to = ""] = match;
  if (from === "" && to === "") return null;
  let start: number;
  let end: number;
  if (from === "") {
    start = Math.max(0, size - Number(to));
    end = size - 1;
  } else {
    start = Number(from);
    end = to === "" ? size - 1 : Math.min(Number(to), size - 1);
  }
  if (start > end || start >= size) return null;
  return { start, end };
}

/**
 * A render's server address (`renderUrl` when the storage has no public address): the bytes,
 * with Content-Type, Content-Length, HEAD and Range; from S3 storage and project buckets, a 302
 * to a fresh presigned address instead (SigV4 addresses last at most 7 days, renders 30),
 * except for documents (anything but images, PDF, audio and video), which are always served from
 * here. Served bytes carry `renderBytesHeaders`: `nosniff`, and for documents a sandboxing CSP.
 * Side files have keys of their own (`<renderId>-<token>.<ext>`, `<renderId>-<token>-cookies.json`):
 * nothing here derives one address from another. Those holding credentials (cookies, response
 * headers) need the project's key (`checkPrivateFile`) and are never cached.
 */
export function fileRoutes(app: H3, ctx: AppContext): void {
  const serve = async (event: H3Event) => {
    const key = decodeURIComponent(event.context.params?.key ?? "");
    if (!/^[A-Za-z0-9_-]{1,160}\.[a-z0-9]{1,8}$/.test(key)) throw new HttpProblem(404, "No such render");
    const personal = await checkPrivateFile(event, ctx, key);
    const found = await findRender(ctx, key);
    if (!found) throw new HttpProblem(404, "No such render, or it expired");
    const { head } = found;
    // Object storage hands images, PDFs and videos out itself (the address here stays valid as
    // long as the render); documents (HTML, SVG, MHTML, markdown, JSON...) are served from here,
    // under the sandboxing CSP, never from a bucket whose headers we do not control.
    const target = !personal && isInertContent(head.contentType) ? await found.signedUrl() : undefined;
    if (target) return new Response(null, { status: 302, headers: { location: target, "cache-control": "private, no-store" } });
    const range = parseRange(event.req.headers.get("range"), head.size);
    const headers: Record<string, string> = {
      "content-type": head.contentType,
      "accept-ranges": "bytes",
      // Credentials are kept by no cache, the browser's included.
      "cache-control": personal ? "private, no-store" : "private, max-age=3600",
      "last-modified": new Date(head.createdAt).toUTCString(),
    };
    if (head.expiresAt) headers.expires = new Date(head.expiresAt).toUTCString();
    // Stored HTML, SVG, MHTML and markdown come from rendered pages: never let them run script on this origin.
    Object.assign(headers, renderBytesHeaders(head.contentType));
    if (range === null) {
      throw new HttpProblem(416, "The requested range is outside the render", undefined, {
        "content-range": `bytes */${head.size}`,
      });
    }
    const status = range ? 206 : 200;
    if (range) headers["content-range"] = `bytes ${range.start}-${range.end}/${head.size}`;
    headers["content-length"] = String(range ? range.end - range.start + 1 : head.size);
    if (event.req.method === "HEAD") return new Response(null, { status, headers });
    const object = await found.read(range);
    if (!object) throw new HttpProblem(404, "No such render, or it expired");
    return new Response(Readable.toWeb(object.body) as ReadableStream, { status, headers });
  };
  app.get("/renders/:key", serve);
  app.head("/renders/:key", serve);
}
