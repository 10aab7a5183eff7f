"""stiction.World: building, stepping, state arrays, contacts, joints, statistics, and
refusals that leave the world unchanged."""

import math
import threading

import numpy as np
import pytest

import stiction
from conftest import G, loops_beside, physical_pendulum_period, zero_crossings


def pendulum(amplitude, length=1.0, radius=0.05, solver="exact"):
    """A 1 kg ball on a massless rod from a ball joint at (0, 0, 2), released at rest."""
    world = stiction.World(solver=solver)
    bob = world.add_body(
        mass=1.0,
        inertia=[0.4 * radius**2] * 3,
        position=(length * math.sin(amplitude), 0.0, 2.0 - length * math.cos(amplitude)),
        name="bob",
    )
    rod = world.add_ball_joint(bob, anchor=(0.0, 0.0, 2.0), name="rod")
    return world, bob, rod


@pytest.mark.parametrize("solver", ["exact", "iterative"])
def test_pendulum_period_matches_the_analytic_value(solver):
    amplitude, h = 0.05, 1e-3
    world, bob, _ = pendulum(amplitude, solver=solver)
    times, xs = [], []
    for _ in range(6500):
        world.step(h)
        times.append(world.time)
        xs.append(world.positions()[bob, 0])
    crossings = zero_crossings(times, xs)
    assert len(crossings) >= 3
    measured = (crossings[-1] - crossings[0]) / (len(crossings) - 1)
    expected = physical_pendulum_period(1.0, 0.05, amplitude)
    assert abs(measured - expected) / expected < 0.005, (measured, expected)
    # Far better than the 0.5 %: the step's period error is O(h^2).
    assert abs(measured - expected) / expected < 5e-4, (measured, expected)
    # The rod keeps its length.
    assert abs(np.linalg.norm(world.positions()[bob] - [0, 0, 2]) - 1.0) < 1e-6


def test_hanging_bob_feedback_carries_its_weight():
    world, bob, rod = pendulum(0.0)
    world.step(1 / 60, n=30)
    fb = world.joint_feedback(rod)
    np.testing.assert_allclose(fb.force_a, [0.0, 0.0, G], atol=1e-6)
    np.testing.assert_allclose(fb.force_b, [0.0, 0.0, -G], atol=1e-6)
    all_joints = world.joint_feedback()
    assert all_joints.force_a.shape == (1, 3) and all_joints.motor.shape == (1, 2)
    np.testing.assert_array_equal(all_joints.force_a[0], fb.force_a)
    s = world.stats
    assert (s.rows, s.islands, s.committed, s.h) == (3, 1, True, 1 / 60)
    assert s.worst_residual < 1e-9 and s.fallbacks == 0


def test_box_on_the_ground_contacts_carry_its_weight(resting_box):
    world, box = resting_box
    c = world.contacts()
    assert len(c) == 4 and c.points.shape == (4, 3) and c.bodies.shape == (4, 2)
    assert set(c.bodies[:, 0]) == {-1} and set(c.bodies[:, 1]) == {box}
    np.testing.assert_allclose(c.normals, [[0, 0, 1]] * 4, atol=1e-12)
    assert abs(c.local_forces[:, 0].sum() - 10 * G) < 1e-6
    assert abs(c.forces[:, 2].sum() - 10 * G) < 1e-6
    assert abs(world.positions()[box, 2] - 0.5) < 1e-3
    assert world.stats.contacts == 4


def test_hinge_motor_and_limit_drive_a_door():
    # The engine's hinge example: a 20 kg door, motor 0.5 rad/s up to 10 N m, limit 1.5.
    world = stiction.World()
    door = world.add_body(
        mass=20.0,
        inertia=[20 / 3 * (0.02**2 + 1.0), 20 / 3 * (0.16 + 1.0), 20 / 3 * (0.16 + 0.02**2)],
        position=(0.4, 0.0, 1.0),
    )
    hinge = world.add_hinge_joint(
        door, anchor=(0, 0, 1), axis=(0, 0, 1), limit=(-1.5, 1.5), motor=(0.5, 10.0), name="hinge"
    )
    world.step(1 / 60, n=120)
    angle, rate = world.joint_axis("hinge")
    assert abs(rate - 0.5) < 1e-3 and angle > 0.9
    # Reverse the motor, then switch it off.
    world.set_motor(hinge, -0.5, 10.0)
    world.step(1 / 60, n=60)
    assert abs(world.joint_axis(hinge)[1] + 0.5) < 1e-3
    world.set_motor(hinge, None)
    world.set_limit(hinge, -0.1, 0.1)
    world.step(1 / 60, n=120)
    assert abs(world.joint_axis(hinge)[0]) <= 0.1 + 1e-3


