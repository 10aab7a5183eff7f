"""docs/scenes.md's S1, S2 and S4 built in MuJoCo and PyBullet from the same numbers as
bench/peers/src/spec.rs, with each engine's accuracy knob exposed, and one run of one
(engine, scene, knob) point timed and scored: the Python half of the work-precision
benchmark (`stiction-peers --pareto`, bench/peers/src/pareto.rs), also used by
examples/python/bench_peers.py.

    python peer_scenes.py --engine mujoco --scene s1 [--solver PGS] [--iterations 10]
        [--budget 30] [--slow-step 1.0]

prints one JSON object: median ms/step, steps done and planned, why the run stopped (if it
did), the quality figures and the scene's error figure (`error`). Needs numpy and the
engine's package (`pip install mujoco pybullet`).
"""

import argparse
import gc
import json
import math
import sys
import time

import numpy as np

H = 1.0 / 60.0
G = 9.81
MU = 0.5
RADIUS = 0.5
SPACING = 1.2
WALL_INNER = 7.0
WALL_THICKNESS = 1.0
WALL_HEIGHT = 10.0
PYRAMID_ROWS = 20
STEPS = {"s1": 600, "s2": 600, "s4": 3000}
SCENE_NAMES = {"s1": "S1 pyramid-20", "s2": "S2 sphere-pile", "s4": "S4 stack-20"}


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
    """S4's unit cubes, bottom first."""
    return np.array([(0.0, 0.0, 0.5 + i) for i in range(count)])


def pyramid_centres(rows=PYRAMID_ROWS):
    """S1's unit cubes, bottom row first, left to right (the top box last)."""
    out = []
    for k in range(rows):
        count = rows - k
        for i in range(count):
            out.append(((i - 0.5 * (count - 1)), 0.0, 0.5 + k))
    return np.array(out)


def initial(scene):
    return {"s1": pyramid_centres, "s2": pile_centres, "s4": stack_centres}[scene]()


def quality(scene, start, end):
    """The scene's quality figures from positions in scene order."""
    if scene == "s1":
        return {"displacement": float(np.linalg.norm(end[-1] - start[-1]))}
    if scene == "s4":
        d = end[-1] - start[-1]
        return {"drift": math.hypot(d[0], d[1]), "height_error": float(d[2])}
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


def error(scene, q):
    """The one error figure of the work-precision plots, as bench/peers/src/quality.rs's
    `Quality::error`: S1 the top box's displacement, S2 the deepest penetration (infinite
    if a sphere escaped), S4 the top box's displacement (drift and sink together)."""
    if scene == "s1":
        return q["displacement"]
    if scene == "s4":
        return math.hypot(q["drift"], q["height_error"])
    return math.inf if q["escaped"] else q["max_penetration"]


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
    if scene == "s1":
        return f"top box moved {metres(q['displacement'])}"
    if scene == "s4":
        return f"top drift {metres(q['drift'])}, height error {metres(q['height_error'])}"
    s = f"max penetration {metres(q['max_penetration'])}"
    if q["escaped"]:
        s += f", {q['escaped']} spheres escaped"
    return s


# ---------------------------------------------------------------- the engines


def mujoco_xml(scene, solver=None, iterations=None):
    """MJCF of the scene: MuJoCo's default settings but for `solver` and `iterations` when
    given; friction 0.5 (condim 3: sliding only)."""
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
    # Room for S2's ~2,600 contacts and S1's ~1,000 (a precaution: the default arena was not
    # tried).
    size = '<size memory="256M"/>' if scene in ("s1", "s2") else ""
    options = f' solver="{solver}"' if solver else ""
    if iterations is not None:
        options += f' iterations="{int(iterations)}"'
    return f"""<mujoco model="{scene}">
  <option timestep="{H!r}" gravity="0 0 -{G}"{options}/>
  {size}
  <default><geom friction="{MU} 0.005 0.0001"/></default>
  <worldbody>
    <geom type="plane" size="0 0 1"/>
    {''.join(walls)}
    {''.join(bodies)}
  </worldbody>
</mujoco>"""


class MujocoRun:
    def __init__(self, scene, solver=None, iterations=None):
        import mujoco

        self.mujoco = mujoco
        self.model = mujoco.MjModel.from_xml_string(mujoco_xml(scene, solver, iterations))
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


class PybulletRun:
    def __init__(self, scene, maximal=False, iterations=None):
        import pybullet as p

        self.p = p
        self.cid = c = p.connect(p.DIRECT)
        p.resetSimulation(physicsClientId=c)
        p.setGravity(0, 0, -G, physicsClientId=c)
        p.setTimeStep(H, physicsClientId=c)
        if iterations is not None:
            p.setPhysicsEngineParameter(numSolverIterations=int(iterations), physicsClientId=c)
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


# ---------------------------------------------------------------- one timed run


def run_once(run, scene, budget=math.inf, slow_step=math.inf):
    """Steps `run` through the scene's steps, each timed alone, until `budget` seconds have
    passed or one step took longer than `slow_step` seconds; a raised step ends the run."""
    start = run.read()
    steps = STEPS[scene]
    times = np.empty(steps)
    clock = time.perf_counter
    step = run.step
    done, stopped = 0, None
    began = clock()
    gc.collect()
    gc.disable()
    try:
        for i in range(steps):
            t0 = clock()
            step()
            t1 = clock()
            times[i] = t1 - t0
            done = i + 1
            if done < steps and t1 - t0 > slow_step:
                stopped = f"stopped after step {done}: one step took {t1 - t0:.1f} s"
                break
            if done < steps and t1 - began > budget:
                stopped = f"stopped after {done} steps: {budget:.0f} s budget"
                break
    except Exception as e:  # a refused step ends the run, reported
        stopped = f"step {done + 1} failed: {e}"
    finally:
        gc.enable()
    times = times[:done]
    end = run.read()
    extra = run.warnings() if hasattr(run, "warnings") else []
    if hasattr(run, "close"):
        run.close()
    q = quality(scene, start, end)
    return {"median": float(np.median(times)) * 1e3 if done else float("nan"),
            "mean": float(times.mean()) * 1e3 if done else float("nan"),
            "done": done, "planned": steps, "stopped": stopped, "quality": q,
            "describe": describe(scene, q), "error": error(scene, q), "warnings": extra}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", required=True, choices=["mujoco", "pybullet"])
    ap.add_argument("--scene", required=True, choices=sorted(STEPS))
    ap.add_argument("--solver", choices=["PGS", "CG", "Newton"],
                    help="MuJoCo's solver (default: its default, Newton)")
    ap.add_argument("--iterations", type=int,
                    help="MuJoCo's solver iterations or PyBullet's numSolverIterations")
    ap.add_argument("--budget", type=float, default=math.inf, help="seconds for the run")
    ap.add_argument("--slow-step", type=float, default=math.inf,
                    help="stop after a step that took longer than this, s")
    args = ap.parse_args()
    if args.iterations is not None and args.iterations < 1:
        ap.error("--iterations must be at least 1")
    if args.engine == "mujoco":
        run = MujocoRun(args.scene, args.solver, args.iterations)
    else:
        if args.solver:
            ap.error("--solver is MuJoCo's")
        run = PybulletRun(args.scene, iterations=args.iterations)
    result = run_once(run, args.scene, args.budget, args.slow_step)
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
