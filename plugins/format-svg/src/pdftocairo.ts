import { spawn } from "node:child_process";
import { readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { abortReason, RenderError } from "@renderkit/core";
import { ownedTempDir } from "@renderkit/core/page";

/** Last bytes of stderr kept for the error message; poppler can print a line per broken object. */
const STDERR_LIMIT = 4096;

export interface PdfToSvgOptions {
  /** The pdftocairo executable (a path, or a name looked up on PATH). */
  binary: string;
  /** Kills pdftocairo after this many ms. */
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Converts page 1 of `pdf` to SVG with `pdftocairo -svg`, in a private temporary directory that is
 * removed on every path. pdftocairo is spawned directly (no shell), its stderr is bounded, and it
 * is SIGKILLed on abort or timeout; the directory is removed only after the process has exited.
 */
export async function pdfToSvg(pdf: Uint8Array, options: PdfToSvgOptions): Promise<string> {
  const dir = await ownedTempDir("renderkit-svg-");
  try {
    const input = join(dir, "page.pdf");
    const output = join(dir, "page.svg");
    await writeFile(input, pdf);
    await run(options.binary, ["-svg", "-f", "1", "-l", "1", input, output], options);
    return await readFile(output, "utf8");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function run(binary: string, args: string[], options: PdfToSvgOptions): Promise<void> {
  const { signal, timeoutMs } = options;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    let failure: Error | undefined;
    const stop = (error: Error) => {
      failure ??= error;
      child.kill("SIGKILL");
    };
    const onAbort = () => stop(abortReason(signal));
    const timer = setTimeout(
      () => stop(new RenderError("RenderTimeoutError", `pdftocairo did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
    timer.unref();
    signal.addEventListener("abort", onAbort, { once: true });
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_LIMIT);
    });
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve();
    };
    child.once("error", (error: NodeJS.ErrnoException) => {
      const missing = error.code === "ENOENT";
      settle(
        new RenderError(
          "EngineResponseNotOkError",
          missing
            ? `pdftocairo was not found (${binary}); install poppler-utils or use svg_method=dom`
            : `pdftocairo could not start: ${error.message}`,
          { cause: error },
        ),
      );
    });
    child.once("close", (code, sig) => {
      if (failure) return settle(failure);
      if (code === 0) return settle();
      const why = stderr.trim().split("\n").slice(-3).join(" | ") || `exit ${code ?? sig}`;
      settle(new RenderError("EngineResponseNotOkError", `pdftocairo failed: ${why}`));
    });
  });
}
