/** Usage texts: the whole CLI, and one per command (`renderkit <command> --help`). */

export const RENDER_USAGE = `Usage: renderkit render <url | file.html> [-o OUTPUT] [options]

Renders one page without a server and writes it to OUTPUT.

Options:
  -o, --output FILE       where to write the render (default: render.<format> in this directory);
                          a second positional argument is taken as the output too
  -f, --format F          png, jpg, webp, avif, pdf, svg, mp4, webm, md, html, mhtml (default: from
                          the output's extension, else png)
  --width PX              viewport width (default 1280)
  --height PX             viewport height (default 1024)
  --full-page             capture the whole scrollable page
  --option KEY=VALUE      any render option of docs/options.md (snake_case or camelCase); repeat it
                          for several options, or several values of a list option
  --engine NAME           playwright or puppeteer (default: the first installed)
  --allow-private         allow loopback and private addresses (refused by default)
  --config FILE           JSON config file (data directory, plugins, adblock lists...)
  -q, --quiet             no progress lines on stderr
  -h, --help              show this text

Progress goes to stderr; the render's figures (file, format, size, dimensions, render time) to stdout.
Exit codes: 0 rendered, 1 the render failed, 2 bad usage or invalid options.
Example: renderkit render https://example.com -o example.pdf --option margin=1cm --option hide_selector=.ads
`;

export const SERVE_USAGE = `Usage: renderkit serve [--config FILE] [--port N] [--host H] [--role all|api]

Starts the render server: API and renders (all, the default), or the API alone (api; needs redis).
`;

export const WORKER_USAGE = `Usage: renderkit worker [--config FILE]

Renders from the shared queue, no HTTP (needs redis in the config).
`;

export const DOCTOR_USAGE = `Usage: renderkit doctor [--config FILE] [--role all|api|worker] [--json]

Checks Chromium, ffmpeg, fonts, Redis, S3 and the data directory; says exactly what to fix.
Exits 1 when a check fails.
`;

export const PROJECTS_USAGE = `Usage: renderkit projects <create|list|disable|enable> [options]

  projects create --name NAME [--config FILE] [--json]   make a project and print its keys (once)
  projects list [--config FILE] [--json]                 list projects (ids, names, publishable keys)
  projects disable ID [--config FILE]                    refuse the project's keys (401 ProjectNotEnabled)
  projects enable ID [--config FILE]                     accept them again
`;

export const USAGE = `Usage: renderkit <command> [options]

Commands:
  render <url|file.html> -o FILE [options]         render one page to a file, without a server
  serve [--config FILE] [--port N] [--host H] [--role all|api]
                                                   start the render server: API and renders (all, the
                                                   default), or the API alone (api; needs redis)
  worker [--config FILE]                           render from the shared queue, no HTTP (needs redis)
  doctor [--config FILE] [--role all|api|worker] [--json]
                                                   check Chromium, ffmpeg, fonts, Redis, S3 and the data
                                                   directory; say exactly what to fix
  projects create --name NAME [--config FILE]      make a project and print its keys (once)
  projects list [--config FILE] [--json]           list projects (ids, names, publishable keys)

Run \`renderkit <command> --help\` for a command's options.

Options:
  --config FILE   JSON config file (default: $RENDERKIT_CONFIG, else built-in defaults)
  -h, --help      show this text
  -v, --version   show the version

Environment: RENDERKIT_CONFIG, RENDERKIT_DATA_DIR, RENDERKIT_REDIS_URL, RENDERKIT_MASTER_KEY, RENDERKIT_LOG_LEVEL,
RENDERKIT_ADBLOCK_LISTS, PORT, HOST, AWS_* (S3 credentials).
See docs/server-config.md and docs/deployment.md.
`;
