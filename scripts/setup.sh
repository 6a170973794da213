#!/usr/bin/env bash
# One idempotent set-up step, run by `npm run render` and `npm test` before anything else:
#   1. Node >= 20.19
#   2. Debian packages (Chromium, ffmpeg, poppler, fonts, Redis): installed with apt-get when we
#      are root, otherwise the exact command is printed and we stop. RENDERKIT_SKIP_APT=1 skips it.
#   3. npm dependencies: `npm ci` when node_modules is missing or older than package-lock.json.
#      Nothing downloads a browser or a binary: PUPPETEER_SKIP_DOWNLOAD and FFMPEG_BIN are set.
#   4. Build: `tsc -b tsconfig.build.json` (incremental; a no-op when dist is up to date).
# Prints one line per step; full tool output only when a step fails.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

NODE_MIN_MAJOR=20
NODE_MIN_MINOR=19
APT_PACKAGES=(chromium ffmpeg poppler-utils fonts-liberation fonts-noto-color-emoji fonts-noto-cjk redis-server)

say() { printf 'setup: %s\n' "$*"; }
fail() {
  printf 'setup: %s\n' "$*" >&2
  exit 1
}

LOG="$(mktemp "${TMPDIR:-/tmp}/renderkit-setup.XXXXXX")"
trap 'rm -f "$LOG"' EXIT

# Runs a command with its output in $LOG; on failure prints the end of the log and stops.
quietly() {
  local what="$1"
  shift
  if ! "$@" >"$LOG" 2>&1; then
    printf 'setup: %s failed; its output:\n' "$what" >&2
    grep -v 'Unknown user config "nodedir"' "$LOG" | tail -n 60 >&2
    exit 1
  fi
}

# Two set-ups at once (a test run and a render) must not run `npm ci` over each other.
# Best effort: without flock or a writable lock file, set-up simply runs unlocked.
lock="${TMPDIR:-/tmp}/renderkit-setup-$(id -u)-$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1).lock"
if command -v flock >/dev/null 2>&1 && { exec 9>>"$lock"; } 2>/dev/null; then
  flock 9
fi

# --- 1. Node ---------------------------------------------------------------------------------
command -v node >/dev/null 2>&1 || fail "Node.js is not installed; renderkit needs Node >= $NODE_MIN_MAJOR.$NODE_MIN_MINOR (https://nodejs.org)."
node_version="$(node -p 'process.versions.node')"
IFS=. read -r node_major node_minor _ <<<"$node_version"
if ((node_major < NODE_MIN_MAJOR || (node_major == NODE_MIN_MAJOR && node_minor < NODE_MIN_MINOR))); then
  fail "Node $node_version is too old; renderkit needs Node >= $NODE_MIN_MAJOR.$NODE_MIN_MINOR."
fi
say "node $node_version ok"

# --- 2. Debian packages ----------------------------------------------------------------------
# A package counts as present when dpkg says so, or (no dpkg) when what we use from it exists.
# RENDERKIT_CHROMIUM / FFMPEG_PATH pointing at an executable replace the chromium / ffmpeg packages.
has_font() { command -v fc-list >/dev/null 2>&1 && fc-list : family | grep -qi -- "$1"; }
has_package() {
  case "$1" in
    chromium) [[ -n "${RENDERKIT_CHROMIUM:-}" && -x "${RENDERKIT_CHROMIUM}" ]] && return 0 ;;
    ffmpeg) [[ -n "${FFMPEG_PATH:-}" && -x "${FFMPEG_PATH}" ]] && return 0 ;;
  esac
  if command -v dpkg-query >/dev/null 2>&1; then
    [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == *" installed" ]]
    return
  fi
  case "$1" in
    chromium) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ;;
    ffmpeg) command -v ffmpeg >/dev/null 2>&1 && command -v ffprobe >/dev/null 2>&1 ;;
    poppler-utils) command -v pdftocairo >/dev/null 2>&1 ;;
    redis-server) command -v redis-server >/dev/null 2>&1 ;;
    fonts-liberation) has_font "Liberation Sans" ;;
    fonts-noto-color-emoji) has_font "Noto Color Emoji" ;;
    fonts-noto-cjk) has_font "Noto Sans CJK" ;;
    *) return 1 ;;
  esac
}

if [[ "${RENDERKIT_SKIP_APT:-}" == 1 ]]; then
  say "system packages not checked (RENDERKIT_SKIP_APT=1)"
else
  missing=()
  for package in "${APT_PACKAGES[@]}"; do
    has_package "$package" || missing+=("$package")
  done
  if ((${#missing[@]} == 0)); then
    say "system packages ok (${APT_PACKAGES[*]})"
  elif [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing ${missing[*]} with apt-get (takes about a minute)"
    quietly "apt-get update" apt-get update
    quietly "apt-get install" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends "${missing[@]}"
    say "system packages installed"
  else
    {
      echo "setup: these system packages are missing: ${missing[*]}"
      if command -v apt-get >/dev/null 2>&1; then
        echo "Install them with:"
        echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}"
      else
        echo "Install the equivalent packages with your system's package manager (these are the Debian names)."
      fi
      echo "Then run this command again, or set RENDERKIT_SKIP_APT=1 to skip this check"
      echo "(point RENDERKIT_CHROMIUM and FFMPEG_PATH at your own Chromium and ffmpeg)."
    } >&2
    exit 1
  fi
fi

# --- 3. npm dependencies ---------------------------------------------------------------------
# No install script may download anything: puppeteer would fetch Chrome and ffmpeg-static a
# binary, and either failure aborts the whole install offline (see docs in CONTRIBUTING.md).
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
ffmpeg_bin="${FFMPEG_PATH:-$(command -v ffmpeg || true)}"
[[ -n "$ffmpeg_bin" ]] && export FFMPEG_BIN="$ffmpeg_bin"

if [[ ! -f package-lock.json ]]; then
  quietly "npm install" npm install --no-audit --no-fund
  say "npm dependencies installed (npm install: there was no package-lock.json)"
elif [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  if npm ci --no-audit --no-fund >"$LOG" 2>&1; then
    say "npm dependencies installed (npm ci)"
  elif grep -q "can only install packages when your package.json and package-lock.json" "$LOG"; then
    # npm ci also refuses a lockfile that lacks other platforms' optional packages (npm/cli#4828,
    # and registries that do not serve them); npm install keeps the locked versions and works.
    quietly "npm install" npm install --no-audit --no-fund
    say "npm dependencies installed (npm install; npm ci found package-lock.json out of sync)"
  else
    printf 'setup: npm ci failed; its output:\n' >&2
    grep -v 'Unknown user config "nodedir"' "$LOG" | tail -n 60 >&2
    exit 1
  fi
else
  say "npm dependencies up to date"
fi

# --- 4. build --------------------------------------------------------------------------------
# tsc -b rather than turbo: it also rebuilds when a root file such as tsconfig.base.json changes,
# which turbo's per-package cache does not see.
started=$SECONDS
quietly "build (tsc -b tsconfig.build.json)" node_modules/.bin/tsc -b tsconfig.build.json
say "build ok ($((SECONDS - started)) s)"
