"""The Python package and the `stiction` command step a scene to the same bits.

`stiction run` writes trajectory.csv with every number in Rust's shortest round-trip form,
so parsing it back gives the exact f64 the engine computed. Needs the command: the binary
named by $STICTION_BIN, or target/release/stiction, or target/debug/stiction (built by
`cargo build` / `cargo test`); fails if none exists, as a skipped test would hide it.
"""

import csv
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import stiction

ROOT = Path(__file__).resolve().parents[2]


def stiction_binary():
    named = os.environ.get("STICTION_BIN")
    if named:
        return str(Path(named).resolve())
    # The most recently built of the two profiles: an older one may predate engine changes.
    built = [ROOT / "target" / profile / "stiction" for profile in ("release", "debug")]
    built = [b for b in built if b.is_file() and os.access(b, os.X_OK)]
    if not built:
        pytest.fail("no stiction binary (set STICTION_BIN or run cargo build)")
    return str(max(built, key=lambda b: b.stat().st_mtime))


@pytest.mark.parametrize("scene, steps", [("pendulum", 240), ("newtons-cradle", 240)])
def test_python_trajectory_is_bit_identical_to_stiction_run(tmp_path, scene, steps):
    binary = stiction_binary()
    out = tmp_path / "run"
    subprocess.run(
        [binary, "run", scene, "--steps", str(steps), "--out", str(out), "--quiet"],
        check=True,
        cwd=tmp_path,
    )
    rows = {}
    with open(out / "trajectory.csv") as f:
        for row in csv.DictReader(f):
            rows[(int(row["step"]), row["body"])] = row

    world = stiction.World.from_scene(scene)
    names = world.body_names
    columns = ["x", "y", "z", "qw", "qx", "qy", "qz", "vx", "vy", "vz", "wx", "wy", "wz"]
    compared = 0
    for step in range(steps + 1):
        if step > 0:
            world.step()
        state = np.hstack(
            [world.positions(), world.orientations(), world.linear_velocities(), world.angular_velocities()]
        )
        for i, name in enumerate(names):
            row = rows.get((step, name))
            if row is None:
                continue
            theirs = np.array([float(row[c]) for c in columns])
            assert np.array_equal(state[i], theirs), (scene, step, name, state[i], theirs)
            assert float(row["time"]) == world.time
            compared += 1
    assert compared >= steps