def test_every_joint_type_builds_and_steps():
    world = stiction.World()
    bodies = [world.add_body(mass=1.0, position=(i, 0, 1)) for i in range(8)]
    world.add_ball_joint(bodies[0], anchor=(0, 0, 1.5))
    world.add_hinge_joint(bodies[1], bodies[0], anchor=(0.5, 0, 1), axis=(0, 1, 0))
    world.add_slider_joint(bodies[2], "world", axis=(1, 0, 0), limit=(-0.1, 0.1), motor=(0.1, 5))
    world.add_fixed_joint(bodies[3], bodies[2])
    world.add_distance_joint(bodies[4], None, anchor_a=(4, 0, 1), anchor_b=(4, 0, 2), limit=(0, 1.5))
    world.add_universal_joint(bodies[5], None, anchor=(5, 0, 1.5), axis_a=(1, 0, 0), axis_b=(0, 1, 0))
    world.add_hinge2_joint(
        bodies[6], bodies[7], anchor=(6, 0, 1), steering_axis=(0, 0, 1), wheel_axis=(0, 1, 0),
        suspension=(1000.0, 10.0)
    )
    assert world.joint_count == 7
    world.step(1 / 60, n=10)
    assert np.isfinite(world.positions()).all()


def test_state_arrays_round_trip_and_validate():
    world = stiction.World(gravity=(0, 0, 0))
    a = world.add_body(position=(1, 2, 3), velocity=(1, 0, 0), name="a")
    s = world.add_body("static", name="ground")
    assert world.body_kinds == ["dynamic", "static"]
    assert world.positions().shape == (2, 3) and world.orientations().shape == (2, 4)
    np.testing.assert_array_equal(world.orientations()[a], [1, 0, 0, 0])  # w, x, y, z
    q = np.array([math.cos(0.25), 0, 0, math.sin(0.25)])
    world.set_state(
        positions=[[0, 0, 1], [5, 5, 5]],
        orientations=[q, [1, 0, 0, 0]],
        angular_velocities=[[0, 0, 2.0], [0, 0, 0]],
    )
    np.testing.assert_allclose(world.orientations()[a], q, atol=1e-15)
    np.testing.assert_array_equal(world.positions()[s], [5, 5, 5])
    np.testing.assert_array_equal(world.angular_velocities()[a], [0, 0, 2])
    np.testing.assert_array_equal(world.linear_velocities()[a], [1, 0, 0])  # untouched
    before = [f().copy() for f in (world.positions, world.orientations, world.linear_velocities)]

    def unchanged():
        after = [world.positions(), world.orientations(), world.linear_velocities()]
        for x, y in zip(before, after):
            np.testing.assert_array_equal(x, y)

    with pytest.raises(stiction.WorldError, match=r"positions must have shape \(2, 3\), got \(3,\)"):
        world.set_state(positions=[0, 0, 1])
    with pytest.raises(stiction.WorldError, match="body `a`: position must be finite"):
        world.set_state(positions=[[np.nan, 0, 0], [0, 0, 0]])
    with pytest.raises(stiction.WorldError, match="orientation quaternion must be finite and non-zero"):
        world.set_state(orientations=[[0, 0, 0, 0], [1, 0, 0, 0]])
    # The static body refuses a velocity; the dynamic one before it must not have moved.
    with pytest.raises(stiction.WorldError, match="body `ground`: a static body cannot move"):
        world.set_state(linear_velocities=[[9, 9, 9], [1, 0, 0]])
    unchanged()


