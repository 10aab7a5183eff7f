"""The work-precision benchmark's peer scenes (bench/peers/python/peer_scenes.py) are the
scenes Stiction runs: S1, S2 and S4 built in MuJoCo start where Stiction's built-in scene
files start, the error figures are the ones BENCHMARKS.md defines, and a run that exceeds
its budget says so. Skipped only with STICTION_SKIP_MUJOCO=1 (as test_mujoco.py)."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import stiction

if os.environ.get("STICTION_SKIP_MUJOCO") == "1":
    pytest.skip("STICTION_SKIP_MUJOCO=1", allow_module_level=True)

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "peers" / "python" / "peer_scenes.py"
sys.path.insert(0, str(SCRIPT.parent))
import peer_scenes  # noqa: E402

SCENE_FILES = {"s1": "s1-pyramid-20", "s2": "s2-sphere-pile", "s4": "s4-stack-20"}


def stiction_start(scene):
    world = stiction.World.from_scene(SCENE_FILES[scene])
    rows = [i for i, k in enumerate(world.body_kinds) if k == "dynamic"]
    return world.positions()[rows]


@pytest.mark.parametrize("scene", ["s1", "s2", "s4"])
def test_mujoco_scene_starts_where_stiction_scene_starts(scene):
    run = peer_scenes.MujocoRun(scene, "CG", 5)
    theirs = run.read()
    ours = stiction_start(scene)
    assert theirs.shape == ours.shape == (len(peer_scenes.initial(scene)), 3)
    # Same bodies in the same order (the top box last in S1 and S4).
    assert np.abs(theirs - ours).max() < 1e-9
    assert run.model.opt.iterations == 5
    assert run.model.opt.solver == 1  # mjSOL_CG


def test_error_figures():
    start = peer_scenes.stack_centres()
    end = start.copy()
    end[-1] += (0.003, 0.0, -0.004)
    q = peer_scenes.quality("s4", start, end)
    assert q["drift"] == pytest.approx(0.003) and q["height_error"] == pytest.approx(-0.004)
    assert peer_scenes.error("s4", q) == pytest.approx(0.005)
    pile = peer_scenes.pile_centres()
    pile[0, 2] = 0.4  # 10 cm into the ground
    q = peer_scenes.quality("s2", pile, pile)
    assert q["max_penetration"] == pytest.approx(0.1) and q["escaped"] == 0
    pile[1, 2] = -1.0
    assert math.isinf(peer_scenes.error("s2", peer_scenes.quality("s2", pile, pile)))
    top = peer_scenes.pyramid_centres()
    assert len(top) == 210 and tuple(top[-1]) == (0.0, 0.0, 19.5)


def test_a_point_run_prints_json_and_respects_its_budget():
    # MuJoCo's S4 at 2 PGS iterations: fast, and the JSON carries what pareto.rs reads.
    out = subprocess.run([sys.executable, str(SCRIPT), "--engine", "mujoco", "--scene", "s4",
                          "--solver", "PGS", "--iterations", "2", "--budget", "0.05"],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["planned"] == 3000
    assert 0 < result["done"] < 3000
    assert result["stopped"].startswith(f"stopped after {result['done']} steps")
    assert result["median"] > 0 and math.isfinite(result["error"])
    bad = subprocess.run([sys.executable, str(SCRIPT), "--engine", "mujoco", "--scene", "s4",
                          "--iterations", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "at least 1" in bad.stderr
