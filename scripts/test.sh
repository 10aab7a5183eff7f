#!/usr/bin/env bash
# Every test of the repository: the layering rule of the engine, the Rust workspace, the
# Python package built into target/python-venv and its pytest suite (which installs maturin,
# numpy, pytest, MuJoCo, Pinocchio and the public robot models from PyPI), then the viewer in
# headless Chromium (tests/browser/run.sh installs Debian's chromium and playwright-core when
# missing). Needs a Rust toolchain, python3 with venv, and node/npm (installed if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/check-layers.py --self-test
python3 scripts/check-layers.py
cargo test --workspace
STICTION_BIN="$PWD/target/debug/stiction" bash tests/python/run.sh
bash tests/browser/run.sh