def test_bad_arguments_raise_helpful_errors():
    world = stiction.World()
    ball = world.add_body(name="ball")
    cases = [
        (lambda: world.add_ball_joint(5, anchor=(0, 0, 0)), "no body 5: indices run from 0 to 0"),
        (lambda: world.add_ball_joint("bal", anchor=(0, 0, 0)), "no body named `bal` (named: ball)"),
        (lambda: world.add_ball_joint(ball, ball, anchor=(0, 0, 0)), "invalid joint: a joint cannot attach a body to itself"),
        (lambda: world.add_hinge_joint(ball, anchor=(0, 0, 0), axis=(0, 0, 0)), "invalid joint: the hinge axis must be non-zero"),
        (lambda: world.add_collider("sphere", ball), "a sphere needs radius="),
        (lambda: world.add_collider("box", ball, radius=1.0), "a box takes half_extents=, not radius="),
        (lambda: world.add_collider("torus", ball), "unknown shape \"torus\""),
        (lambda: world.add_collider("sphere", ball, radius=-1.0), "setting `radius` = -1 is invalid: a shape dimension must be finite and > 0"),
        (lambda: world.add_collider("sphere", ball, radius=1.0, friction=-1.0), "friction"),
        (lambda: world.add_body(mass=-1.0), "invalid mass properties: mass must be finite and > 0, got -1"),
        (lambda: world.add_body(inertia=[1.0, 1.0, 5.0]), "triangle inequality"),
        (lambda: world.add_body(position=(0, 0)), "position must have 3 components, got 2"),
        (lambda: world.add_body(position=(0, 0, math.inf)), "position must be finite"),
        (lambda: world.add_body(kind="floating"), "kind must be"),
        (lambda: world.add_body(name="ball"), "a body named `ball` already exists"),
        (lambda: world.add_body(name="world"), "a body cannot be named `world`"),
        (lambda: world.joint_axis(0), "no joint 0: the world has none"),
        (lambda: stiction.World(solver="fast"), "solver must be \"exact\" or \"iterative\""),
        (lambda: stiction.World(erp=2.0), "erp"),
        (lambda: stiction.World(solver="iterative", iterations=0), "iterations"),
        (lambda: stiction.World(gravity=(0, 0, math.nan)), "gravity"),
        (lambda: stiction.World(timestep=0.0), "timestep must be finite and > 0, got 0"),
    ]
    for call, message in cases:
        with pytest.raises(stiction.WorldError) as info:
            call()
        assert message in str(info.value), (message, str(info.value))
    with pytest.raises(TypeError):
        world.add_body(position="up")
    with pytest.raises(TypeError):
        world.add_ball_joint(1.5, anchor=(0, 0, 0))


def test_a_refused_step_leaves_the_world_unchanged():
    world, bob, rod = pendulum(0.3)
    world.step(1 / 240, n=10)
    snapshot = world.snapshot()
    state = [world.positions(), world.orientations(), world.linear_velocities(), world.angular_velocities()]
    t, steps = world.time, world.step_count
    for h, message in [(0.0, "time step must be finite and > 0, got 0"), (math.nan, "got NaN"), (-1.0, "got -1")]:
        with pytest.raises(stiction.StepError) as info:
            world.step(h, n=5)
        assert message in str(info.value)
        assert info.value.completed_steps == 0
    assert not world.stats.committed
    # A velocity that overflows the step: refused, nothing changes.
    world.set_state(linear_velocities=[[1e308, 1e308, 0]])
    state[2] = world.linear_velocities()
    snapshot = world.snapshot()
    with pytest.raises(stiction.StepError, match="non-finite"):
        world.step(1 / 240)
    after = [world.positions(), world.orientations(), world.linear_velocities(), world.angular_velocities()]
    for x, y in zip(state, after):
        np.testing.assert_array_equal(x, y)
    assert (world.time, world.step_count) == (t, steps)
    assert world.snapshot() == snapshot


def test_a_failed_step_names_the_scene_body(tmp_path, monkeypatch):
    # docs/errors.md "Step failures": a mass so small that its inverse is infinite.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "speck.toml").write_text(
        '[[bodies]]\nname = "speck"\nmass = 1e-320\nshapes = [{ type = "sphere", radius = 0.5 }]\n'
    )
    world = stiction.World.from_scene("speck.toml")
    before = world.positions()
    with pytest.raises(stiction.StepError) as info:
        world.step()
    assert str(info.value) == "non-finite value during the forces phase (body `speck`)"
    np.testing.assert_array_equal(world.positions(), before)
    with pytest.raises(stiction.StepError) as info:
        world.step(n=3)
    assert str(info.value) == "step 1 of 3 failed: non-finite value during the forces phase (body `speck`)"


