#!/usr/bin/env bash
# The container image's system set-up, in one place: the Dockerfile runs it to build the image and
# scripts/test.sh runs it on the development machine (which has no Docker daemon), so the same
# package list and the same checks are exercised in CI.
#
#   container-setup.sh --packages     install the Debian packages below with apt-get (root; skips
#                                     the ones already installed, so a second run does nothing)
#   container-setup.sh --user NAME    create the system user NAME and the data directory /data
#                                     (RENDERKIT_DATA_DIR, when set) owned by it
#   container-setup.sh --check        verify every package is installed and its tools run:
#                                     chromium --version, ffmpeg -version, pdftocairo -v, tini,
#                                     fc-list showing Liberation, Noto CJK and Noto Color Emoji
#   container-setup.sh --clean        remove apt's lists and caches (image builds only)
# Options combine, in that order: `--packages --user renderkit --check --clean` in the Dockerfile.
set -euo pipefail

PACKAGES=(chromium ffmpeg poppler-utils fonts-liberation fonts-noto-cjk fonts-noto-color-emoji tini ca-certificates)

say() { printf 'container-setup: %s\n' "$*"; }
fail() {
  printf 'container-setup: %s\n' "$*" >&2
  exit 1
}

do_packages=0 do_check=0 do_clean=0 user=""
while (($#)); do
  case "$1" in
    --packages) do_packages=1 ;;
    --check) do_check=1 ;;
    --clean) do_clean=1 ;;
    --user)
      [[ $# -ge 2 && -n "$2" ]] || fail "--user needs a name"
      user="$2"
      shift
      ;;
    -h | --help)
      sed -n '2,15p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument: $1 (see --help)" ;;
  esac
  shift
done
((do_packages || do_check || do_clean)) || [[ -n "$user" ]] || fail "nothing to do (see --help)"

installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == *" installed" ]]; }

if ((do_packages)); then
  command -v apt-get >/dev/null 2>&1 || fail "apt-get not found: this set-up is for Debian (bookworm)"
  missing=()
  for package in "${PACKAGES[@]}"; do installed "$package" || missing+=("$package"); done
  if ((${#missing[@]} == 0)); then
    say "packages already installed (${PACKAGES[*]})"
  else
    [[ "$(id -u)" == 0 ]] || fail "installing ${missing[*]} needs root: sudo $0 --packages"
    say "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    say "installed ${missing[*]}"
  fi
fi

if [[ -n "$user" ]]; then
  data_dir="${RENDERKIT_DATA_DIR:-/data}"
  if id -u "$user" >/dev/null 2>&1; then
    say "user $user exists"
  else
    [[ "$(id -u)" == 0 ]] || fail "creating user $user needs root"
    useradd --system --user-group --create-home --home-dir "/home/$user" --shell /usr/sbin/nologin "$user"
    say "created user $user"
  fi
  mkdir -p "$data_dir"
  chown "$user:$user" "$data_dir"
  chmod 700 "$data_dir"
  say "$data_dir belongs to $user"
fi

if ((do_check)); then
  problems=()
  for package in "${PACKAGES[@]}"; do installed "$package" || problems+=("package $package is not installed"); done
  # Each tool must start and print its version; Chromium's wrapper may print noise on stderr.
  check() {
    local what="$1" pattern="$2" output
    shift 2
    if ! output="$("$@" 2>&1)"; then
      problems+=("$what failed: $(printf '%s' "$output" | tail -n 3)")
    elif ! grep -qiE -- "$pattern" <<<"$output"; then
      problems+=("$what printed no version: $(printf '%s' "$output" | tail -n 3)")
    else
      say "$(grep -iE -m1 -- "$pattern" <<<"$output")"
    fi
  }
  check "chromium --version" '^Chromium [0-9]+' chromium --version
  check "ffmpeg -version" '^ffmpeg version' ffmpeg -version
  check "ffprobe -version" '^ffprobe version' ffprobe -version
  check "pdftocairo -v" '^pdftocairo version' pdftocairo -v
  check "tini --version" '^tini version' tini --version
  fonts="$(fc-list : family 2>&1 || true)"
  for family in "Liberation Sans" "Noto Sans CJK" "Noto Color Emoji"; do
    if grep -qi -- "$family" <<<"$fonts"; then
      say "font $family ok"
    else
      problems+=("fc-list shows no $family font")
    fi
  done
  if ((${#problems[@]})); then
    printf 'container-setup: %s\n' "${problems[@]}" >&2
    fail "check failed (${#problems[@]} problems); install with: $0 --packages"
  fi
  say "check ok: ${#PACKAGES[@]} packages installed and their tools run"
fi

if ((do_clean)); then
  apt-get clean
  rm -rf /var/lib/apt/lists/*
  say "apt caches removed"
fi
