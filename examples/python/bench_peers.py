"""Side by side from Python, in one run: Stiction's `World.step`, MuJoCo's `mj_step` and
PyBullet's `stepSimulation` on S2 sphere-pile and S4 stack-20 (docs/scenes.md), each scene
built in each engine. A benchmark to run by hand, not a test.

    python examples/python/bench_peers.py [--rounds 3] [--scenes s2,s4]
        [--engines stiction,mujoco,pybullet]

Prints a markdown report (date, commit, CPU, versions, settings, one table) on stdout and
progress on stderr. `pip install mujoco pybullet` first; a missing peer is reported and
skipped.

- Same scenes: S2's 1000 spheres (radius 0.5 m, 1 kg, the jittered 10 x 10 x 10 grid) in the
  ground and four static walls 1 m thick, 10 m high, inner faces at x, y = +-7; S4's 20 unit
  cubes of 1 kg at z = 0.5 + i. g = 9.81, h = 1/60, 600 and 3000 steps, friction 0.5 on
  every contact, restitution 0, no damping, no sleeping. Stiction reads its built-in scene
  files (checked against the positions built here); the peers are built from the same
  numbers.
- Solvers: Stiction as its scene files say (S2: iterative, 20 sweeps; S4: both steppers);
  MuJoCo and PyBullet on their default solver settings, printed with the report, except
  MuJoCo's solver on S2 (CG, not Newton: see MUJOCO_SOLVER).
- Time: every step is timed alone with `time.perf_counter` (collision included, one Python
  call per step in every engine); a run's figure is the median of its steps, the table's the
  median over the rounds (their range in brackets), with the run's mean (total / steps)
  beside it. Engines are interleaved: each round builds and runs every engine on a scene,
  in an order rotated from round to round. Building and reading the state are not timed.
- Quality, as docs/scenes.md defines it and bench/peers/src/quality.rs computes it, from the
  body positions after the last step: S2, the deepest overlap of a sphere with the ground, a
  wall or another sphere; S4, the top box's horizontal drift and height error.
"""

import argparse
import datetime
import importlib.metadata
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import stiction

ROOT = Path(__file__).resolve().parents[2]
# The scenes in MuJoCo and PyBullet, and their quality figures, are shared with the
# work-precision benchmark (bench/peers/python/peer_scenes.py).
sys.path.insert(0, str(ROOT / "bench" / "peers" / "python"))
from peer_scenes import (  # noqa: E402
    H, MU, STEPS, SCENE_NAMES, MujocoRun, PybulletRun, describe, initial, mujoco_xml)
from peer_scenes import run_once as run_steps  # noqa: E402

STEPS = {k: STEPS[k] for k in ("s2", "s4")}


# ---------------------------------------------------------------- the engines


class StictionRun:
    def __init__(self, scene, solver):
        name = "s2-sphere-pile" if scene == "s2" else "s4-stack-20"
        self.world = stiction.World.from_scene(name, solver=solver)
        assert abs(self.world.timestep - H) < 1e-15
        self.rows = np.array([i for i, k in enumerate(self.world.body_kinds) if k == "dynamic"])
        start = self.read()
        # The built-in scene must be the scene the peers get.
        assert start.shape == initial(scene).shape
        assert np.abs(start - initial(scene)).max() < 1e-9, "scene file differs from docs"
        self.step = self.world.step

    def read(self):
        return self.world.positions()[self.rows]


# MuJoCo's default Newton solver factors an nv x nv Hessian (nv = 6000 for S2's 1000 free
# bodies) whose Cholesky fills in once the pile touches: on a 2-core VM its step grew past
# 5 s by step 140 of 600 (2000 contacts). S2 therefore runs CG, MuJoCo's Hessian-free
# solver for large models, with every other setting at its default; `--mujoco-s2-solver
# Newton` restores the default.
MUJOCO_SOLVER = {"s2": "CG", "s4": None}


