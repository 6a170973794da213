import { Worker } from "node:worker_threads";
import { abortReason, RenderError } from "@renderkit/core";

/** Longest a conversion in Node may take by default, whatever the render's own budget. */
export const NODE_CONVERT_TIMEOUT_MS = 30_000;

/** Settings of `markdownFormat()`. */
export interface MarkdownFormatSettings {
  /**
   * Longest the conversion in Node (only for pages that break the in-page converter) may take, in
   * ms; then the render fails with `RenderTimeoutError`. Default 30 000.
   */
  nodeConvertTimeoutMs?: number;
}

/** Refuses settings that cannot work, when the plugin is created rather than at the first render. */
export function checkMarkdownSettings(settings: MarkdownFormatSettings): MarkdownFormatSettings {
  const ms = settings.nodeConvertTimeoutMs;
  if (ms !== undefined && !(Number.isFinite(ms) && ms > 0)) {
    throw new RangeError(`markdownFormat: nodeConvertTimeoutMs must be a positive number of ms, got ${ms}`);
  }
  return settings;
}

/**
 * Converts HTML to markdown in a worker thread, so a page built to make turndown slow (deep
 * nesting times many lines is quadratic) never stalls the process's other requests. The worker is
 * terminated on abort and after `timeoutMs`, and its heap is bounded.
 */
export function convertOffThread(
  html: string,
  baseUrl: string,
  signal: AbortSignal,
  timeoutMs = NODE_CONVERT_TIMEOUT_MS,
): Promise<string> {
  if (signal.aborted) return Promise.reject(abortReason(signal));
  const worker = new Worker(new URL("./convert-worker.js", import.meta.url), {
    workerData: { html, baseUrl },
    resourceLimits: { maxOldGenerationSizeMb: 512 },
  });
  return new Promise<string>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, markdown?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(markdown ?? "");
    };
    const onAbort = () => finish(abortReason(signal));
    const timer = setTimeout(
      () => finish(new RenderError("RenderTimeoutError", `Converting the page to markdown took over ${timeoutMs} ms`)),
      timeoutMs,
    );
    signal.addEventListener("abort", onAbort, { once: true });
    worker.once("message", (markdown: string) => finish(undefined, markdown));
    worker.once("error", (error) =>
      finish(new RenderError("EngineResponseNotOkError", `Converting the page to markdown failed: ${error.message}`)),
    );
    worker.once("exit", (code) => finish(new RenderError("EngineResponseNotOkError", `The markdown worker exited (${code})`)));
  });
}
