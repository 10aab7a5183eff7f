"""Snapshots, pickling and copying: a restored or copied world continues bit for bit."""

import copy
import math
import pickle

import numpy as np
import pytest

import stiction


def busy_world():
    """Contacts (a box sliding and a ball bouncing on the ground), a hinge with a motor and
    a ball-joint pendulum: warm starts, persistent contacts and joint state all matter."""
    world = stiction.World()
    world.add_collider("halfspace", friction=0.4)
    box = world.add_body(mass=2.0, inertia=[2 / 12 * 0.5] * 3, position=(0, 0, 0.26),
                         velocity=(1.5, 0.2, 0), name="box")
    world.add_collider("box", box, half_extents=(0.25, 0.25, 0.25))
    ball = world.add_body(mass=0.5, inertia=[0.4 * 0.5 * 0.01] * 3, position=(2, 0, 1), name="ball")
    world.add_collider("sphere", ball, radius=0.1, restitution=0.7)
    arm = world.add_body(mass=1.0, position=(-2, 0.5, 1), name="arm")
    world.add_hinge_joint(arm, anchor=(-2, 0, 1), axis=(1, 0, 0), motor=(1.0, 2.0), name="shoulder")
    bob = world.add_body(mass=1.0, position=(-3, 0, 1.5), name="bob")
    world.add_ball_joint(bob, anchor=(-3.5, 0, 2), name="rod")
    return world


def state(world):
    return [
        world.positions(),
        world.orientations(),
        world.linear_velocities(),
        world.angular_velocities(),
        world.contacts().forces,
        world.joint_feedback().force_a,
    ]


def assert_identical(a, b):
    for x, y in zip(state(a), state(b)):
        assert x.shape == y.shape
        np.testing.assert_array_equal(x, y)  # exact, not approximate
    assert a.time == b.time and a.step_count == b.step_count


@pytest.mark.parametrize("how", ["snapshot", "pickle", "deepcopy", "copy", "method"])
def test_copies_continue_bit_identically(how):
    world = busy_world()
    world.step(1 / 120, n=90)
    if how == "snapshot":
        other = stiction.World.from_snapshot(world.snapshot(), timestep=world.timestep)
    elif how == "pickle":
        other = pickle.loads(pickle.dumps(world))
    elif how == "deepcopy":
        other = copy.deepcopy(world)
    elif how == "copy":
        other = copy.copy(world)
    else:
        other = world.copy()
    assert_identical(world, other)
    for _ in range(3):
        world.step(1 / 120, n=50)
        other.step(1 / 120, n=50)
        assert_identical(world, other)
    assert len(world.contacts()) > 0  # the copies had contacts to carry over
    # The copy is independent.
    other.step(1 / 120)
    assert other.step_count == world.step_count + 1


def test_pickle_keeps_names_and_settings():
    world = busy_world()
    world.timestep = 1 / 100
    world.step(n=5)
    other = pickle.loads(pickle.dumps(world))
    assert other.body_names == world.body_names == ["box", "ball", "arm", "bob"]
    assert other.joint_names == ["shoulder", "rod"]
    assert other.timestep == 1 / 100 and other.step_count == 5
    assert other.joint_axis("shoulder") == world.joint_axis("shoulder")
    scene = stiction.World.from_scene("pendulum")
    again = pickle.loads(pickle.dumps(scene))
    assert (again.scene_name, again.scene_steps, again.body_names) == ("pendulum", 360, ["pendulum"])


def test_reset_from_a_snapshot_in_a_loop():
    # A training loop: reset to the same snapshot, act, and get the same trajectory.
    world = busy_world()
    start = world.snapshot()
    runs = []
    for _ in range(2):
        w = stiction.World.from_snapshot(start)
        for k in range(40):
            w.set_motor(0, math.sin(0.1 * k), 2.0)
            w.step(1 / 120)
        runs.append(w.positions())
    np.testing.assert_array_equal(runs[0], runs[1])


def test_scene_snapshot_continues_like_the_uninterrupted_run():
    a = stiction.World.from_scene("newtons-cradle")
    b = stiction.World.from_scene("newtons-cradle")
    a.step(n=100)
    b.step(n=40)
    b = stiction.World.from_snapshot(b.snapshot(), timestep=b.timestep)
    assert b.step_count == 40
    b.step(n=60)
    np.testing.assert_array_equal(a.positions(), b.positions())
    np.testing.assert_array_equal(a.linear_velocities(), b.linear_velocities())


def test_damaged_snapshots_raise_snapshot_error():
    data = busy_world().snapshot()
    cases = [
        (data[:100], f"snapshot is truncated: {len(data)} bytes expected, 100 present"),
        (data + b"\0\0", "snapshot is corrupted: 2 unexpected bytes after the declared payload"),
        (b"hello world, this is not a snapshot at all" * 3,
         'not a stiction snapshot (the file does not start with "stiction-snapshot")'),
        (b"", "snapshot is truncated"),
    ]
    flipped = bytearray(data)
    flipped[-10] ^= 0xFF
    cases.append((bytes(flipped), "snapshot is corrupted: payload checksum"))
    for blob, message in cases:
        with pytest.raises(stiction.SnapshotError) as info:
            stiction.World.from_snapshot(blob)
        assert message in str(info.value), (message, str(info.value))
    with pytest.raises(TypeError):
        stiction.World.from_snapshot("not bytes")
