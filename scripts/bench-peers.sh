#!/usr/bin/env bash
# Side-by-side benchmark of this engine against ODE 0.16 and Rapier on the benchmark scenes
# S1-S5 (docs/scenes.md; issue 6), then this project's Dantzig against ODE's on the same LCPs.
#
#   scripts/bench-peers.sh [--default-profile] [--write-standing] [stiction-peers options]
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
# and, for this script itself (before any of those):
#   --default-profile   build both Rust engines with Cargo's default release settings
#                       (16 codegen units, no LTO) instead of bench/peers' one unit and
#                       fat LTO, in a target directory of its own
#   --write-standing    also rewrite the current-standing tables of BENCHMARKS.md (between
#                       its <!-- standing:begin --> and <!-- standing:end --> lines) from
#                       this run's scene table; needs every scene and engine (no --scenes,
#                       --engines, --lcp-only or --queries)
#   --pareto            the work-precision curves instead (bench/peers/src/pareto.rs): S1,
#                       S2 and S4 in every engine over its accuracy knob, MuJoCo and PyBullet
#                       through their Python packages (installed into target/python-venv
#                       when missing); about 15 minutes on 2 cores
#   --write-pareto      --pareto, and rewrite BENCHMARKS.md between its <!-- pareto:begin
#                       and <!-- pareto:end --> lines and the plots docs/benchmarks/pareto-*.svg
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

target="$root/bench/peers/target"
profile="one codegen unit, fat LTO (bench/peers/Cargo.toml)"
write_standing=0
pareto=0
while [ $# -gt 0 ]; do
    case "$1" in
        --pareto)
            pareto=1
            shift
            ;;
        --write-pareto)
            pareto=2
            shift
            ;;
        --default-profile)
            export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
            target="$root/bench/peers/target-default-profile"
            profile="Cargo's defaults (16 codegen units, no LTO)"
            shift
            ;;
        --write-standing)
            write_standing=1
            shift
            ;;
        *) break ;;
    esac
done
rounds=5
if [ "$write_standing" = 1 ]; then
    args=("$@")
    for ((i = 0; i < ${#args[@]}; i++)); do
        case "${args[i]}" in
            --scenes | --engines | --lcp-only | --queries)
                echo "--write-standing needs every scene and engine: drop ${args[i]}" >&2
                exit 2
                ;;
            --rounds) rounds="${args[i + 1]:-$rounds}" ;;
        esac
    done
    for marker in '<!-- standing:begin' '<!-- standing:end -->'; do
        grep -q "$marker" "$root/BENCHMARKS.md" || {
            echo "BENCHMARKS.md has no '$marker' line" >&2
            exit 2
        }
    done
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

if [ "$pareto" != 0 ]; then
    # The Python engines run in the test venv (tests/python/run.sh makes it too).
    venv="$root/target/python-venv"
    [ -x "$venv/bin/python" ] || "${STICTION_PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/python" -c 'import numpy, mujoco, pybullet' 2>/dev/null ||
        "$venv/bin/python" -m pip install --quiet numpy mujoco pybullet >&2
    export STICTION_PYTHON="$venv/bin/python"
    versions="$("$venv/bin/python" -c 'import importlib.metadata as m; print(", ".join(f"{d} {m.version(d)}" for d in ("mujoco", "pybullet")))')"
    cd "$root"
    if [ "$pareto" = 1 ]; then
        exec "$target/release/stiction-peers" --pareto "$@"
    fi
    grep -q '<!-- pareto:begin' BENCHMARKS.md && grep -q '<!-- pareto:end -->' BENCHMARKS.md || {
        echo "BENCHMARKS.md has no <!-- pareto:begin / <!-- pareto:end --> lines" >&2
        exit 2
    }
    mkdir -p docs/benchmarks
    output="$(mktemp)"
    trap 'rm -f "$output" "$output.md"' EXIT
    {
        echo "Written by \`scripts/bench-peers.sh --write-pareto $*\`: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- crates || echo ' (with uncommitted changes in crates/)')."
        echo "Machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs; ODE: $(dpkg-query -W -f '${Package} ${Version}' libode-dev 2>/dev/null); Rapier: rapier3d-f64 $(grep -A1 'name = "rapier3d-f64"' bench/peers/Cargo.lock | sed -n 's/version = "\(.*\)"/\1/p'); $versions; $(rustc --version)."
        echo
        "$target/release/stiction-peers" --pareto --svg-dir docs/benchmarks "$@" | sed '1,2d'
    } | tee "$output"
    awk -v block="$output" '
        /<!-- pareto:begin/ { print; while ((getline line < block) > 0) print line; skip = 1; next }
        /<!-- pareto:end -->/ { skip = 0 }
        !skip { print }
    ' BENCHMARKS.md >"$output.md"
    cp "$output.md" BENCHMARKS.md
    echo "BENCHMARKS.md: work-precision section rewritten from this run" >&2
    exit 0
fi

date_utc="$(date -u '+%Y-%m-%d %H:%M UTC')"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- crates 2>/dev/null || echo ' (with uncommitted changes in crates/)')"
peers="ODE: $(dpkg-query -W -f '${Package} ${Version}' libode-dev 2>/dev/null || echo unknown); Rapier: rapier3d-f64 $(grep -A1 'name = "rapier3d-f64"' "$root/bench/peers/Cargo.lock" | sed -n 's/version = "\(.*\)"/\1/p')"
rust="rustc: $(rustc --version); Rust release build: $profile"
cpu="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) CPUs"

