#!/usr/bin/env bash
# `npm start [-- --config FILE] [-- --port N]`: set up and build, then run the render server on
# embedded defaults (file storage and a durable file queue under ./.renderkit, Playwright engine),
# or on the config file's settings: nothing here overrides its dataDir.
# The first start creates a default project and prints its keys once.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" >&2

if [[ -n "${INIT_CWD:-}" ]]; then cd "$INIT_CWD"; fi
exec node "$ROOT/server/dist/cli.js" serve "$@"
