"""Public robot models, fetched from the package registry (example-robot-data for URDF,
gymnasium's MuJoCo assets for MJCF; tests/python/run.sh installs both), loaded by
stiction and checked against independent references: Pinocchio's gravity torques and
MuJoCo's trajectories.

Without the packages the tests fail (set STICTION_SKIP_MODELS=1 to skip them on purpose):
a test that cannot fetch its model says so; it never passes silently."""

import math
import os
import pathlib
import re
import sysconfig
import tempfile

import numpy as np
import pytest

import stiction

SKIP = os.environ.get("STICTION_SKIP_MODELS") == "1"
PURELIB = pathlib.Path(sysconfig.get_paths()["purelib"])
ERD_SHARE = PURELIB / "cmeel.prefix/share"
ROBOTS = ERD_SHARE / "example-robot-data/robots"
GYM_ASSETS = PURELIB / "gymnasium/envs/mujoco/assets"
SEARCH = [ROBOTS, ERD_SHARE]


def need(path):
    """The model collection at `path`, failing (or skipping on request) when absent."""
    if not path.exists():
        message = f"{path} is missing: run tests/python/run.sh (it installs the model packages)"
        if SKIP:
            pytest.skip(message)
        pytest.fail(message)
    return path


def urdf_files():
    return sorted(ROBOTS.glob("*/*/*.urdf")) if ROBOTS.exists() else []


# The files of example-robot-data 6.0.0 that stiction refuses, and why (docs/models.md).
REFUSED = {
    "ur3.urdf": "an empty <robot> (the arm is in ur3_robot.urdf)",
}


@pytest.mark.parametrize("path", urdf_files(), ids=lambda p: p.name)
def test_every_example_robot_data_urdf_loads_or_is_refused_with_its_reason(path):
    need(ROBOTS)
    if path.name in REFUSED:
        with pytest.raises(stiction.ModelError) as refused:
            stiction.World.from_urdf(path, search_path=SEARCH)
        assert f"{path.name}:" in str(refused.value)
        return
    world = stiction.World.from_urdf(path, search_path=SEARCH)
    assert world.body_count >= 1
    assert all(": warning: " in w for w in world.model_warnings)


def test_the_survey_covers_the_collection():
    files = urdf_files()
    need(ROBOTS)
    assert len(files) >= 69, len(files)
    assert set(REFUSED) <= {p.name for p in files}


def pinocchio():
    try:
        import pinocchio as pin  # noqa: PLC0415
    except ImportError:
        if SKIP:
            pytest.skip("pinocchio (package pin) is not installed")
        pytest.fail("pinocchio (package pin) is not installed: run tests/python/run.sh")
    return pin


ARMS = {
    "ur5": "ur_description/urdf/ur5_robot.urdf",
    "panda": "panda_description/urdf/panda.urdf",
}


