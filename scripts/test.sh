#!/usr/bin/env bash
# `npm test` (and CI, through .ci/run): set-up and build, then every check. A failing check does
# not stop the later ones, so one run shows everything that is wrong; the exit status is non-zero
# when anything failed. The last line is `N passed, N failed` (vitest's test counts).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh || exit 1

export TURBO_TELEMETRY_DISABLED=1
failed=()
step() {
  local name="$1"
  shift
  local started=$SECONDS
  printf '\n== %s\n' "$name"
  if "$@"; then
    printf '== %s ok (%d s)\n' "$name" "$((SECONDS - started))"
  else
    printf '== %s FAILED (%d s)\n' "$name" "$((SECONDS - started))"
    failed+=("$name")
  fi
}

examples() {
  local dir status=0
  for dir in examples/*/; do
    [[ -f "$dir/package.json" ]] || continue
    if node -e 'process.exit(require(process.argv[1]).scripts?.["self-test"] ? 0 : 1)' "$ROOT/$dir/package.json"; then
      echo "-- $dir"
      (cd "$dir" && npm run --silent self-test) || status=1
    fi
  done
  return "$status"
}

results="$(mktemp "${TMPDIR:-/tmp}/renderkit-vitest.XXXXXX.json")"
solo_results="$(mktemp "${TMPDIR:-/tmp}/renderkit-vitest-solo.XXXXXX.json")"
redis_results="$(mktemp "${TMPDIR:-/tmp}/renderkit-vitest-redis.XXXXXX.json")"
security_results="$(mktemp "${TMPDIR:-/tmp}/renderkit-vitest-security.XXXXXX.json")"
trap 'rm -f "$results" "$solo_results" "$redis_results" "$security_results"' EXIT

step container-setup bash scripts/container-setup.sh --packages --check
step lint npm run --silent lint
step typecheck npm run --silent typecheck
step deps npm run --silent deps
step options-doc node scripts/gen-options-doc.mjs --check
step options-type node scripts/gen-render-options.mjs --check
step compat-doc node scripts/gen-compat-doc.mjs --check
# Video capture follows the page's paints in real time, which a second test file's Chromium on the
# same two cores starves: those checks run afterwards, alone.
SOLO=(plugins/format-video/test/video.test.ts plugins/format-video/test/video-shapes.test.ts plugins/format-video/test/video-tour.test.ts plugins/format-video/test/contract.test.ts)
# The security suite runs in its own step (`npm run test:security`, which prints its figures), not twice.
SECURITY=("server/test/security-*.test.ts" "test/e2e/security-*.test.ts" "test/security/**")
step vitest node_modules/.bin/vitest run "${SOLO[@]/#/--exclude=}" "${SECURITY[@]/#/--exclude=}" --reporter=default --reporter=json --outputFile.json="$results"
step vitest-solo node_modules/.bin/vitest run "${SOLO[@]}" --reporter=default --reporter=json --outputFile.json="$solo_results"
step security npm run --silent test:security -- --reporter=json --outputFile.json="$security_results"
# The server's HTTP tests once more against the scale-out parts: BullMQ, records, limits and
# webhooks in a real redis-server, renders in an S3-compatible server (docs/deployment.md#decisions).
mapfile -t HTTP_TESTS < <(grep -l "startTestServer" server/test/*.test.ts)
step vitest-redis env RENDERKIT_TEST_MODE=redis node_modules/.bin/vitest run "${HTTP_TESTS[@]}" --reporter=default --reporter=json --outputFile.json="$redis_results"
step examples examples

# Test counts from vitest's JSON report. A test file that fails before any test runs (an import
# error) counts as one failure, since vitest reports no test for it.
counts="$(node -e '
  const fs = require("node:fs");
  let passed = 0, failed = 0, skipped = 0, report = "ok";
  for (const file of process.argv.slice(1)) {
    let r;
    try { r = JSON.parse(fs.readFileSync(file, "utf8")); } catch { report = "none"; continue; }
    const broken = (r.testResults ?? []).filter((f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed")).length;
    passed += r.numPassedTests;
    failed += r.numFailedTests + broken;
    skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  }
  console.log(passed, failed, skipped, report);
' "$results" "$solo_results" "$security_results" "$redis_results")"
read -r passed failed_tests skipped report <<<"$counts"

# The names of failed tests and the first lines of their messages, last, where a CI log's tail
# shows them (vitest prints them far above, among every passing test).
node -e '
  const fs = require("node:fs");
  for (const file of process.argv.slice(1)) {
    let r;
    try { r = JSON.parse(fs.readFileSync(file, "utf8")); } catch { continue; }
    for (const f of r.testResults ?? []) {
      const failedTests = (f.assertionResults ?? []).filter((a) => a.status === "failed");
      const where = f.name.replace(process.cwd() + "/", "");
      if (f.status === "failed" && failedTests.length === 0) console.log(`FAILED ${where}: ${String(f.message ?? "").split("\n").slice(0, 6).join("\n  ")}`);
      for (const a of failedTests) {
        const message = (a.failureMessages ?? []).join("\n").split("\n").filter((l) => !/^\s*at .*(node_modules|node:internal|<anonymous>)/.test(l)).slice(0, 12).join("\n  ");
        console.log(`FAILED ${where} > ${a.fullName}\n  ${message}`);
      }
    }
  }
' "$results" "$solo_results" "$security_results" "$redis_results"

echo
[[ "$report" == none ]] && echo "vitest wrote no report (see its output above)"
((skipped > 0)) && echo "$skipped tests skipped"
if ((${#failed[@]} > 0)); then
  echo "failed steps: ${failed[*]}"
else
  echo "all steps passed"
fi
echo "$passed passed, $failed_tests failed"
((${#failed[@]} == 0))