def mujoco_settings():
    import mujoco

    o = mujoco.MjModel.from_xml_string(mujoco_xml("s4", MUJOCO_SOLVER["s4"])).opt
    name = lambda e: str(e).split("_", 1)[-1].lower()  # noqa: E731
    s2 = mujoco.MjModel.from_xml_string(mujoco_xml("s2", MUJOCO_SOLVER["s2"])).opt.solver
    s2 = name(mujoco.mjtSolver(s2))
    why = ""
    if s2 != "newton":
        why = (" (not the default: Newton, the default, factors a 6000 x 6000 Hessian that "
               "fills in as the pile forms; its step passed 5 s by step 140 of 600 on a "
               "2-core VM)")
    return (f"S4 solver {name(mujoco.mjtSolver(o.solver))} (the default), S2 solver {s2}"
            f"{why}; "
            f"{o.iterations} iterations, "
            f"tolerance {o.tolerance:g}, {o.ls_iterations} line-search iterations, cone "
            f"{name(mujoco.mjtCone(o.cone))}, jacobian {name(mujoco.mjtJacobian(o.jacobian))}, "
            f"integrator {name(mujoco.mjtIntegrator(o.integrator))}, noslip "
            f"{o.noslip_iterations}, default solref (0.02, 1) (MuJoCo raises a time constant "
            f"below 2h to 2h = 0.033 s) and solimp (0.9, 0.95, 0.001), margin 0, "
            f"friction ({MU}, 0.005, 0.0001) with condim 3 (sliding only), geoms' "
            f"inertia from mass=1, timestep 1/60; S2 with `<size memory=\"256M\"/>`")


def pybullet_settings():
    import pybullet as p

    c = p.connect(p.DIRECT)
    p.setTimeStep(H, physicsClientId=c)
    params = p.getPhysicsEngineParameters(physicsClientId=c)
    p.disconnect(physicsClientId=c)
    keys = ["numSolverIterations", "numSubSteps", "erp", "contactERP", "frictionERP",
            "useSplitImpulse", "splitImpulsePenetrationThreshold",
            "contactBreakingThreshold", "enableConeFriction", "deterministicOverlappingPairs",
            "solverResidualThreshold"]
    shown = ", ".join(f"{k} {params[k]:g}" for k in keys if k in params)
    return (f"DIRECT, setTimeStep(1/60), default engine parameters ({shown}); bodies from "
            f"createMultiBody without links (reduced coordinates; `pybullet-maximal`: "
            f"useMaximalCoordinates=True), lateral friction sqrt(0.5) on "
            f"every body (Bullet multiplies: 0.5 per contact), restitution 0, damping 0 "
            f"(default 0.04), sleeping disabled")


# ---------------------------------------------------------------- the runs


def engine_list(names):
    """(label, scene -> run or None) for each requested engine that is installed."""
    out, missing = [], []
    for name in names:
        if name == "stiction":
            out.append(("Stiction iterative",
                        lambda s: StictionRun(s, "iterative")))
            out.append(("Stiction exact", lambda s: StictionRun(s, "exact") if s == "s4" else None))
        elif name == "mujoco":
            try:
                import mujoco  # noqa: F401
            except ImportError as e:
                missing.append(f"mujoco ({e})")
                continue
            out.append(("MuJoCo mj_step", lambda s: MujocoRun(s, MUJOCO_SOLVER[s])))
        elif name in ("pybullet", "pybullet-maximal"):
            try:
                import pybullet  # noqa: F401  (prints its build time on stderr)
            except ImportError as e:
                missing.append(f"pybullet ({e})")
                continue
            if name == "pybullet":
                out.append(("PyBullet stepSimulation", PybulletRun))
            else:
                out.append(("PyBullet stepSimulation, maximal coordinates",
                            lambda s: PybulletRun(s, maximal=True)))
        else:
            raise SystemExit(f"unknown engine {name!r}")
    return out, missing


def run_once(make, scene):
    run = make(scene)
    return None if run is None else run_steps(run, scene)


