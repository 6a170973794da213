#!/usr/bin/env node
// Renders one address or HTML file to a file with the embeddable library:
//   node scripts/render.mjs https://example.com example.png [--full-page] [--width 1440]
// Run through `npm run render -- ...` (scripts/render.sh), which sets up and builds first.
import { createWriteStream } from "node:fs";
import { copyFile, readFile, stat } from "node:fs/promises";
import { dirname, extname, join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ConsoleLogger, createRenderer } from "@renderkit/core";
import { playwright } from "@renderkit/engine-playwright";
import { imageFormats } from "@renderkit/format-image";

const USAGE = `usage: npm run render -- <url | file.html> <output> [options]

  --format <f>       png, jpg, webp, avif or pdf (default: from the output's extension, else png)
  --width <px>       viewport width (default 1280)
  --height <px>      viewport height (default 1024)
  --full-page        capture the whole scrollable page
  --allow-private    allow loopback and private addresses (refused by default)
  -h, --help         this text

Stored renders go to $RENDERKIT_DATA_DIR (default: <repo>/.renderkit); the result is copied to <output>.`;

const EXTENSIONS = { ".png": "png", ".jpg": "jpg", ".jpeg": "jpg", ".webp": "webp", ".avif": "avif", ".pdf": "pdf" };

function parseCommandLine() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      format: { type: "string" },
      width: { type: "string" },
      height: { type: "string" },
      "full-page": { type: "boolean", default: false },
      "allow-private": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (positionals.length !== 2) throw new UsageError("give an address (or HTML file) and an output file");
  const [input, output] = positionals;
  const format = values.format ?? EXTENSIONS[extname(output).toLowerCase()] ?? "png";
  const number = (name) => {
    if (values[name] === undefined) return undefined;
    const n = Number(values[name]);
    if (!Number.isInteger(n)) throw new UsageError(`--${name} must be a whole number of pixels`);
    return n;
  };
  return {
    input,
    output: resolve(output),
    format,
    width: number("width"),
    height: number("height"),
    fullPage: values["full-page"],
    allowPrivate: values["allow-private"],
  };
}

class UsageError extends Error {}

/** Set on Ctrl-C: the SIGINT handler closes the renderer and exits. */
let interrupted = false;

/** An existing local file is rendered as HTML; anything else is an address. */
async function target(input) {
  const isFile = await stat(input).then(
    (s) => s.isFile(),
    () => false,
  );
  return isFile ? { html: await readFile(input, "utf8") } : { url: input };
}

function formatBytes(n) {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(2)} MB`;
}

async function main() {
  const args = parseCommandLine();
  const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
  const { RENDERKIT_DATA_DIR, RENDERKIT_LOG_LEVEL } = process.env;
  const renderer = await createRenderer({
    plugins: [playwright(), imageFormats()],
    dataDir: RENDERKIT_DATA_DIR ?? join(repo, ".renderkit"),
    allowPrivateNetworks: args.allowPrivate,
    logger: new ConsoleLogger(RENDERKIT_LOG_LEVEL ?? "warn"),
  });

  process.once("SIGINT", () => {
    interrupted = true;
    console.error("interrupted; closing the browser");
    renderer.close(1_000).finally(() => process.exit(130));
  });

  try {
    const result = await renderer.render({
      ...(await target(args.input)),
      format: args.format,
      ...(args.width === undefined ? {} : { width: args.width }),
      ...(args.height === undefined ? {} : { height: args.height }),
      full_page: args.fullPage,
    });
    if (result.path) await copyFile(result.path, args.output);
    else {
      const stored = await renderer.read(result.key);
      if (!stored) throw new Error(`the stored render ${result.key} has disappeared`);
      await pipeline(stored.body, createWriteStream(args.output));
    }
    console.log(`${args.output}  ${result.format}  ${formatBytes(result.size)}  rendered in ${result.renderTime} ms`);
  } finally {
    if (!interrupted) await renderer.close();
  }
}

main().then(
  () => {
    // Everything is closed; if a handle still keeps Node alive, say so rather than hang.
    setTimeout(() => {
      console.error("render: handles still open 5 s after closing; exiting");
      process.exit(0);
    }, 5_000).unref();
  },
  (error) => {
    if (interrupted) return;
    if (error instanceof UsageError || String(error?.code).startsWith("ERR_PARSE_ARGS")) {
      console.error(`render: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`render failed: ${error?.code ? `${error.code}: ` : ""}${error?.message ?? error}`);
    if (/non-public address/.test(String(error?.message))) {
      console.error("Loopback and private addresses are refused by default; pass --allow-private to render them.");
    }
    process.exit(1);
  },
);
