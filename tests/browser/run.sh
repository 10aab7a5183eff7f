#!/usr/bin/env bash
# The viewer's browser tests: builds the falling_stack example (crates/viewer/examples),
# writes its HTML and JSON, and runs viewer.test.mjs in headless Chromium through
# playwright-core: the file page and the served page load without console errors, their
# canvas is not blank, setFrame(last) shows the data's last frame to 1e-9, the live page
# plays, steps, grabs and resets, and the servers stop on request and on SIGINT. Then it
# builds the stiction command, runs S4 (s4-stack-20) for 120 steps, writes the run's page
# with `stiction view RUN_DIR --html FILE` and runs view_run.test.mjs: the page loads
# without console errors, is not blank, and setFrame(last) shows trajectory.csv's last
# step to 1e-9.
#
# Installs what is missing: Debian's chromium (apt-get, as root) and playwright-core (npm,
# into tests/browser/node_modules, from package-lock.json). If either cannot be installed
# the run FAILS, unless STICTION_SKIP_BROWSER=1, which skips the whole run.
#
#   bash tests/browser/run.sh
#   STICTION_OUT=/tmp/viewer bash tests/browser/run.sh   # keep the HTML and screenshots
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/tests/browser"

if [[ "${STICTION_SKIP_BROWSER:-0}" == 1 ]]; then
  echo "tests/browser: skipped (STICTION_SKIP_BROWSER=1)"
  exit 0
fi

fail() {
  echo "tests/browser: $*" >&2
  echo "tests/browser: set STICTION_SKIP_BROWSER=1 to skip these tests" >&2
  exit 1
}

as_root() {
  if [[ $(id -u) == 0 ]]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi
}

apt_install() {
  command -v apt-get >/dev/null || return 1
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1 && return 0
  as_root apt-get update >/dev/null 2>&1 || return 1
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >/dev/null 2>&1
}

find_chromium() {
  for name in "${STICTION_CHROMIUM:-}" chromium chromium-browser; do
    [[ -n "$name" ]] && command -v "$name" >/dev/null && { command -v "$name"; return 0; }
  done
  return 1
}

CHROMIUM=$(find_chromium) || {
  echo "tests/browser: installing chromium (apt-get)"
  apt_install chromium || fail "chromium is missing and apt-get install chromium failed"
  CHROMIUM=$(find_chromium) || fail "chromium was installed but is not on PATH"
}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "tests/browser: installing nodejs and npm (apt-get)"
  apt_install nodejs npm || fail "node/npm are missing and apt-get install nodejs npm failed"
fi

STAMP="$HERE/node_modules/.stiction-lock"
if [[ ! -f "$STAMP" ]] || ! cmp -s "$HERE/package-lock.json" "$STAMP"; then
  echo "tests/browser: installing playwright-core (npm ci)"
  (cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) || fail "npm ci of playwright-core failed"
  cp "$HERE/package-lock.json" "$STAMP"
fi

echo "tests/browser: building the falling_stack example"
(cd "$ROOT" && cargo build --quiet -p stiction-viewer --example falling_stack)
EXAMPLE="$ROOT/target/debug/examples/falling_stack"

OUT=${STICTION_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
"$EXAMPLE" html "$OUT/falling_stack.html" >/dev/null
"$EXAMPLE" json "$OUT/falling_stack.json" >/dev/null
echo "tests/browser: $("$CHROMIUM" --version 2>/dev/null | head -1), output in $OUT"

echo "tests/browser: building the stiction command, running S4 and writing its page"
(cd "$ROOT" && cargo build --quiet -p stiction-cli)
STICTION="$ROOT/target/debug/stiction"
"$STICTION" run s4-stack-20 --steps 120 --quiet --out "$OUT/s4-run"
"$STICTION" view "$OUT/s4-run" --html "$OUT/s4-run.html" --quiet

cd "$HERE"
status=0
echo "tests/browser: viewer.test.mjs (the falling_stack example)"
STICTION_CHROMIUM="$CHROMIUM" STICTION_EXAMPLE="$EXAMPLE" STICTION_OUT="$OUT" node viewer.test.mjs || status=1
echo "tests/browser: view_run.test.mjs (stiction view of a recorded S4 run)"
STICTION_CHROMIUM="$CHROMIUM" STICTION_RUN_DIR="$OUT/s4-run" STICTION_RUN_HTML="$OUT/s4-run.html" \
  STICTION_OUT="$OUT" node view_run.test.mjs || status=1
exit $status
