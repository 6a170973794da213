#!/usr/bin/env bash
# `npm run render -- <url | file.html> <output> [options]`: set up and build, then render one
# page with the library (scripts/render.mjs). Relative paths are taken from where you ran npm.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" >&2

# npm runs scripts from the package root; INIT_CWD is the directory the user was in.
if [[ "${npm_lifecycle_event:-}" == render && -n "${INIT_CWD:-}" ]]; then
  cd "$INIT_CWD"
fi
exec node "$ROOT/scripts/render.mjs" "$@"