@pytest.mark.parametrize("arm", sorted(ARMS))
def test_held_arm_joint_torques_equal_pinocchio_gravity_torques(arm):
    """The arm held still by its joints: the holding motors' torques are the generalised
    gravity forces g(q) of Pinocchio's recursive Newton-Euler, at several poses."""
    pin = pinocchio()
    path = need(ROBOTS) / ARMS[arm]
    model = pin.buildModelFromUrdf(str(path))
    data = model.createData()
    model.gravity.linear = np.array([0.0, 0.0, -9.81])
    rng = np.random.default_rng(7)
    names = [model.names[i] for i in range(1, model.njoints)]
    worst = 0.0
    for _ in range(4):
        q = pin.neutral(model)
        values = {}
        for i, name in enumerate(names):
            joint = model.joints[i + 1]
            lo = model.lowerPositionLimit[joint.idx_q]
            hi = model.upperPositionLimit[joint.idx_q]
            lo, hi = max(lo, -2.5), min(hi, 2.5)
            q[joint.idx_q] = rng.uniform(lo, hi)
            values[name] = float(q[joint.idx_q])
        world = stiction.World.from_urdf(path, joints=values, hold=True, search_path=SEARCH)
        world.gravity = (0.0, 0.0, -9.81)
        # Pinocchio knows no contact: links touching at a random pose would load the joints.
        for i in range(world.collider_count):
            world.set_collider_enabled(i, False)
        # Rigid joints: with the default CFM the joints' anchors part by ~1e-7 m under
        # load, which moves the lever arms by a relative 1e-6.
        world.set_softness(cfm=0.0)
        # The holding motors are stiff velocity servos (their CFM): the arm sags by about
        # 1e-5 rad in the first steps and then holds still. Compare at the pose it holds.
        world.step(1e-3, n=300)
        held_q = world.joint_positions(names)
        assert np.max(np.abs(world.joint_velocities(names))) < 1e-8
        for i, name in enumerate(names):
            q[model.joints[i + 1].idx_q] = held_q[i]
        tau = pin.computeGeneralizedGravity(model, data, q)
        scale = max(abs(tau))
        for i, name in enumerate(names):
            held = float(world.joint_feedback(name).motor[0])
            expected = tau[model.joints[i + 1].idx_v]
            error = abs(held - expected) / scale
            worst = max(worst, error)
            assert error < 1e-6, f"{arm} {name}: {held} N m vs Pinocchio {expected} N m"
    print(f"{arm}: worst relative gravity-torque error {worst:.1e}")


def mujoco_module():
    try:
        import mujoco  # noqa: PLC0415
    except ImportError:
        if SKIP:
            pytest.skip("mujoco is not installed")
        pytest.fail("mujoco is not installed: run tests/python/run.sh")
    return mujoco


def test_double_pendulum_swings_like_mujoco():
    """example-robot-data's double pendulum released from rest at (1.0, -0.5) rad, no
    contact: the joint angles agree with MuJoCo's (RK4, h = 1e-4 s) over 1 s. Both load the
    same URDF; stiction steps at h = 1e-4 s (semi-implicit, first order)."""
    mujoco = mujoco_module()
    path = need(ROBOTS) / "double_pendulum_description/urdf/double_pendulum_simple.urdf"
    start = {"joint1": 1.0, "joint2": -0.5}
    h = 1e-4
    model = mujoco.MjModel.from_xml_path(str(path))
    model.opt.timestep = h
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    model.opt.gravity[:] = (0.0, 0.0, -9.81)
    data = mujoco.MjData(model)
    for name, value in start.items():
        data.joint(name).qpos[0] = value
    world = stiction.World.from_urdf(path, joints=start, timestep=h)
    world.gravity = (0.0, 0.0, -9.81)
    # The pendulum's links touch the base: contact is off in both engines.
    for i in range(world.collider_count):
        world.set_collider_enabled(i, False)
    worst = 0.0
    for step in range(1, 10001):
        mujoco.mj_step(model, data)
        world.step()
        if step % 100 == 0:
            ours = world.joint_positions(["joint1", "joint2"])
            theirs = np.array([data.joint(n).qpos[0] for n in ("joint1", "joint2")])
            # Our hinge angles are wrapped into (-pi, pi]; MuJoCo's are not.
            difference = np.angle(np.exp(1j * (ours - theirs)))
            worst = max(worst, float(np.max(np.abs(difference))))
    print(f"double pendulum: worst joint-angle difference over 1 s {worst:.1e} rad")
    assert worst < 2e-3, worst


