"""Robot models side by side from Python: load times of the UR5 and the Panda with their
meshes, and Solo12 (12 joints, floating base, position servos holding a crouch) standing on
the ground, ms/step in Stiction and in MuJoCo on the same URDF. A benchmark to run by hand,
not a test.

    python examples/python/bench_models.py [--rounds 3] [--steps 2000]

Needs `pip install example-robot-data mujoco` (tests/python/run.sh installs them in its
venv). Prints a markdown report on stdout.

- Same model: MuJoCo compiles solo12.urdf itself (mesh paths made absolute, a floating
  joint on the base, which its reader makes a free joint); the compiled model gets a ground
  plane and position actuators of the same
  gains as Stiction's servos (kp 50 N m/rad, kv 1 N m s/rad); both start in the same crouch
  5 cm above the ground, h = 1 ms, and are timed after 1 s of settling. MuJoCo runs its
  default solver (Newton, pyramidal cones) with the `implicitfast` integrator (with its
  default Euler the actuators' damping is explicit and the robot blows up within 0.5 s at
  these link inertias; Stiction's servos are implicit constraint rows) and collides the
  links' meshes as convex hulls, as Stiction does.
- Time: the median of per-step `time.perf_counter` intervals, then the median over rounds.
"""

import argparse
import datetime
import pathlib
import platform
import re
import statistics
import subprocess
import sysconfig
import tempfile
import time

import numpy as np

import stiction

ROBOTS = pathlib.Path(sysconfig.get_paths()["purelib"]) / "cmeel.prefix/share/example-robot-data/robots"
SEARCH = [ROBOTS, ROBOTS.parent.parent]
KP, KV = 50.0, 1.0
H = 1e-3


def crouch():
    q = {}
    for leg in ("FL", "FR", "HL", "HR"):
        front = leg[0] == "F"
        q[f"{leg}_HFE"] = 0.8 if front else -0.8
        q[f"{leg}_KFE"] = -1.6 if front else 1.6
    return q


def load_time(path, rounds):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        stiction.World.from_urdf(path, search_path=SEARCH)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def median_step(step, n):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def stiction_solo(steps, solver):
    path = ROBOTS / "solo_description/robots/solo12.urdf"
    world = stiction.World.from_urdf(
        path, base="floating", position=(0, 0, 0.25), joints=crouch(), servo=(KP, KV),
        search_path=SEARCH, timestep=H,
    )
    world.add_collider("halfspace")
    world.set_solver(solver)
    world.step(n=1000)
    ms = median_step(world.step, steps) * 1e3
    base = world.body_index("base_link")
    return ms, float(world.positions()[base, 2])


def mujoco_solo(steps):
    import mujoco  # noqa: PLC0415

    text = (ROBOTS / "solo_description/robots/solo12.urdf").read_text()
    text = text.replace("package://example-robot-data/robots/", f"{ROBOTS}/")
    # A floating joint from a world link: MuJoCo's URDF reader makes it a free joint.
    header = (
        '<mujoco><compiler strippath="false" discardvisual="true" balanceinertia="true"/></mujoco>'
        '<link name="mj_world"/><joint name="root" type="floating">'
        '<parent link="mj_world"/><child link="base_link"/></joint>'
    )
    text = re.sub(r"<robot([^>]*)>", lambda m: f"<robot{m.group(1)}>{header}", text, count=1)
    with tempfile.TemporaryDirectory() as tmp:
        urdf = pathlib.Path(tmp) / "solo12.urdf"
        urdf.write_text(text)
        model = mujoco.MjModel.from_xml_path(str(urdf))
        saved = pathlib.Path(tmp) / "solo12.xml"
        mujoco.mj_saveLastXML(str(saved), model)
        xml = saved.read_text()
    # A floor and position actuators on the 12 joints.
    xml = xml.replace("<worldbody>", '<worldbody><geom name="floor" type="plane" size="5 5 0.1"/>', 1)
    joints = [f"{leg}_{j}" for leg in ("FL", "FR", "HL", "HR") for j in ("HAA", "HFE", "KFE")]
    actuators = "".join(f'<position joint="{j}" kp="{KP}" kv="{KV}"/>' for j in joints)
    xml = xml.replace("</mujoco>", f"<actuator>{actuators}</actuator></mujoco>")
    model = mujoco.MjModel.from_xml_string(xml)
    model.opt.timestep = H
    # With the default Euler integrator the actuators' kv is explicit, and at these link
    # inertias (1e-5 kg m^2) it is unstable: the robot blows up within 0.5 s.
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    data = mujoco.MjData(model)
    data.joint("root").qpos[:3] = (0, 0, 0.25)
    q = crouch()
    for i, j in enumerate(joints):
        value = q.get(j, 0.0)
        data.joint(j).qpos[0] = value
        data.ctrl[i] = value
    for _ in range(1000):
        mujoco.mj_step(model, data)
    ms = median_step(lambda: mujoco.mj_step(model, data), steps) * 1e3
    return ms, float(data.joint("root").qpos[2]), mujoco.__version__


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), platform.processor())
    print(f"Robot models, {datetime.date.today()}, commit {commit}, {cpu}\n")
    print("| model | load (ms, median of 5) |\n| --- | ---: |")
    for name in ("ur_description/urdf/ur5_robot.urdf", "panda_description/urdf/panda.urdf",
                 "solo_description/robots/solo12.urdf"):
        print(f"| {pathlib.Path(name).name} | {load_time(ROBOTS / name, 5) * 1e3:.1f} |")
    rows = {"stiction exact": [], "stiction iterative": [], "mujoco": []}
    heights = {}
    version = "?"
    for _ in range(args.rounds):
        for solver in ("exact", "iterative"):
            ms, z = stiction_solo(args.steps, solver)
            rows[f"stiction {solver}"].append(ms)
            heights[f"stiction {solver}"] = z
        ms, z, version = mujoco_solo(args.steps)
        rows["mujoco"].append(ms)
        heights["mujoco"] = z
    print(f"\nSolo12 standing on servos (kp {KP}, kv {KV}), h = 1 ms, median ms/step over "
          f"{args.steps} steps after 1 s, median of {args.rounds} rounds; MuJoCo {version}\n")
    print("| engine | ms/step | base height (m) |\n| --- | ---: | ---: |")
    for name, values in rows.items():
        print(f"| {name} | {statistics.median(values):.3f} | {heights[name]:.3f} |")


if __name__ == "__main__":
    main()
