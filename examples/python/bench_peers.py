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
import gc
import importlib.metadata
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import stiction

H = 1.0 / 60.0
G = 9.81
MU = 0.5
RADIUS = 0.5
SPACING = 1.2
WALL_INNER = 7.0
WALL_THICKNESS = 1.0
WALL_HEIGHT = 10.0
STEPS = {"s2": 600, "s4": 3000}
SCENE_NAMES = {"s2": "S2 sphere-pile", "s4": "S4 stack-20"}
ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- the scenes' numbers


def pile_centres(side=10, layers=10):
    """S2's sphere centres in scene order (crates/engine/src/scenes.rs::sphere_pile)."""

    def jitter(n, c):
        return ((n * 7919 + c * 104729 + 17) % 2001) / 1000.0 - 1.0

    offset = 0.5 * (side - 1)
    out = []
    for k in range(layers):
        for j in range(side):
            for i in range(side):
                n = i + side * j + side * side * k
                out.append(((i - offset) * SPACING + 0.05 * jitter(n, 0),
                            (j - offset) * SPACING + 0.05 * jitter(n, 1),
                            1.0 + SPACING * k))
    return np.array(out)


def pile_walls():
    """S2's four static walls as (centre, half extents)."""
    half_length = WALL_INNER + WALL_THICKNESS
    c = WALL_INNER + 0.5 * WALL_THICKNESS
    hh = 0.5 * WALL_HEIGHT
    t = 0.5 * WALL_THICKNESS
    return [((c, 0, hh), (t, half_length, hh)), ((-c, 0, hh), (t, half_length, hh)),
            ((0, c, hh), (half_length, t, hh)), ((0, -c, hh), (half_length, t, hh))]


def stack_centres(count=20):
    return np.array([(0.0, 0.0, 0.5 + i) for i in range(count)])


def initial(scene):
    return pile_centres() if scene == "s2" else stack_centres()


def quality(scene, start, end):
    """The scene's quality figures from positions in scene order."""
    if scene == "s4":
        d = end[-1] - start[-1]
        return {"drift": math.hypot(d[0], d[1]), "height_error": d[2]}
    r = RADIUS
    deepest = max(0.0, float(np.max(r - end[:, 2])),
                  float(np.max(r - (WALL_INNER - np.abs(end[:, 0])))),
                  float(np.max(r - (WALL_INNER - np.abs(end[:, 1])))))
    diff = end[:, None, :] - end[None, :, :]
    dist = np.sqrt((diff**2).sum(-1))
    iu = np.triu_indices(len(end), 1)
    deepest = max(deepest, float(np.max(2 * r - dist[iu])))
    escaped = int(np.sum((end[:, 2] < 0) | (np.abs(end[:, 0]) > WALL_INNER)
                         | (np.abs(end[:, 1]) > WALL_INNER)))
    return {"max_penetration": deepest, "escaped": escaped}


def metres(v):
    """A length with a readable unit, as bench/peers/src/quality.rs::metres."""
    a = abs(v)
    if not math.isfinite(v):
        return f"{v}"
    if a >= 1.0:
        return f"{v:.2f} m"
    if a >= 1e-3:
        return f"{v * 1e3:.2f} mm"
    if a >= 1e-6:
        return f"{v * 1e6:.2f} µm"
    return f"{v:.1e} m"


def describe(scene, q):
    if scene == "s4":
        return f"top drift {metres(q['drift'])}, height error {metres(q['height_error'])}"
    s = f"max penetration {metres(q['max_penetration'])}"
    if q["escaped"]:
        s += f", {q['escaped']} spheres escaped"
    return s


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


def mujoco_xml(scene):
    """MJCF of the scene: default solver settings except MUJOCO_SOLVER; friction 0.5
    (condim 3: sliding only)."""
    bodies = []
    if scene == "s2":
        geom = f'<geom type="sphere" size="{RADIUS}" mass="1"/>'
    else:
        geom = '<geom type="box" size="0.5 0.5 0.5" mass="1"/>'
    for x, y, z in initial(scene):
        pos = " ".join(repr(float(v)) for v in (x, y, z))
        bodies.append(f'<body pos="{pos}"><freejoint/>{geom}</body>')
    walls = []
    if scene == "s2":
        for (cx, cy, cz), (hx, hy, hz) in pile_walls():
            walls.append(f'<geom type="box" pos="{cx} {cy} {cz}" size="{hx} {hy} {hz}"/>')
    # Room for S2's ~2,600 contacts (a precaution: the default arena was not tried).
    size = '<size memory="256M"/>' if scene == "s2" else ""
    solver = f' solver="{MUJOCO_SOLVER[scene]}"' if MUJOCO_SOLVER[scene] else ""
    return f"""<mujoco model="{scene}">
  <option timestep="{H!r}" gravity="0 0 -{G}"{solver}/>
  {size}
  <default><geom friction="{MU} 0.005 0.0001"/></default>
  <worldbody>
    <geom type="plane" size="0 0 1"/>
    {''.join(walls)}
    {''.join(bodies)}
  </worldbody>
</mujoco>"""