def ur5_against_mujoco(mujoco, h, duration):
    """The UR5 released from rest at a bent pose, no contact, in both engines: the largest
    joint-angle difference (rad) over `duration` s, MuJoCo on RK4 at step `h`."""
    path = ROBOTS / ARMS["ur5"]
    text = path.read_text().replace("package://example-robot-data/robots/", f"{ROBOTS}/")
    header = '<mujoco><compiler strippath="false" discardvisual="true"/></mujoco>'
    text = re.sub(r"<robot([^>]*)>", lambda m: f"<robot{m.group(1)}>{header}", text, count=1)
    with tempfile.TemporaryDirectory() as tmp:
        urdf = pathlib.Path(tmp) / "ur5.urdf"
        urdf.write_text(text)
        model = mujoco.MjModel.from_xml_path(str(urdf))
    names = [model.joint(i).name for i in range(model.njnt)]
    model.opt.timestep = h
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    data = mujoco.MjData(model)
    start = dict(zip(names, [0.3, -0.5, 0.8, -0.2, 0.4, 0.1]))
    for name, value in start.items():
        data.joint(name).qpos[0] = value
    world = stiction.World.from_urdf(path, joints=start, timestep=h, search_path=SEARCH)
    for i in range(world.collider_count):
        world.set_collider_enabled(i, False)
    worst = 0.0
    steps = round(duration / h)
    for step in range(1, steps + 1):
        mujoco.mj_step(model, data)
        world.step()
        if step % (steps // 50) == 0:
            theirs = np.array([data.joint(n).qpos[0] for n in names])
            difference = np.angle(np.exp(1j * (world.joint_positions(names) - theirs)))
            worst = max(worst, float(np.max(np.abs(difference))))
    return worst


def test_ur5_falls_like_mujoco_and_converges_to_its_trajectory():
    """The UR5 swinging freely for 0.4 s: within 1e-3 rad of MuJoCo at h = 1e-4 s, and the
    difference shrinks (by 3 here) when the step halves: our stepping error is the difference."""
    mujoco = mujoco_module()
    need(ROBOTS)
    coarse = ur5_against_mujoco(mujoco, 1e-4, 0.4)
    fine = ur5_against_mujoco(mujoco, 5e-5, 0.4)
    print(f"ur5: worst joint-angle difference over 0.4 s {coarse:.1e} rad (h = 1e-4), {fine:.1e} (h = 5e-5)")
    assert coarse < 1e-3, coarse
    assert fine < 0.6 * coarse, (coarse, fine)


def test_panda_with_position_servos_holds_a_pose_on_a_table_for_ten_seconds():
    """The Panda on a 0.8 m table, every joint on a position servo holding a bent pose:
    over 10 s the hand moves less than 1 mm."""
    path = need(ROBOTS) / ARMS["panda"]
    pose = {
        "panda_joint1": 0.3,
        "panda_joint2": -0.4,
        "panda_joint4": -2.2,
        "panda_joint6": 1.9,
        "panda_joint7": 0.8,
    }
    world = stiction.World.from_urdf(
        path,
        position=(0.0, 0.0, 0.8),
        joints=pose,
        servo=(1e5, 2e3),
        search_path=SEARCH,
    )
    world.gravity = (0.0, 0.0, -9.81)
    world.add_collider("box", half_extents=(0.5, 0.5, 0.4), position=(0.2, 0.0, 0.4))
    hand = world.body_index("panda_hand")
    world.step(n=24)
    start = world.positions()[hand].copy()
    worst = 0.0
    for _ in range(10):
        world.step(n=240)
        worst = max(worst, float(np.linalg.norm(world.positions()[hand] - start)))
    print(f"panda: hand moved at most {worst * 1e3:.3f} mm over 10 s")
    assert worst < 1e-3, worst
    held = world.joint_positions([f"panda_joint{i}" for i in range(1, 8)])
    wanted = np.array([pose.get(f"panda_joint{i}", 0.0) for i in range(1, 8)])
    assert np.max(np.abs(held - wanted)) < 1e-3


def test_solo12_dropped_on_the_ground_stands_on_its_feet():
    """Solo12 (floating base, servos on its 12 joints holding a crouch) dropped from 5 cm
    above its feet: after 3 s it stands still, upright, on its four feet only."""
    path = need(ROBOTS) / "solo_description/robots/solo12.urdf"
    crouch = {}
    for leg in ("FL", "FR", "HL", "HR"):
        front = leg[0] == "F"
        crouch[f"{leg}_HFE"] = 0.8 if front else -0.8
        crouch[f"{leg}_KFE"] = -1.6 if front else 1.6
    # The feet are 0.2 m below the base in this crouch; 5 cm of air below them.
    world = stiction.World.from_urdf(
        path,
        base="floating",
        position=(0.0, 0.0, 0.25),
        joints=crouch,
        servo=(50.0, 1.0),
        search_path=SEARCH,
    )
    world.gravity = (0.0, 0.0, -9.81)
    world.add_collider("halfspace")
    base = world.body_index("base_link")
    lowest = min(world.positions()[world.body_index(f"{leg}_FOOT"), 2] for leg in ("FL", "FR", "HL", "HR"))
    assert 0.0 < lowest < 0.1, lowest
    world.step(n=720)  # 3 s
    positions = world.positions()
    assert np.all(np.isfinite(positions))
    height = positions[base, 2]
    assert 0.12 < height < 0.3, height
    # Upright: the base's z axis stays within 10 degrees of vertical.
    w, x, y, z = world.orientations()[base]
    up_z = 1.0 - 2.0 * (x * x + y * y)
    assert up_z > math.cos(math.radians(10.0)), up_z
    # Still, and standing on its legs: the ground touches only lower legs and feet (whose
    # hulls meet at the foot), never the base or the upper legs.
    assert np.linalg.norm(world.linear_velocities()[base]) < 0.02
    legs = {
        world.body_index(f"{leg}_{part}")
        for leg in ("FL", "FR", "HL", "HR")
        for part in ("FOOT", "LOWER_LEG")
    }
    touching = set(world.contacts().bodies.ravel().tolist())
    touching.discard(-1)
    assert touching and touching <= legs, touching


GYM_MODELS = ["ant", "half_cheetah", "hopper", "humanoid", "inverted_double_pendulum", "walker2d"]


@pytest.mark.parametrize("name", GYM_MODELS)
def test_gymnasium_mjcf_models_load_with_mujocos_masses_and_stay_together(name):
    """Gymnasium's MuJoCo models (MJCF with classes, several joints per body, motors,
    collision masks) load with MuJoCo's time step, gravity and every body's mass (from
    geoms and densities: equal to MuJoCo's to 1e-9), and run 1 s on their floor under the
    exact stepper without coming apart (joint anchors within 1e-4 m) or sinking."""
    mujoco = mujoco_module()
    path = need(GYM_ASSETS) / f"{name}.xml"
    world = stiction.World.from_mjcf(path)
    model = mujoco.MjModel.from_xml_path(str(path))
    assert world.timestep == pytest.approx(model.opt.timestep)
    assert tuple(world.gravity) == pytest.approx(tuple(model.opt.gravity))
    masses = world.masses()
    compared = 0
    for index, body in enumerate(world.body_names):
        # Bodies with several joints are chains: "torso/rootx" links are the importer's.
        unnamed = body is None or body not in {model.body(i).name for i in range(model.nbody)}
        if unnamed or "/" in body or not math.isfinite(masses[index]):
            continue
        theirs = model.body(body).mass[0]
        assert masses[index] == pytest.approx(theirs, rel=1e-9), body
        compared += 1
    assert compared >= 3
    world.step(n=round(1.0 / world.timestep))
    positions = world.positions()
    assert np.all(np.isfinite(positions))
    assert world.max_joint_separation() < 1e-4
    moving = np.isfinite(masses)
    assert np.min(positions[moving, 2]) > -0.05


def test_menagerie_is_fetched_when_the_network_allows():
    """mujoco-menagerie's pip package downloads models from GitHub, which this machine's
    network does not reach: the test says so and skips (the gymnasium models above are
    the MJCF collection then)."""
    try:
        import mujoco_menagerie  # noqa: PLC0415, F401
    except ImportError:
        pytest.skip("mujoco-menagerie is not installed (its models come from GitHub)")
    try:
        path = mujoco_menagerie.get("franka_emika_panda")  # noqa: F821
    except Exception as e:  # noqa: BLE001 - any fetch failure is reported as such
        pytest.skip(f"mujoco-menagerie could not fetch franka_emika_panda: {e}")
    world = stiction.World.from_mjcf(path)
    assert world.body_count > 5
