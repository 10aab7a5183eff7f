#!/usr/bin/env bash
# Builds the `stiction` Python package into target/python-venv and runs the pytest suite.
#
#   bash tests/python/run.sh            # build (incrementally) and test
#   bash tests/python/run.sh -k lcp     # extra arguments go to pytest
#
# STICTION_PYTHON picks the interpreter that makes the venv (default: python3). MuJoCo is
# installed from PyPI for the reference tests (tests/python/test_mujoco.py); set
# STICTION_SKIP_MUJOCO=1 to skip that install (the tests then skip themselves). Ray is
# installed for tests/python/test_ray.py (STICTION_SKIP_RAY=1 skips both).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="$root/target/python-venv"
python="${STICTION_PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
# As if activated: the maturin build backend runs the `maturin` executable from PATH.
export PATH="$venv/bin:$PATH" VIRTUAL_ENV="$venv"
"$venv/bin/python" -m pip install --quiet "maturin>=1.9.4,<2" numpy pytest
if [ "${STICTION_SKIP_MUJOCO:-0}" != 1 ]; then
    "$venv/bin/python" -m pip install --quiet mujoco
fi
# Public robot models and the reference rigid-body library for tests/python/test_robot_models.py:
# example-robot-data (URDF, 130 MB), gymnasium (its MuJoCo MJCF assets), pin (Pinocchio).
# Set STICTION_SKIP_MODELS=1 to skip them (those tests then skip themselves).
if [ "${STICTION_SKIP_MODELS:-0}" != 1 ]; then
    "$venv/bin/python" -m pip install --quiet example-robot-data gymnasium pin
fi
# Ray, for stiction.ray's cluster test (tests/python/test_ray.py starts a local two-node
# cluster); set STICTION_SKIP_RAY=1 to skip the install and that test.
if [ "${STICTION_SKIP_RAY:-0}" != 1 ]; then
    "$venv/bin/python" -m pip install --quiet "ray>=2.9"
fi
# --no-build-isolation: build with the maturin installed above (no fresh download per run);
# the Rust build reuses the workspace's target/ directory.
"$venv/bin/python" -m pip install --quiet --no-build-isolation --force-reinstall --no-deps "$root/crates/python"
cd "$root"
"$venv/bin/python" -m pytest tests/python -q "$@"
