import { createWriteStream } from "node:fs";
import { copyFile, readFile, stat } from "node:fs/promises";
import { extname, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { ConsoleLogger, createRenderer, isRenderError, type Logger, type RenderResult } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { puppeteer } from "@renderkit/engine-puppeteer";
import { imageFormats } from "@renderkit/format-image";
import { markdownFormat } from "@renderkit/format-markdown";
import { svgFormat } from "@renderkit/format-svg";
import { videoFormats } from "@renderkit/format-video";
import { loadConfig } from "../config/index.js";
import { loadPlugins } from "../renderer/load-plugins.js";
import { out, parse, UsageError } from "./args.js";
import { RENDER_USAGE } from "./usage.js";

const EXTENSIONS: Record<string, string> = {
  ".png": "png",
  ".jpg": "jpg",
  ".jpeg": "jpg",
  ".webp": "webp",
  ".avif": "avif",
  ".pdf": "pdf",
  ".svg": "svg",
  ".mp4": "mp4",
  ".webm": "webm",
  ".md": "md",
  ".html": "html",
  ".htm": "html",
  ".mhtml": "mhtml",
};

/** Seconds between "still rendering" lines on stderr (long renders: video, tall pages). */
const PROGRESS_EVERY_MS = 5_000;

/** `--option key=value` (repeated): a key given twice becomes a list (`hide_selector`, `block_urls`...). */
export function optionPairs(pairs: string[]): Record<string, string | string[]> {
  const options: Record<string, string | string[]> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`--option needs KEY=VALUE, got "${pair}"`, RENDER_USAGE);
    const key = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1);
    const before = options[key];
    options[key] = before === undefined ? value : [...(Array.isArray(before) ? before : [before]), value];
  }
  return options;
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(2)} MB`;
}

/** One line of figures: file, format, size, dimensions, time, and the formatter's extras. */
export function figures(output: string, result: RenderResult): string {
  const parts = [output, result.format, formatBytes(result.size)];
  if (typeof result.width === "number" && typeof result.height === "number") parts.push(`${result.width}x${result.height}`);
  if (typeof result.pages === "number") parts.push(`${result.pages} pages`);
  if (typeof result.duration === "number") parts.push(`${result.duration} s`);
  if (typeof result.codec === "string") parts.push(result.codec);
  if (typeof result.frameRate === "number") parts.push(`${result.frameRate} fps captured`);
  parts.push(`rendered in ${result.renderTime} ms`);
  if (result.truncated === true) parts.push("TRUNCATED (the page was larger than the format allows)");
  if (result.blank === true) parts.push("blank (the page looks empty)");
  return parts.join("  ");
}

/** The CLI says which options were ignored itself (one plain line); the renderer's log line would repeat it. */
function quietAboutIgnored(logger: Logger): Logger {
  return {
    debug: (message, fields) => logger.debug(message, fields),
    info: (message, fields) => logger.info(message, fields),
    warn: (message, fields) => {
      if (message !== "unknown options ignored") logger.warn(message, fields);
    },
    error: (message, fields) => logger.error(message, fields),
  };
}

/** An existing local file is rendered as HTML; anything else is an address. */
async function target(input: string): Promise<{ html: string } | { url: string }> {
  const isFile = await stat(input).then(
    (s) => s.isFile(),
    () => false,
  );
  return isFile ? { html: await readFile(input, "utf8") } : { url: input };
}

/** `renderkit render`: one render with the server's engines and formats, no HTTP. Returns the exit code. */
export async function render(args: string[]): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      output: { type: "string", short: "o" },
      format: { type: "string", short: "f" },
      width: { type: "string" },
      height: { type: "string" },
      "full-page": { type: "boolean" },
      option: { type: "string", multiple: true },
      engine: { type: "string" },
      "allow-private": { type: "boolean" },
      quiet: { type: "boolean", short: "q" },
    },
    RENDER_USAGE,
    true,
  );
  if (positionals.length === 0) throw new UsageError("render needs an address or an HTML file", RENDER_USAGE);
  if (positionals.length > 2) throw new UsageError(`unexpected argument: ${positionals[2]}`, RENDER_USAGE);
  if (positionals.length === 2 && values.output !== undefined)
    throw new UsageError("give the output once (-o or a second argument)", RENDER_USAGE);
  const [input, second] = positionals as [string, string | undefined];
  const outputArg = (values.output as string | undefined) ?? second;
  const format =
    (values.format as string | undefined) ?? (outputArg ? EXTENSIONS[extname(outputArg).toLowerCase()] : undefined) ?? "png";
  const output = resolve(outputArg ?? `render.${format}`);

  const request: Record<string, unknown> = { ...optionPairs((values.option as string[] | undefined) ?? []) };
  for (const key of ["url", "html", "format"]) {
    if (key in request)
      throw new UsageError(
        `--option ${key}=... is not allowed here: give it as ${key === "format" ? "-f" : "the first argument"}`,
        RENDER_USAGE,
      );
  }
  Object.assign(request, await target(input), { format });
  if (values.width !== undefined) request.width = values.width;
  if (values.height !== undefined) request.height = values.height;
  if (values["full-page"]) request.full_page = true;
  if (values.engine !== undefined) request.engine = values.engine;

  const config = await loadConfig({ file: values.config as string | undefined });
  const quiet = values.quiet === true;
  const progress = (text: string) => {
    if (!quiet) process.stderr.write(`renderkit: ${text}\n`);
  };
  const renderer = await createRenderer({
    plugins: [
      ...(await loadPlugins(config.plugins)),
      playwright(),
      puppeteer(),
      imageFormats(),
      markdownFormat(),
      svgFormat(),
      videoFormats(),
    ],
    logger: quietAboutIgnored(new ConsoleLogger(process.env.RENDERKIT_LOG_LEVEL ?? "warn")),
    dataDir: config.dataDir,
    allowPrivateNetworks: values["allow-private"] ? true : config.allowPrivateNetworks,
    adblock: config.adblock,
    concurrency: 1,
  });
  let interrupted = false;
  const onSigint = () => {
    interrupted = true;
    progress("interrupted; closing the browser");
    void renderer.close(1_000).finally(() => process.exit(130));
  };
  process.once("SIGINT", onSigint);
  const started = Date.now();
  let ticker: NodeJS.Timeout | undefined;
  const unsubscribe = renderer.on((event) => {
    if (event.type === "render.created") progress(`${event.renderId}: queued (${format})`);
    else if (event.type === "render.started") {
      progress(`${event.renderId}: rendering${event.attempt > 1 ? ` (attempt ${event.attempt})` : ""}`);
      ticker ??= setInterval(
        () => progress(`${event.renderId}: still rendering, ${Math.round((Date.now() - started) / 1000)} s`),
        PROGRESS_EVERY_MS,
      );
    } else if (event.type === "render.retrying")
      progress(`${event.renderId}: retrying (attempt ${event.attempt}): ${event.reason}`);
    else if (event.type === "render.succeeded") progress(`${event.renderId}: succeeded`);
    else if (event.type === "render.failed") progress(`${event.renderId}: failed: ${event.code}`);
  });
  try {
    // Checked first so that names the renderer does not know are said plainly, before the browser works.
    const { ignored } = renderer.parse(request);
    if (ignored.length > 0)
      process.stderr.write(`renderkit: unknown options ignored: ${ignored.join(", ")} (see docs/options.md)\n`);
    const result = await renderer.render(request);
    if (result.path) await copyFile(result.path, output);
    else {
      const stored = await renderer.read(result.key);
      if (!stored) throw new Error(`the stored render ${result.key} has disappeared`);
      await pipeline(stored.body, createWriteStream(output));
    }
    out(figures(output, result));
    return 0;
  } catch (error) {
    if (interrupted) return 130;
    if (isRenderError(error) && error.code === "InvalidOptions") {
      process.stderr.write(`renderkit: InvalidOptions: ${error.message}\n`);
      return 2;
    }
    const code = isRenderError(error) ? `${error.code}: ` : "";
    process.stderr.write(`renderkit: render failed: ${code}${error instanceof Error ? error.message : String(error)}\n`);
    // A name that resolved to a private address (no lookup error behind it) or a private IP literal.
    const message = String((error as Error)?.message);
    if (/not a public address/.test(message) || (/resolve to a public address/.test(message) && !(error as Error).cause)) {
      process.stderr.write(
        "renderkit: loopback and private addresses are refused by default; pass --allow-private to render them.\n",
      );
    }
    return 1;
  } finally {
    if (ticker) clearInterval(ticker);
    unsubscribe();
    process.off("SIGINT", onSigint);
    if (!interrupted) await renderer.close();
  }
}