def test_scenes_load_with_names_and_settings():
    world = stiction.World.from_scene("pendulum")
    assert world.scene_name == "pendulum" and world.scene_steps == 360
    assert world.body_names == ["pendulum"] and world.joint_names == ["pivot"]
    assert world.timestep == pytest.approx(1 / 60) and world.solver == "exact"
    assert world.body_index("pendulum") == 0 and world.joint_index("pivot") == 0
    world.step(n=30)
    angle, _ = world.joint_axis("pivot")
    assert angle != 0.0
    assert stiction.World.from_scene("pendulum", solver="iterative").solver == "iterative"
    cradle = stiction.World.from_scene("newtons-cradle")
    assert cradle.body_count >= 5 and cradle.collider_count >= 5


SCENE_ERRORS = [
    # (file name, text, message): docs/errors.md, "Scene files".
    ("ball.toml", '[[bodies]]\nname = "ball"\nposition = [0.0, 0.0, 1.0]\nshapes = [{ type = "sphere", radius = , }]\n',
     "ball.toml:4:39: extra comma in inline table, expected value"),
    ("ball.json", '{\n  "bodies": [\n    {"name": "ball",, "shapes": []}\n  ]\n}\n', "ball.json:3:21: key must be a string"),
    ("planet.toml", '[[bodies]]\nname = "planet"\nshapes = [{ type = "box", half_extents = [1e200, 1e200, 1e200] }]\n',
     "planet.toml: bodies[0].shapes[0]: mass must be finite and > 0, got inf"),
    ("parallel.toml", '[[bodies]]\nname = "arm"\nshapes = [{ type = "box", half_extents = [0.5, 0.05, 0.05] }]\n\n'
     '[[joints]]\ntype = "universal"\nbody_a = "arm"\nanchor = [0.0, 0.0, 0.0]\naxis = [0.0, 1.0, 0.0]\naxis2 = [0.0, 2.0, 0.0]\n',
     "parallel.toml: joints[0]: invalid joint: the universal axis of A must not be parallel to the universal axis of B"),
]


@pytest.mark.parametrize("name, text, message", SCENE_ERRORS)
def test_bad_scene_files_raise_the_cli_message(tmp_path, monkeypatch, name, text, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text)
    with pytest.raises(stiction.SceneError) as info:
        stiction.World.from_scene(name)
    assert str(info.value) == message
    # The same text given directly is labelled <scene>.toml / <scene>.json.
    with pytest.raises(stiction.SceneError) as info:
        stiction.World.from_scene(text, format=name.rsplit(".", 1)[1])
    assert str(info.value).split(":", 1)[1] == message.split(":", 1)[1]


def test_missing_and_misnamed_scenes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for source, message in [
        ("nothere.toml", "nothere.toml: cannot read: No such file or directory (os error 2)"),
        ("scene.yaml", "scene.yaml: unknown scene format: the file name must end in .toml or .json"),
    ]:
        with pytest.raises(stiction.SceneError) as info:
            stiction.World.from_scene(source)
        assert str(info.value) == message
    with pytest.raises(stiction.SceneError, match="pendulumm: no such file, and no built-in scene of that name"):
        stiction.World.from_scene("pendulumm")
    with pytest.raises(TypeError):
        stiction.World.from_scene(42)


def test_stepping_releases_the_gil():
    world = stiction.World.from_scene("s2-sphere-pile")
    count, _ = loops_beside(lambda: world.step(n=40))
    # With the GIL held for the whole call this loop could not run while the steps do.
    assert count > 1000, count
    assert world.step_count == 40


def test_worlds_step_in_parallel_threads_identically():
    base = stiction.World.from_scene("newtons-cradle")
    worlds = [base.copy() for _ in range(2)]
    threads = [threading.Thread(target=w.step, kwargs={"n": 200}) for w in worlds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    base.step(n=200)
    for w in worlds:
        np.testing.assert_array_equal(w.positions(), base.positions())