echo "# Stiction, ODE and Rapier side by side"
echo
echo "- date: $date_utc"
echo "- commit: $commit"
echo "- $peers"
echo "- $rust"
echo
echo '```'
lscpu | head -20
echo '```'
echo
cd "$root"
if [ "$write_standing" = 0 ]; then
    exec "$target/release/stiction-peers" "$@"
fi

# The standing tables, one per comparison, from the "## Scenes" table of stiction-peers'
# output (bench/peers/src/report.rs: scene | engine | ms/step | ratio | first 60 | CPU |
# steps | quality | notes).
standing_tables() {
    awk -v date_utc="$date_utc" -v commit="$commit" -v cpu="$cpu" -v peers="$peers" \
        -v rust="$rust" -v rounds="$rounds" '
function numeric(s) { return s ~ /^[0-9.]+([eE][-+]?[0-9]+)?$/ }
function partial(k) { return steps[k] ~ / of / }
# A time cell: the median, the rounds range, or how far a run that stopped got.
function time_cell(k,   c) {
    if (!(k in t) || t[k] == "-") return "-"
    c = t[k]
    if (k in range) c = c " (" range[k] ")"
    if (partial(k)) c = c ", " steps[k] " steps"
    return c
}
function ratio(a, b) {
    if (!(a in t) || !(b in t) || partial(a) || partial(b)) return "-"
    if (!numeric(t[a]) || !numeric(t[b]) || t[b] + 0 <= 0) return "-"
    return sprintf("%.2f", t[a] / t[b])
}
function goal(r, limit) {
    if (r == "-") return "-"
    return (r + 0 <= limit) ? "met" : "**not met**"
}
function quality_cell(k) {
    if (!(k in t) || t[k] == "-") return "-"
    return q[k] (partial(k) ? " (after " steps[k] " steps)" : "")
}
function notes_of(k, who) { return (k in other) ? who ": " other[k] : "" }
function join(a, b) { return a == "" ? b : (b == "" ? a : a "; " b) }
/^## Scenes/ { on = 1; next }
on && /^#/ { on = 0 }
on && /^\| S[1-5] / {
    line = substr($0, 3, length($0) - 4)
    n = split(line, f, / \| /)
    s = f[1]; sub(/ .*/, "", s)
    label[s] = f[1]
    e = f[2]
    if (s == "S5") { s5[++n5] = e; k = "S5" SUBSEP n5 }
    else if (e == "Stiction exact") k = s SUBSEP "ours_exact"
    else if (e ~ /^Stiction iterative/) k = s SUBSEP "ours_iter"
    else if (e == "ODE dWorldStep") k = s SUBSEP "ode_exact"
    else if (e == "ODE dWorldQuickStep") k = s SUBSEP "ode_quick"
    else if (e ~ /^Rapier/) { k = s SUBSEP "rapier"; rapier = e }
    else next
    t[k] = f[3]; steps[k] = f[7]
    q[k] = f[8]; for (i = 9; i < n; i++) q[k] = q[k] " | " f[i]
    gsub(/\|/, "\\|", q[k])
    m = split(f[n], parts, /; /)
    for (i = 1; i <= m; i++) {
        if (parts[i] ~ /^median of [0-9]+ runs \(/) {
            r = parts[i]; sub(/^median of [0-9]+ runs \(/, "", r); sub(/ ms\/step\)$/, "", r)
            sub(/ to /, "-", r); range[k] = r
        } else if (parts[i] != "") other[k] = join(other[k], parts[i])
    }
}
END {
    print "Written by `scripts/bench-peers.sh --write-standing`: " date_utc ", commit " commit "."
    print "Machine: " cpu "; " peers "; " rust "."
    print "Times are ms per step (wall time, collision included): the median over " rounds " rounds"
    print "of each run'"'"'s median step, the rounds'"'"' range in brackets. Ratios divide our time by theirs."
    print ""
    print "### Iterative step against ODE'"'"'s quickstep (goal: at most 0.7 of its time)"
    print ""
    print "| scene | Stiction iterative | ODE dWorldQuickStep | ratio | goal |"
    print "| --- | ---: | ---: | ---: | --- |"
    for (i = 1; i <= 4; i++) {
        s = "S" i; if (!(s in label)) continue
        r = ratio(s SUBSEP "ours_iter", s SUBSEP "ode_quick")
        print "| " label[s] " | " time_cell(s SUBSEP "ours_iter") " | " time_cell(s SUBSEP "ode_quick") " | " r " | " goal(r, 0.7) " |"
    }
    print ""
    print "### Exact step against ODE'"'"'s dWorldStep (goal: at most its time)"
    print ""
    print "| scene | Stiction exact | ODE dWorldStep | ratio | goal | notes |"
    print "| --- | ---: | ---: | ---: | --- | --- |"
    for (i = 1; i <= 4; i++) {
        s = "S" i; if (!(s in label)) continue
        a = s SUBSEP "ours_exact"; b = s SUBSEP "ode_exact"; r = ratio(a, b)
        print "| " label[s] " | " time_cell(a) " | " time_cell(b) " | " r " | " goal(r, 1.0) " | " join(notes_of(a, "Stiction"), notes_of(b, "ODE")) " |"
    }
    print ""
    print "### Iterative step against Rapier (goal for S2: at most its time)"
    print ""
    print "| scene | Stiction iterative | " rapier " | ratio | goal |"
    print "| --- | ---: | ---: | ---: | --- |"
    for (i = 1; i <= 4; i++) {
        s = "S" i; if (!(s in label)) continue
        r = ratio(s SUBSEP "ours_iter", s SUBSEP "rapier")
        print "| " label[s] " | " time_cell(s SUBSEP "ours_iter") " | " time_cell(s SUBSEP "rapier") " | " r " | " (s == "S2" ? goal(r, 1.0) : "-") " |"
    }
    print ""
    print "### Quality at the last step (docs/scenes.md)"
    print ""
    print "| scene | Stiction iterative | Stiction exact | ODE dWorldQuickStep | ODE dWorldStep | Rapier |"
    print "| --- | --- | --- | --- | --- | --- |"
    for (i = 1; i <= 4; i++) {
        s = "S" i; if (!(s in label)) continue
        print "| " label[s] " | " quality_cell(s SUBSEP "ours_iter") " | " quality_cell(s SUBSEP "ours_exact") " | " quality_cell(s SUBSEP "ode_quick") " | " quality_cell(s SUBSEP "ode_exact") " | " quality_cell(s SUBSEP "rapier") " |"
    }
    print ""
    print "### S5 spinner: each gyroscopic mode over 6000 steps"
    print ""
    print "| engine and mode | us/step | at the end |"
    print "| --- | ---: | --- |"
    for (i = 1; i <= n5; i++) {
        k = "S5" SUBSEP i
        us = numeric(t[k]) ? sprintf("%.2f", t[k] * 1000) : "-"
        c = quality_cell(k); if (k in other) c = c "; " other[k]
        print "| " s5[i] " | " us " | " c " |"
    }
}'
}

output="$(mktemp)"
trap 'rm -f "$output" "$output.block" "$output.md"' EXIT
"$target/release/stiction-peers" "$@" | tee "$output"
standing_tables <"$output" >"$output.block"
awk -v block="$output.block" '
    /<!-- standing:begin/ { print; while ((getline line < block) > 0) print line; skip = 1; next }
    /<!-- standing:end -->/ { skip = 0 }
    !skip { print }
' "$root/BENCHMARKS.md" >"$output.md"
cp "$output.md" "$root/BENCHMARKS.md"
echo "BENCHMARKS.md: current standing rewritten from this run" >&2