def git(*args):
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def fmt_ms(v):
    return f"{v:.3g}" if v < 1 else f"{v:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenes", default="s2,s4")
    ap.add_argument("--engines", default="stiction,mujoco,pybullet",
                    help="comma-separated: stiction, mujoco, pybullet, pybullet-maximal")
    ap.add_argument("--mujoco-s2-solver", default="CG", choices=["Newton", "CG", "PGS"],
                    help="MuJoCo's solver on S2 (its default, Newton, takes seconds a step)")
    args = ap.parse_args()
    MUJOCO_SOLVER["s2"] = args.mujoco_s2_solver
    scenes = [s.strip() for s in args.scenes.split(",")]
    for s in scenes:
        if s not in STEPS:
            raise SystemExit(f"unknown scene {s!r}: s2 or s4")
    engines, missing = engine_list([e.strip() for e in args.engines.split(",")])

    results = {}  # (scene, label) -> list of run dicts
    started = time.perf_counter()
    for r in range(args.rounds):
        for scene in scenes:
            k = r % len(engines)
            for label, make in engines[k:] + engines[:k]:
                t0 = time.perf_counter()
                res = run_once(make, scene)
                if res is None:
                    continue
                results.setdefault((scene, label), []).append(res)
                print(f"round {r + 1}/{args.rounds} {scene} {label}: median "
                      f"{res['median']:.4f} ms/step, mean {res['mean']:.4f}, "
                      f"{describe(scene, res['quality'])} ({time.perf_counter() - t0:.1f} s)",
                      file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started

    dirty = " (with uncommitted changes)" if git("status", "--porcelain") else ""
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    versions = [f"stiction {version('stiction')}"]
    for dist in ("mujoco", "pybullet"):
        if version(dist):
            versions.append(f"{dist} {version(dist)}")
    command = " ".join(["examples/python/bench_peers.py", *sys.argv[1:]])
    print(f"Written by `{command}`: {now}, commit "
          f"{git('rev-parse', '--short', 'HEAD')}{dirty}.")
    print(f"Machine: {cpu_model()}, {os.cpu_count()} CPUs; Python "
          f"{platform.python_version()}; {', '.join(versions)}; Stiction's extension built by "
          f"maturin (release profile of the workspace).")
    print(f"Times are ms per step (wall time of one step call from Python, collision included):"
          f" the median over {args.rounds} rounds of each run's median step, the rounds' range "
          f"in brackets, and the mean over all steps of all rounds (total / steps). "
          f"Whole run: {elapsed:.0f} s.")
    if missing:
        print(f"Not installed, skipped: {', '.join(missing)}.")
    print()
    print("| scene | engine | ms/step, median (range) | ms/step, mean | quality at the last step |")
    print("| --- | --- | ---: | ---: | --- |")
    notes = []
    for scene in scenes:
        for label, _ in engines:
            runs = results.get((scene, label))
            if not runs:
                continue
            med = [x["median"] for x in runs]
            mean = sum(x["mean"] * x["done"] for x in runs) / max(1, sum(x["done"] for x in runs))
            descs = sorted({describe(scene, x["quality"]) for x in runs})
            q = descs[0] if len(descs) == 1 else " / ".join(descs) + " (rounds differ)"
            last = runs[-1]
            if last["done"] < STEPS[scene]:
                q += f" (after {last['done']} of {STEPS[scene]} steps; {last['stopped']})"
            for x in runs:
                for w in x["warnings"]:
                    notes.append(f"{SCENE_NAMES[scene]}, {label}: MuJoCo warning {w}")
            rng = f" ({fmt_ms(min(med))}-{fmt_ms(max(med))})" if len(med) > 1 else ""
            if label.startswith("MuJoCo"):
                label += f" ({MUJOCO_SOLVER[scene] or 'Newton'})"
            print(f"| {SCENE_NAMES[scene]} | {label} | {fmt_ms(statistics.median(med))}{rng} | "
                  f"{fmt_ms(mean)} | {q} |")
    print()
    print("Settings: Stiction from its built-in scenes `s2-sphere-pile` (iterative, 20 sweeps) "
          "and `s4-stack-20` (both steppers), ERP 0.2, CFM 1e-5 (docs/scenes.md).")
    if any(label.startswith("MuJoCo") for label, _ in engines):
        print(f"MuJoCo: {mujoco_settings()}.")
    if any(label.startswith("PyBullet") for label, _ in engines):
        print(f"PyBullet: {pybullet_settings()}.")
    for n in sorted(set(notes)):
        print(f"Note: {n}.")


if __name__ == "__main__":
    main()
