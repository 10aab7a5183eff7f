#!/usr/bin/env bash
# Side-by-side benchmark of this engine against ODE 0.16 and Rapier on shared/SCENES.md S1-S5
# (issue 6), then this project's Dantzig against ODE's on the same LCPs.
#
#   scripts/bench-peers.sh [stiction-peers options]
#
# Installs Debian's libode-dev (and g++, for the shim around ODE's LCP solver) if missing,
# builds bench/peers in release mode (its own cargo workspace: the main build never touches
# it) and prints markdown: the date, machine, commit and load, then the tables. A full run
# takes about three to five minutes on 2 cores. Options are passed on, e.g.
#   --scenes s3,s4        only some scenes
#   --engines ours,ode    only some engines
#   --budget 30           seconds for the exact steppers on S1 and S2 (default 30)
#   --row-limit 1500      largest island an exact step is started on (default 1500)
#   --rounds 5           repeat each scene's runs, engines interleaved; report medians
#   --no-lcp / --lcp-only
#   --export-lcp bench/peers/lcp   rewrite the stored JSON problems
# and, for this script itself (first argument only):
#   --default-profile   build both Rust engines with Cargo's default release settings
#                       (16 codegen units, no LTO) instead of bench/peers' one unit and
#                       fat LTO, in a target directory of its own
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

target="$root/bench/peers/target"
profile="one codegen unit, fat LTO (bench/peers/Cargo.toml)"
if [ "${1:-}" = "--default-profile" ]; then
    shift
    export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
    target="$root/bench/peers/target-default-profile"
    profile="Cargo's defaults (16 codegen units, no LTO)"
fi

need=()
[ -f /usr/include/ode/ode.h ] || need+=(libode-dev)
command -v g++ >/dev/null 2>&1 || need+=(g++)
if [ "${#need[@]}" -gt 0 ]; then
    echo "installing ${need[*]}" >&2
    sudo_cmd=()
    [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${need[@]}" >&2
fi

cargo build --release --quiet --manifest-path "$root/bench/peers/Cargo.toml" --target-dir "$target"

echo "# Stiction, ODE and Rapier side by side"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- crates 2>/dev/null || echo ' (with uncommitted changes in crates/)')"
echo "- ODE: $(dpkg-query -W -f '${Package} ${Version}' libode-dev 2>/dev/null || echo unknown); Rapier: rapier3d-f64 $(grep -A1 'name = "rapier3d-f64"' "$root/bench/peers/Cargo.lock" | sed -n 's/version = "\(.*\)"/\1/p')"
echo "- rustc: $(rustc --version); Rust release build: $profile"
echo
echo '```'
lscpu | head -20
echo '```'
echo
cd "$root"
exec "$target/release/stiction-peers" "$@"
