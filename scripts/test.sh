#!/usr/bin/env bash
# Every test of the repository: the layering rule of the engine, then the Rust workspace.
# Needs a Rust toolchain and python3 (both on a fresh machine of this project's kind).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/check-layers.py --self-test
python3 scripts/check-layers.py
cargo test --workspace
