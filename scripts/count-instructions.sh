#!/usr/bin/env bash
# Instructions a step of one benchmark scene executes, counted by valgrind's cachegrind.
# Unlike step times they do not move with the machine's load, so two builds can be told
# apart by a fraction of a percent on a machine whose times wander by a third
# (docs/performance.md#counting-instructions). They are not times: a change that trades
# instructions for memory traffic, or the other way, still needs the benchmarks.
#
#   scripts/count-instructions.sh SCENE [stiction bench options...]
#   scripts/count-instructions.sh s4 --solver iterative --sweeps 3
#   STEPS=100 TOP=30 scripts/count-instructions.sh s1 --solver iterative --sweeps 4
#   CACHE=1 scripts/count-instructions.sh s1 --solver iterative --sweeps 4
#   STAGES=1 scripts/count-instructions.sh s4 --solver iterative --sweeps 3
#   PEER=rapier CACHE=1 scripts/count-instructions.sh s1
#
# Runs `stiction bench --scene SCENE --steps N` under cachegrind twice, N = STEPS and
# 2 STEPS (STEPS defaults to 200); the difference over STEPS is the count per step of the
# later steps, free of start-up and scene building. Then lists the TOP (default 15)
# functions that executed the most instructions in the longer run (inlined code counts in
# the function it was inlined into). With CACHE=1 cachegrind also simulates the caches, a
# 2 MB last level standing for one core's second-level cache, and the misses a step of
# the first level (data) and of that level are printed: a deterministic proxy for memory
# traffic, about ten times slower to run, and only a proxy (docs/performance.md). With
# STAGES=1 the binary is built with the engine's `stage-profile` feature (in
# target/stage-profile), whose step stages are functions of their own, so the list splits
# the step by stage; its stages run baseline rather than AVX2 code, so it executes more
# than the inlined build (S4: about 5 %). With PEER=ENGINE (rapier, ode-quick, ode-exact,
# ours-iterative, ours-exact: `stiction-peers --engines`) the runs are bench/peers' instead
# (`--steps N --rounds 1`, built as scripts/bench-peers.sh builds it; ODE's headers must be
# installed, which that script does): the same count for a peer engine's step at its
# defaults, to set beside ours (docs/performance.md#memory-traffic-against-rapier). It
# takes no stiction bench options.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 1 ]; then
    # The comment block above is the usage.
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
    exit 2
fi
scene="$1"
shift
steps="${STEPS:-200}"
top="${TOP:-15}"
cache="${CACHE:-0}"
stages="${STAGES:-0}"
peer="${PEER:-}"
case "$steps" in
    '' | *[!0-9]* | 0) echo "error: STEPS must be a whole number above 0, not '$steps'" >&2; exit 2 ;;
esac
case "$cache" in
    0 | 1) ;;
    *) echo "error: CACHE must be 0 or 1, not '$cache'" >&2; exit 2 ;;
esac
case "$stages" in
    0 | 1) ;;
    *) echo "error: STAGES must be 0 or 1, not '$stages'" >&2; exit 2 ;;
esac
case "$top" in
    '' | *[!0-9]*) echo "error: TOP must be a whole number, not '$top'" >&2; exit 2 ;;
esac
if ! command -v valgrind >/dev/null || ! command -v cg_annotate >/dev/null; then
    echo "error: valgrind (with cachegrind and cg_annotate) is not installed; on Debian: apt-get install valgrind" >&2
    exit 2
fi
if [ -n "$peer" ]; then
    if [ $# -gt 0 ] || [ "$stages" = 1 ]; then
        echo "error: PEER=$peer takes no stiction bench options and no STAGES=1" >&2
        exit 2
    fi
    if [ ! -f /usr/include/ode/ode.h ]; then
        echo "error: PEER needs ODE's headers to build bench/peers; scripts/bench-peers.sh installs them (libode-dev)" >&2
        exit 2
    fi
    cargo build --release --quiet --manifest-path "$root/bench/peers/Cargo.toml" \
        --target-dir "$root/bench/peers/target"
    binary="$root/bench/peers/target/release/stiction-peers"
elif [ "$stages" = 1 ]; then
    cargo build --release --quiet -p stiction-cli --manifest-path "$root/Cargo.toml" \
        --features stage-profile --target-dir "$root/target/stage-profile"
    binary="$root/target/stage-profile/release/stiction"
else
    cargo build --release --quiet -p stiction-cli --manifest-path "$root/Cargo.toml"
    binary="$root/target/release/stiction"
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Instructions of one run of N steps, the program's total (start-up included):
# `count N [bench options...]`.
count() {
    local n="$1"
    shift
    local out="$work/cachegrind.$n"
    local simulate=(--cache-sim=no)
    if [ "$cache" = 1 ]; then
        simulate=(--cache-sim=yes --LL=2097152,16,64)
    fi
    local run=("$binary" bench --scene "$scene" --steps "$n" --quiet "$@")
    if [ -n "$peer" ]; then
        run=("$binary" --scenes "$scene" --engines "$peer" --no-experiments --no-lcp
            --rounds 1 --steps "$n")
    fi
    if ! valgrind --tool=cachegrind "${simulate[@]}" --cachegrind-out-file="$out" \
        "${run[@]}" >"$work/log.$n" 2>&1; then
        echo "error: ${run[*]} failed under valgrind:" >&2
        tail -n 20 "$work/log.$n" >&2
        exit 1
    fi
    sed -n 's/^summary: *//p' "$out"
}
# Column `k` (1: instructions; with CACHE=1 the events are Ir I1mr ILmr Dr D1mr DLmr Dw
# D1mw DLmw) of a summary line.
column() { echo "$1" | awk -v k="$2" '{ print $k }'; }
short=$(count "$steps" "$@")
long=$(count "$((2 * steps))" "$@")
per_step() { echo $((($(column "$long" "$1") - $(column "$short" "$1")) / steps)); }
[ -z "$peer" ] || set -- "PEER=$peer"
printf 'scene %s, options [%s]: %s instructions a step (steps %d-%d; runs of %d and %d steps: %s and %s)\n' \
    "$scene" "$*" "$(per_step 1)" "$((steps + 1))" "$((2 * steps))" "$steps" "$((2 * steps))" \
    "$(column "$short" 1)" "$(column "$long" 1)"
if [ "$cache" = 1 ]; then
    d1=$(($(per_step 5) + $(per_step 8)))
    ll=$(($(per_step 6) + $(per_step 9)))
    printf 'data misses a step: first level %s, 2 MB last level %s (reads and writes)\n' "$d1" "$ll"
fi
if [ "$top" -gt 0 ]; then
    total=$(column "$long" 1)
    echo
    echo "Functions by instructions executed in the run of $((2 * steps)) steps (share of $total):"
    # cg_annotate lists `Ir (share) file:function` per source file; summed per function.
    cg_annotate --auto=no "$work/cachegrind.$((2 * steps))" 2>/dev/null |
        awk -v total="$total" '
            /file:function/ { go = 1; next }
            go && NF && $1 ~ /^[0-9,]+$/ {
                ir = $1; gsub(",", "", ir)
                name = $0; sub(/^[^)]*\) +[^:]*:/, "", name)
                sum[name] += ir
            }
            END { for (f in sum) printf "%6.2f%%  %s\n", 100 * sum[f] / total, f }' |
        sort -rn | head -n "$top"
fi
