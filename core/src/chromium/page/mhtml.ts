import { RenderError } from "../../index.js";

/** Largest MHTML snapshot kept, in characters (base64 and quoted-printable text): 100 MB. */
export const MAX_MHTML_CHARS = 100 * 1024 * 1024;

/** The DevTools call a snapshot needs; Playwright's and Puppeteer's `CDPSession` both fit. */
export interface SnapshotChannel {
  send(method: "Page.captureSnapshot", params: { format: "mhtml" }): Promise<{ data: string }>;
}

/**
 * Chromium's own MHTML archive of the page as it is now (`Page.captureSnapshot`): the DOM after
 * scripts ran and the page's preparation, with its style sheets, images and frames as MIME parts.
 */
export async function captureMhtml(cdp: SnapshotChannel): Promise<string> {
  const { data } = await cdp.send("Page.captureSnapshot", { format: "mhtml" });
  if (data.length > MAX_MHTML_CHARS) {
    throw new RenderError("EngineResponseNotOkError", `The MHTML snapshot is larger than ${MAX_MHTML_CHARS / 1024 / 1024} MB`);
  }
  return data;
}
