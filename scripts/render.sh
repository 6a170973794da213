#!/usr/bin/env bash
# `npm run render -- <url | file.html> [-o] <output> [options]`: set up and build, then run
# `renderkit render` (server/src/cli/render.ts). Relative paths are taken from where you ran npm;
# renders are kept under the repository's .renderkit unless RENDERKIT_DATA_DIR says otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" >&2

# npm runs scripts from the package root; INIT_CWD is the directory the user was in.
if [[ "${npm_lifecycle_event:-}" == render && -n "${INIT_CWD:-}" ]]; then
  cd "$INIT_CWD"
fi
export RENDERKIT_DATA_DIR="${RENDERKIT_DATA_DIR:-$ROOT/.renderkit}"
exec node "$ROOT/server/bin/renderkit.js" render "$@"
