#!/usr/bin/env bash
# Builds the viewer's page bundle: viewer/src/*.js and three.js, from the packages locked in
# package-lock.json, into ONE file, crates/viewer/assets/viewer.js (committed, so building the
# Rust crate never needs npm).
#
#   bash viewer/build.sh           rebuild crates/viewer/assets/viewer.js
#   bash viewer/build.sh --check   rebuild into a temporary file and compare it with the
#                                  committed bundle byte for byte (exit 1 if they differ)
#
# Needs node and npm (the npm registry for the first `npm ci`).
set -euo pipefail
cd "$(dirname "$0")"
OUT=../crates/viewer/assets/viewer.js
MODE=${1:-build}

# `npm ci` installs exactly the locked packages; skipped when node_modules was installed
# from this very lock file.
STAMP=node_modules/.stiction-lock
if [[ ! -f $STAMP ]] || ! cmp -s package-lock.json "$STAMP"; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  cp package-lock.json "$STAMP"
fi

build() {
  ./node_modules/.bin/esbuild src/main.js \
    --bundle --minify --format=iife --target=es2020 --charset=utf8 \
    --legal-comments=eof --log-level=warning --outfile="$1"
  # The bundle is inlined into a <script> element: it must not contain a closing tag.
  if grep -qi '</script' "$1"; then
    echo "build.sh: the bundle contains </script" >&2
    exit 1
  fi
}

case "$MODE" in
  build)
    build "$OUT"
    echo "wrote crates/viewer/assets/viewer.js ($(wc -c < "$OUT") bytes)"
    ;;
  --check)
    TMP=$(mktemp -d)
    trap 'rm -rf "$TMP"' EXIT
    build "$TMP/viewer.js"
    if cmp -s "$TMP/viewer.js" "$OUT"; then
      echo "the bundle rebuilt from viewer/src with the locked packages is identical ($(wc -c < "$OUT") bytes)"
    else
      echo "crates/viewer/assets/viewer.js differs from a rebuild of viewer/src: run bash viewer/build.sh" >&2
      exit 1
    fi
    ;;
  *)
    echo "usage: bash viewer/build.sh [--check]" >&2
    exit 2
    ;;
esac
