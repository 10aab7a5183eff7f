#!/usr/bin/env bash
# Every test of the repository: the layering rule of the engine, the Rust workspace, then the
# Python package built into target/python-venv and its pytest suite (which installs maturin,
# numpy, pytest and MuJoCo from PyPI). Needs a Rust toolchain and python3 with venv.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/check-layers.py --self-test
python3 scripts/check-layers.py
cargo test --workspace
STICTION_BIN="$PWD/target/debug/stiction" bash tests/python/run.sh