class MujocoRun:
    def __init__(self, scene):
        import mujoco

        self.mujoco = mujoco
        self.model = mujoco.MjModel.from_xml_string(mujoco_xml(scene))
        self.data = mujoco.MjData(self.model)
        mujoco.mj_forward(self.model, self.data)
        self.ids = np.arange(1, self.model.nbody)
        assert len(self.ids) == len(initial(scene))
        m, d = self.model, self.data
        step = mujoco.mj_step
        self.step = lambda: step(m, d)

    def read(self):
        return self.data.xpos[self.ids].copy()

    def warnings(self):
        w = self.data.warning
        names = [str(self.mujoco.mjtWarning(i)).split(".")[-1] for i in range(len(w))]
        return [f"{n} x{w[i].number}" for i, n in enumerate(names) if w[i].number]

    @staticmethod
    def settings():
        import mujoco

        o = mujoco.MjModel.from_xml_string(mujoco_xml("s4")).opt
        name = lambda e: str(e).split("_", 1)[-1].lower()  # noqa: E731
        s2 = mujoco.MjModel.from_xml_string(mujoco_xml("s2")).opt.solver
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


class PybulletRun:
    def __init__(self, scene, maximal=False):
        import pybullet as p

        self.p = p
        self.cid = c = p.connect(p.DIRECT)
        p.resetSimulation(physicsClientId=c)
        p.setGravity(0, 0, -G, physicsClientId=c)
        p.setTimeStep(H, physicsClientId=c)
        flags = {"useMaximalCoordinates": True} if maximal else {}
        # Bullet multiplies the two surfaces' coefficients: sqrt(0.5) on every surface
        # gives 0.5 on every contact, the ground and walls included.
        mu = math.sqrt(MU)
        statics = [p.createMultiBody(0, p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c),
                                     physicsClientId=c)]
        if scene == "s2":
            for centre, half in pile_walls():
                shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=half, physicsClientId=c)
                statics.append(p.createMultiBody(0, shape, basePosition=centre,
                                                 physicsClientId=c))
            shape = p.createCollisionShape(p.GEOM_SPHERE, radius=RADIUS, physicsClientId=c)
        else:
            shape = p.createCollisionShape(p.GEOM_BOX, halfExtents=[0.5] * 3, physicsClientId=c)
        self.ids = [p.createMultiBody(1.0, shape, basePosition=list(x), physicsClientId=c,
                                      **flags) for x in initial(scene)]
        for b in statics + self.ids:
            # docs/scenes.md: undamped (PyBullet's default is 0.04), never asleep.
            p.changeDynamics(b, -1, lateralFriction=mu, restitution=0.0, linearDamping=0.0,
                             angularDamping=0.0,
                             activationState=p.ACTIVATION_STATE_DISABLE_SLEEPING,
                             physicsClientId=c)
        step = p.stepSimulation
        self.step = lambda: step(physicsClientId=c)

    def read(self):
        get = self.p.getBasePositionAndOrientation
        return np.array([get(b, physicsClientId=self.cid)[0] for b in self.ids])

    def close(self):
        self.p.disconnect(physicsClientId=self.cid)

    @staticmethod
    def settings():
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
            out.append(("MuJoCo mj_step", MujocoRun))
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
    if run is None:
        return None
    start = run.read()
    steps = STEPS[scene]
    times = np.empty(steps)
    clock = time.perf_counter
    step = run.step
    done, failure = 0, None
    gc.collect()
    gc.disable()
    try:
        for i in range(steps):
            t0 = clock()
            step()
            times[i] = clock() - t0
            done = i + 1
    except Exception as e:  # a refused step (stiction.StepError) ends the run, reported
        failure = f"step {done + 1} failed: {e}"
    finally:
        gc.enable()
    times = times[:done]
    end = run.read()
    extra = run.warnings() if hasattr(run, "warnings") else []
    if hasattr(run, "close"):
        run.close()
    return {"median": float(np.median(times)) * 1e3 if done else float("nan"),
            "mean": float(times.mean()) * 1e3 if done else float("nan"),
            "done": done, "failure": failure, "quality": quality(scene, start, end),
            "warnings": extra}


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
                q += f" (after {last['done']} of {STEPS[scene]} steps; {last['failure']})"
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
        print(f"MuJoCo: {MujocoRun.settings()}.")
    if any(label.startswith("PyBullet") for label, _ in engines):
        print(f"PyBullet: {PybulletRun.settings()}.")
    for n in sorted(set(notes)):
        print(f"Note: {n}.")


if __name__ == "__main__":
    main()
