#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ (the LCP solvers and readers, and the CLI's scene reader)
# for a bounded time and reports each one.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET]      (default 60)
#
# Environment:
#   FUZZ_TARGETS     space-separated targets to run (default: all of `cargo fuzz list`)
#   FUZZ_TIMEOUT     seconds one input may take before libFuzzer calls it a hang (default 10)
#   FUZZ_SANITIZER   none (default) or address, leak, ...; the solvers are safe Rust, so the
#                    default only instruments for coverage. A sanitizer needs unstable rustc
#                    flags, which this script allows on the stable toolchain with
#                    RUSTC_BOOTSTRAP=1.
#
# The growing corpus lives in fuzz/corpus/<target>/ and crashes, hangs and slow inputs in
# fuzz/artifacts/<target>/ (both ignored by git). Exit status: 0 if every target ran clean,
# 1 if any found a problem.
set -euo pipefail

seconds="${1:-60}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -eq 0 ]; then
    echo "usage: scripts/fuzz.sh [SECONDS_PER_TARGET]  (a positive whole number)" >&2
    exit 2
fi
timeout="${FUZZ_TIMEOUT:-10}"
sanitizer="${FUZZ_SANITIZER:-none}"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
if [ "$sanitizer" != none ]; then
    # cargo-fuzz passes -Zsanitizer=..., a nightly flag; the one toolchain here is stable.
    export RUSTC_BOOTSTRAP=1
fi

read -r -a targets <<<"${FUZZ_TARGETS:-$(cargo fuzz list | tr '\n' ' ')}"
echo "== building ${#targets[@]} targets (sanitizer: $sanitizer)"
cargo fuzz build --sanitizer "$sanitizer"

# The JSON reader starts from real problem files: the examples and the regression corpus.
mkdir -p fuzz/corpus/lcp_json
cp examples/lcp/*.json crates/lcp/tests/fuzz_corpus/*.json fuzz/corpus/lcp_json/ 2>/dev/null || true
# The scene reader starts from the repository's scenes and the CLI's kept scene inputs (good
# scenes in TOML and JSON, each kind of bad input, and what the scene target found).
mkdir -p fuzz/corpus/scene
cp scenes/*.toml crates/cli/tests/scene_fuzz_corpus/* fuzz/corpus/scene/ 2>/dev/null || true

logs="fuzz/logs"
mkdir -p "$logs"
summary=()
failed=0
for target in "${targets[@]}"; do
    corpus="fuzz/corpus/$target"
    mkdir -p "$corpus" "fuzz/artifacts/$target"
    extra=()
    max_len=8192
    if [ "$target" = lcp_json ]; then
        extra+=("-dict=fuzz/lcp_json.dict")
    fi
    if [ "$target" = scene ]; then
        # Scene files are longer than problem files (the ragdoll's scene.json is 11 kB).
        extra+=("-dict=fuzz/scene.dict")
        max_len=16384
    fi
    log="$logs/$target.log"
    echo "== $target: ${seconds}s"
    status=clean
    if ! cargo fuzz run --sanitizer "$sanitizer" "$target" "$corpus" -- \
        -max_total_time="$seconds" -timeout="$timeout" -max_len="$max_len" \
        -print_final_stats=1 "${extra[@]}" >"$log" 2>&1; then
        status="FAILED (see $log and fuzz/artifacts/$target/)"
        failed=1
        grep -E "panicked at|ERROR: libFuzzer|SUMMARY|Test unit written" "$log" | head -6 || true
    fi
    # libFuzzer's last progress line ("#runs DONE cov: ...", or the last one before a crash).
    done_line="$(grep -E '^#[0-9]+[[:space:]]' "$log" | grep ' cov: ' | tail -1 || true)"
    runs="$(sed -n 's/^stat::number_of_executed_units:[[:space:]]*//p' "$log" | tail -1)"
    cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")"
    corp="$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$done_line")"
    speed="$(sed -n 's/.* exec\/s: \([0-9]*\).*/\1/p' <<<"$done_line")"
    summary+=("$(printf '%-12s %-8s runs=%-10s cov=%-6s corpus=%-14s exec/s=%s' \
        "$target" "${status%% *}" "${runs:-?}" "${cov:-?}" "${corp:-?}" "${speed:-?}")")
    if [ "$status" != clean ]; then
        summary+=("             $status")
    fi
done

echo
echo "== fuzzing summary (${seconds}s per target, -timeout=${timeout}s)"
printf '%s\n' "${summary[@]}"
exit "$failed"
