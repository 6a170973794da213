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
#                                     fc-list showing Liberation, Noto CJK and Noto Color Emoji;
#                                     and report whether Chromium's sandbox works for the --user
#                                     (else, as root, for `nobody`): the kernel allows user
#                                     namespaces and a headless Chromium starts without
#                                     --no-sandbox as that user. A sandbox that cannot work is a
#                                     warning (the server then runs Chromium without it and says
#                                     so), a failure with --require-sandbox.
#   container-setup.sh --require-sandbox  make that sandbox check a failure
#   container-setup.sh --clean        remove apt's lists and caches (image builds only)
# Options combine, in that order: `--packages --user renderkit --check --clean` in the Dockerfile.
set -euo pipefail

PACKAGES=(chromium ffmpeg poppler-utils fonts-liberation fonts-noto-cjk fonts-noto-color-emoji tini ca-certificates)

say() { printf 'container-setup: %s\n' "$*"; }
fail() {
  printf 'container-setup: %s\n' "$*" >&2
  exit 1
}

do_packages=0 do_check=0 do_clean=0 require_sandbox=0 user=""
while (($#)); do
  case "$1" in
    --packages) do_packages=1 ;;
    --check) do_check=1 ;;
    --clean) do_clean=1 ;;
    --require-sandbox) require_sandbox=1 ;;
    --user)
      [[ $# -ge 2 && -n "$2" ]] || fail "--user needs a name"
      user="$2"
      shift
      ;;
    -h | --help)
      sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *) fail "unknown argument: $1 (see --help)" ;;
  esac
  shift
done
((do_packages || do_check || do_clean)) || [[ -n "$user" ]] || fail "nothing to do (see --help)"

installed() { [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == *" installed" ]]; }

# Whether Chromium can run with its sandbox as user $1 (see docs/security.md#chromium-sandbox):
# Chromium refuses it as root; Debian's Chromium has no setuid helper, so it needs unprivileged
# user namespaces, which the kernel (sysctls) or a container's seccomp profile may forbid.
sandbox_check() {
  local as="$1" why="" out="" dir status
  local fix="see docs/security.md#chromium-sandbox"
  if [[ "$(id -u "$as" 2>/dev/null)" == 0 ]]; then
    why="$as has uid 0 (root), where Chromium refuses its sandbox"
    fix="run the server as an unprivileged user"
  elif [[ "$(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null)" == 0 ]]; then
    why="kernel.unprivileged_userns_clone=0"
    fix="sysctl -w kernel.unprivileged_userns_clone=1"
  elif [[ "$(cat /proc/sys/user/max_user_namespaces 2>/dev/null)" == 0 ]]; then
    why="user.max_user_namespaces=0"
    fix="sysctl -w user.max_user_namespaces=10000"
  elif [[ "$(id -u)" != 0 && "$(id -un)" != "$as" ]]; then
    say "chromium sandbox as $as: not checked (run as root or as $as to check it)"
    return 0
  else
    dir="$(mktemp -d "${TMPDIR:-/tmp}/container-setup-sandbox.XXXXXX")"
    chmod 755 "$dir"
    local run=(env HOME="$dir" TMPDIR="$dir")
    if [[ "$(id -u)" == 0 ]]; then
      chown "$as" "$dir"
      run=(runuser -u "$as" -- "${run[@]}")
    fi
    status=0
    out="$(timeout 60 "${run[@]}" chromium --headless --disable-gpu --no-first-run --disable-dev-shm-usage \
      --user-data-dir="$dir/profile" --dump-dom about:blank 2>&1)" || status=$?
    rm -rf "$dir"
    if ((status == 0)) && grep -q '<html' <<<"$out"; then
      say "chromium sandbox as $as: on (a headless Chromium started without --no-sandbox)"
      return 0
    elif grep -qiE 'no usable sandbox|failed to move to new namespace' <<<"$out"; then
      why="user namespaces are blocked here (a container's seccomp profile, or AppArmor)"
      fix="docker run --security-opt seccomp=<a profile that allows them>; $fix"
    else
      why="Chromium did not start as $as (exit $status): $(grep -v -iE 'dbus|unexpected operator' <<<"$out" | tail -n 2 | tr '\n' ' ')"
    fi
  fi
  local line="chromium sandbox as $as: off ($why); to turn it on: $fix"
  if ((require_sandbox)); then
    problems+=("$line")
  else
    say "warning: $line; renderkit then runs Chromium with --no-sandbox and logs this at start-up"
  fi
}

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
  sandbox_user="$user"
  [[ -z "$sandbox_user" && "$(id -u)" == 0 ]] && sandbox_user=nobody
  [[ -z "$sandbox_user" ]] && sandbox_user="$(id -un)"
  sandbox_check "$sandbox_user"
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
