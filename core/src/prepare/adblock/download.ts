/** Limits of one list download. */
export interface DownloadLimits {
  timeoutMs: number;
  maxBytes: number;
  /** Aborts the download (the lists are closing). */
  signal: AbortSignal;
}

/** Short reason of a failed download, without the address (callers name the list). */
function reason(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === "TimeoutError") return "timed out";
    const cause = (error as Error & { cause?: unknown }).cause;
    const code = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : undefined;
    return code ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}

/**
 * Downloads a filter list (http or https; the address comes from the operator's configuration).
 * Rejects on a non-2xx answer, after `timeoutMs`, or when the body exceeds `maxBytes`.
 */
export async function downloadList(url: string, limits: DownloadLimits): Promise<string> {
  const protocol = new URL(url).protocol;
  if (protocol !== "http:" && protocol !== "https:") throw new Error("only http and https addresses can be downloaded");
  const signal = AbortSignal.any([limits.signal, AbortSignal.timeout(limits.timeoutMs)]);
  try {
    const response = await fetch(url, { signal, redirect: "follow", headers: { accept: "text/plain, */*" } });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`HTTP ${response.status}`);
    }
    const declared = Number(response.headers.get("content-length") ?? Number.NaN);
    if (declared > limits.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new Error(`the list is larger than ${limits.maxBytes} bytes`);
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body?.getReader();
    while (reader) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw new Error(`the list is larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(value);
    }
    return new TextDecoder("utf-8").decode(Buffer.concat(chunks));
  } catch (error) {
    throw new Error(`download failed: ${reason(error)}`);
  }
}
