"""stiction.Batch: many worlds stepped together on the engine's thread pool.

Each world of a batch must step bit for bit as the same world stepped alone from Python,
whatever the thread count; a world given a bad action is held while the others go on;
actions land on the bodies and servos of the layout (Python index order).
"""


import numpy as np
import pytest

import stiction
from conftest import loops_beside


def stack(k):
    """The S4 stack of 20 boxes, world k's top box nudged sideways by 1 mm * k."""
    world = stiction.World.from_scene("s4-stack-20")
    positions = world.positions()
    positions[-1, 0] += 0.001 * k
    world.set_state(positions=positions)
    return world


def forces_for(n, bodies, call):
    forces = np.zeros((n, bodies, 3))
    for k in range(n):
        forces[k, -1] = [0.3 * (k % 5), 0.2 * call, 0.0]
    return forces


@pytest.mark.parametrize("threads", [1, 2])
def test_a_batch_steps_every_world_bit_for_bit_as_alone(threads):
    n, calls, steps = 16, 4, 15
    worlds = [stack(k) for k in range(n)]
    bodies = worlds[0].positions().shape[0]
    alone = [w.copy() for w in worlds]
    for call in range(calls):
        forces = forces_for(n, bodies, call)
        for k, world in enumerate(alone):
            for _ in range(steps):
                world.apply_force(bodies - 1, forces[k, -1])
                world.step()
    batch = stiction.Batch(worlds, threads=threads)
    assert len(batch) == n and batch.threads == threads
    for call in range(calls):
        state = batch.step(forces_for(n, bodies, call), steps=steps)
    assert state["positions"].shape == (n, bodies, 3)
    assert state["orientations"].shape == (n, bodies, 4)
    assert not state["failed"].any()
    np.testing.assert_allclose(state["time"], calls * steps * batch.timestep, rtol=0, atol=1e-12)
    for k, world in enumerate(alone):
        np.testing.assert_array_equal(state["positions"][k], world.positions())
        np.testing.assert_array_equal(state["orientations"][k], world.orientations())
        np.testing.assert_array_equal(state["linear_velocities"][k], world.linear_velocities())
        np.testing.assert_array_equal(state["angular_velocities"][k], world.angular_velocities())
    # The pushes differ by world, so the worlds do too.
    tops = state["positions"][:, -1, 0]
    assert len(set(tops.tolist())) == n
    # A world read back continues as the batch's copy does.
    copy = batch.world(3)
    copy.step()
    batch.step()
    np.testing.assert_array_equal(batch.state()["positions"][3], copy.positions())


def test_copies_of_a_scene_and_a_world_and_resets():
    batch = stiction.Batch("pendulum", 4, threads=2)
    start = batch.state()
    batch.step(steps=30)
    moved = batch.state()["positions"]
    assert np.all(moved == moved[0])  # identical copies stay identical
    assert not np.array_equal(moved, start["positions"])
    batch.reset([1])
    after = batch.state()
    np.testing.assert_array_equal(after["positions"][1], start["positions"][1])
    np.testing.assert_array_equal(after["positions"][0], moved[0])
    assert after["time"][1] == 0.0
    world = stiction.World.from_scene("pendulum")
    copies = stiction.Batch(world, 3)
    assert len(copies) == 3


def test_a_world_given_a_non_finite_force_is_held_and_reported():
    n = 8
    batch = stiction.Batch([stack(k) for k in range(n)], threads=2)
    bodies = batch.state()["positions"].shape[1]
    batch.step(steps=5)
    held = batch.state()["positions"][5].copy()
    forces = np.zeros((n, bodies, 3))
    forces[5, 2, 1] = np.nan
    state = batch.step(forces, steps=5)
    assert state["failed"].tolist() == [k == 5 for k in range(n)]
    np.testing.assert_array_equal(state["positions"][5], held)
    assert all(abs(t - 10 * batch.timestep) < 1e-12 for k, t in enumerate(state["time"]) if k != 5)
    errors = batch.errors()
    assert [i for i, _ in errors] == [5]
    assert "force" in errors[0][1]
    # Held until reset.
    state = batch.step(steps=5)
    assert abs(state["time"][5] - 5 * batch.timestep) < 1e-12
    batch.reset([5])
    assert batch.errors() == []
    assert batch.step()["time"][5] == pytest.approx(batch.timestep)


def test_servo_targets_drive_each_world_to_its_own_angle():
    world = stiction.World(gravity=(0, 0, 0), solver="exact", timestep=1 / 240)
    arm = world.add_body(mass=1.0, inertia=(0.01, 0.1, 0.1), position=(0.5, 0, 0))
    hinge = world.add_hinge_joint(arm, anchor=(0, 0, 0), axis=(0, 0, 1))
    world.set_servo(hinge, 0.0, stiffness=50.0, damping=10.0)
    batch = stiction.Batch(world, 6)
    targets = np.linspace(-0.5, 0.5, 6).reshape(6, 1)
    batch.step(servo_targets=targets, steps=2400)
    for k in range(6):
        angle = batch.world(k).joint_positions([hinge])[0]
        assert angle == pytest.approx(targets[k, 0], abs=1e-6)


def test_bad_arguments_raise_and_step_nothing():
    batch = stiction.Batch("pendulum", 3)
    before = batch.state()["positions"].copy()
    with pytest.raises(stiction.WorldError, match=r"forces must have shape \(3, 1, 3\)"):
        batch.step(np.zeros((2, 1, 3)))
    with pytest.raises(stiction.WorldError, match="servo_targets must have shape"):
        batch.step(servo_targets=np.zeros((3, 2)))
    with pytest.raises(stiction.StepError, match="step size"):
        batch.step(h=-1.0)
    with pytest.raises(stiction.WorldError, match="does not exist"):
        batch.reset([7])
    with pytest.raises(stiction.WorldError, match="does not exist"):
        batch.world(3)
    with pytest.raises(TypeError):
        stiction.Batch(42)
    with pytest.raises(TypeError):
        stiction.Batch([stiction.World(), "x"])
    with pytest.raises(stiction.WorldError, match="at least one world"):
        stiction.Batch([])
    np.testing.assert_array_equal(batch.state()["positions"], before)


def test_stepping_a_batch_releases_the_gil():
    batch = stiction.Batch("s2-sphere-pile", 2, threads=2)
    count, _ = loops_beside(lambda: batch.step(steps=200))
    assert count > 1000, count
    assert batch.state()["time"][0] == pytest.approx(200 * batch.timestep)
