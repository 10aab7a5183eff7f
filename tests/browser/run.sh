#!/usr/bin/env bash
# The viewer's browser tests: builds the falling_stack example (crates/viewer/examples),
# writes its HTML and JSON, and runs viewer.test.mjs in headless Chromium through
# playwright-core: the file page and the served page load without console errors, their
# canvas is not blank, setFrame(last) shows the data's last frame to 1e-9, the live page
# plays, steps, grabs and resets, and the servers stop on request and on SIGINT. Then it
# builds the stiction command, runs S4 (s4-stack-20) for 120 steps, writes the run's page
# with `stiction view RUN_DIR --html FILE` and runs view_run.test.mjs: the page loads
# without console errors, is not blank, and setFrame(last) shows trajectory.csv's last
# step to 1e-9, and the contact overlay draws one arrow per contact of contact_forces.csv.
# live.test.mjs then serves S4 and tests/browser/scenes/apart-boxes.toml live with `stiction
# view --live`: the page's state equals the server's and `stiction run`'s, the solver switch,
# the statistics, grab-and-pull and slow motion work, malformed messages are refused.
# spheres.test.mjs views 20 steps of S2 (1,000 spheres, drawn as impostors): clicking a
# sphere at its projected centre selects that body, and playing draws between frames.
#
# `bash tests/browser/run.sh --bench` runs bench.mjs instead (no tests): S2 playback fps,
# live S4's real-time factor and the time to open a 600-step S1 run's page.
#
# Installs what is missing: Debian's chromium, Mesa's EGL and llvmpipe (apt-get, as root)
# and playwright-core (npm, into tests/browser/node_modules, from package-lock.json). If
# chromium or playwright-core cannot be installed the run FAILS, unless
# STICTION_SKIP_BROWSER=1, which skips the whole run. WebGL is drawn by llvmpipe, or by
# SwiftShader (with a warning) if llvmpipe does not come up; the tests print which.
#
#   bash tests/browser/run.sh
#   STICTION_OUT=/tmp/viewer bash tests/browser/run.sh   # keep the HTML and screenshots
#   bash tests/browser/run.sh --bench                    # the viewer's benchmark
#   STICTION_GL=swiftshader bash tests/browser/run.sh    # force a renderer (or llvmpipe)
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

# Mesa's EGL with its llvmpipe driver, the faster of the two software WebGL renderers
# (common.mjs's launchChromium falls back to Chromium's own SwiftShader without it).
if ! dpkg -s libegl1 libegl-mesa0 libgl1-mesa-dri >/dev/null 2>&1; then
  echo "tests/browser: installing Mesa's EGL and llvmpipe (apt-get)"
  apt_install libegl1 libegl-mesa0 libgl1-mesa-dri ||
    echo "tests/browser: WARNING: apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri failed; WebGL will fall back to SwiftShader" >&2
fi

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

BENCH=0
if [[ "${1:-}" == --bench ]]; then BENCH=1; fi

# Release builds: the live checks and the benchmark step real scenes at real time.
echo "tests/browser: building the falling_stack example and the stiction command (release)"
(cd "$ROOT" && cargo build --quiet --release -p stiction-viewer --example falling_stack)
(cd "$ROOT" && cargo build --quiet --release -p stiction-cli)
EXAMPLE="$ROOT/target/release/examples/falling_stack"
STICTION="$ROOT/target/release/stiction"

OUT=${STICTION_OUT:-$(mktemp -d)}
mkdir -p "$OUT"
echo "tests/browser: $("$CHROMIUM" --version 2>/dev/null | head -1), output in $OUT"
cd "$HERE"

if [[ $BENCH == 1 ]]; then
  echo "tests/browser: bench.mjs (S2 playback, live S4, S1 page open)"
  STICTION_CHROMIUM="$CHROMIUM" STICTION_BIN="$STICTION" STICTION_ROOT="$ROOT" STICTION_OUT="$OUT" \
    node bench.mjs
  exit $?
fi

"$EXAMPLE" html "$OUT/falling_stack.html" >/dev/null
"$EXAMPLE" json "$OUT/falling_stack.json" >/dev/null

echo "tests/browser: running S4 (contact forces recorded) and writing its page"
# S4 as shipped records no contact forces; a copy with them recorded feeds the overlay check.
sed 's/^every = 10$/every = 10\ncontact_forces = true/' "$ROOT/scenes/s4-stack-20.toml" > "$OUT/s4-stack-20.toml"
grep -q '^contact_forces = true$' "$OUT/s4-stack-20.toml" || fail "could not add contact_forces to S4's [record]"
"$STICTION" run "$OUT/s4-stack-20.toml" --steps 120 --quiet --out "$OUT/s4-run"
"$STICTION" view "$OUT/s4-run" --html "$OUT/s4-run.html" --quiet
# The live check plays S4 in real time, well past 120 steps on a slow page.
"$STICTION" run "$OUT/s4-stack-20.toml" --steps 3000 --quiet --out "$OUT/s4-long"
echo "tests/browser: running S2 (20 steps: 1,000 spheres drawn as impostors) and writing its page"
"$STICTION" run s2-sphere-pile --steps 20 --quiet --out "$OUT/s2-run"
"$STICTION" view "$OUT/s2-run" --html "$OUT/s2-run.html" --quiet
echo "tests/browser: running apart-boxes (the unpulled reference of the grab check)"
"$STICTION" run "$HERE/scenes/apart-boxes.toml" --steps 14400 --quiet --out "$OUT/apart-run"

status=0
echo "tests/browser: viewer.test.mjs (the falling_stack example)"
STICTION_CHROMIUM="$CHROMIUM" STICTION_EXAMPLE="$EXAMPLE" STICTION_OUT="$OUT" node viewer.test.mjs || status=1
echo "tests/browser: view_run.test.mjs (stiction view of a recorded S4 run)"
STICTION_CHROMIUM="$CHROMIUM" STICTION_RUN_DIR="$OUT/s4-run" STICTION_RUN_HTML="$OUT/s4-run.html" \
  STICTION_OUT="$OUT" node view_run.test.mjs || status=1
echo "tests/browser: spheres.test.mjs (picking S2's impostor spheres, playback)"
STICTION_CHROMIUM="$CHROMIUM" STICTION_S2_RUN="$OUT/s2-run" STICTION_S2_HTML="$OUT/s2-run.html" \
  STICTION_OUT="$OUT" node spheres.test.mjs || status=1
echo "tests/browser: live.test.mjs (stiction view SCENE --live)"
STICTION_CHROMIUM="$CHROMIUM" STICTION_BIN="$STICTION" STICTION_OUT="$OUT" \
  STICTION_S4_SCENE="$OUT/s4-stack-20.toml" STICTION_S4_RUN="$OUT/s4-long" \
  STICTION_APART_SCENE="$HERE/scenes/apart-boxes.toml" STICTION_APART_RUN="$OUT/apart-run" \
  node live.test.mjs || status=1
exit $status
