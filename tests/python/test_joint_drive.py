"""Joint friction, viscous damping and servos from Python (World.set_servo, clear_servo,
set_servo_targets, set_joint_dynamics, joint_dynamics, joint_positions, joint_velocities),
against closed-form mechanics (docs/dynamics.md#joint-friction-damping-and-servos):

- Coulomb friction T on a pendulum's hinge holds it exactly while the gravity torque
  m g L sin(theta) is below T, and above it lets it go at alpha = (m g L - T) / I.
- Viscous damping c divides an isolated hinge's rate by 1 + h c / I each step (implicit
  Euler of w' = -c w / I, whose solution is w0 exp(-c t / I)), at any c.
- A stiff position servo holds a pendulum at its target; with a force limit below the
  gravity torque it sags; a velocity servo reaches its target rate.
- set_servo_targets moves several servos at once; every bad input is a typed error.
"""

import copy
import math
import pickle
from pathlib import Path

import numpy as np
import pytest

import stiction
from conftest import G

H = 1e-3
MASS, LENGTH, RADIUS = 1.0, 1.0, 0.05
# The pendulum's inertia about its hinge: the point mass plus the small ball's own.
INERTIA = MASS * LENGTH**2 + 0.4 * MASS * RADIUS**2
ANCHOR = (0.0, 0.0, 2.0)


def pendulum(theta, solver="exact", **world_options):
    """A 1 kg ball (radius 5 cm) on a massless 1 m rod from a hinge about +y at
    (0, 0, 2), released at rest `theta` rad from the downward vertical (pi/2: horizontal,
    along +x). The hinge angle starts at 0 and grows as the ball falls."""
    world = stiction.World(solver=solver, **world_options)
    bob = world.add_body(
        mass=MASS,
        inertia=[0.4 * MASS * RADIUS**2] * 3,
        position=(LENGTH * math.sin(theta), 0.0, ANCHOR[2] - LENGTH * math.cos(theta)),
        name="bob",
    )
    hinge = world.add_hinge_joint(bob, anchor=ANCHOR, axis=(0, 1, 0), name="hinge")
    return world, hinge


def wheel(world, spin=0.0, name=None, x=0.0):
    """A 2 kg body spinning at `spin` rad/s about a world-z hinge through its centre of mass
    (z is a principal axis, I_zz = 0.2 kg m^2: nothing couples its spin to the hinge's
    other rows, and gravity exerts no torque). Returns the joint and I_zz."""
    izz = 0.2
    body = world.add_body(
        mass=2.0,
        inertia=[0.3, 0.5, izz],
        position=(x, 0.0, 0.0),
        angular_velocity=(0.0, 0.0, spin),
    )
    joint = world.add_hinge_joint(body, anchor=(x, 0.0, 0.0), axis=(0, 0, 1), name=name)
    return joint, izz


def angle(world, joint):
    return world.joint_positions([joint])[0]


def rate(world, joint):
    return world.joint_velocities([joint])[0]


# ----- Coulomb friction -----


@pytest.mark.parametrize("theta", [0.5, math.pi / 2])
def test_friction_above_the_gravity_torque_holds_the_pendulum_exactly(theta):
    load = MASS * G * LENGTH * math.sin(theta)
    world, hinge = pendulum(theta)
    world.set_joint_dynamics(hinge, friction=1.05 * load)
    worst = 0.0
    for _ in range(2000):  # 2 s
        world.step(H)
        worst = max(worst, abs(angle(world, hinge)))
    assert worst < 1e-9, worst
    assert abs(rate(world, hinge)) < 1e-9


def test_friction_below_the_gravity_torque_slips_at_the_analytic_acceleration():
    # Released horizontal: the gravity torque is m g L (cos of the angle reached in 20 ms,
    # about 1 mrad, differs from 1 by 5e-7).
    load = MASS * G * LENGTH
    friction = 0.5 * load
    world, hinge = pendulum(math.pi / 2)
    world.set_joint_dynamics(hinge, friction=friction)
    steps = 20
    world.step(H, n=steps)
    alpha = rate(world, hinge) / (steps * H)
    expected = (load - friction) / INERTIA
    assert abs(alpha / expected - 1.0) < 0.01, (alpha, expected)
    # Without friction it would have gone twice as fast.
    free, free_hinge = pendulum(math.pi / 2)
    free.step(H, n=steps)
    assert abs(rate(free, free_hinge) / (steps * H) / (load / INERTIA) - 1.0) < 0.01


def test_friction_just_below_the_load_slips_and_just_above_holds():
    theta = 0.8
    load = MASS * G * LENGTH * math.sin(theta)
    moved = {}
    for ratio in (0.98, 1.02):
        world, hinge = pendulum(theta)
        world.set_joint_dynamics(hinge, friction=ratio * load)
        world.step(H, n=500)
        moved[ratio] = abs(angle(world, hinge))
    assert moved[1.02] < 1e-9, moved
    assert moved[0.98] > 1e-3, moved


# ----- viscous damping -----


@pytest.mark.parametrize("solver", ["exact", "iterative"])
def test_damping_decays_the_rate_as_implicit_euler_of_the_exponential(solver):
    w0 = 3.0
    world = stiction.World(gravity=(0, 0, 0), solver=solver)
    joint, inertia = wheel(world, spin=w0)
    c = 1e-3 * inertia / H  # h c / I = 1e-3
    world.set_joint_dynamics(joint, damping=c)
    factor = 1.0 / (1.0 + H * c / inertia)
    for n in range(1, 1001):  # 1 s: c t / I = 1
        world.step(H)
        w = rate(world, joint)
        assert abs(w - w0 * factor**n) <= 1e-9 * w0 * factor**n, (n, w)
    # The continuous solution, w0 / e, within backward Euler's O(h) error
    # (n (h c / I)^2 / 2 = 5e-4 relative).
    exact = w0 * math.exp(-c * world.time / inertia)
    assert abs(w / exact - 1.0) < 6e-4, (w, exact)
    assert abs(w / exact - 1.0) > 4e-4, "the discretisation error is the expected one"


def test_damping_is_stable_at_any_gain():
    # h c / I = 10: an explicit -c w would multiply the rate by -9 each step.
    w0 = 3.0
    world = stiction.World(gravity=(0, 0, 0))
    joint, inertia = wheel(world, spin=w0)
    c = 10.0 * inertia / H
    world.set_joint_dynamics(joint, damping=c)
    world.step(H)
    last = rate(world, joint)
    assert abs(last - w0 / 11.0) <= 1e-9 * w0 / 11.0, last
    for n in range(1000):
        world.step(H)
        w = rate(world, joint)
        assert 0.0 <= w <= last, (n, w, last)
        last = w


def test_damping_on_a_slider():
    v0, mass = 2.0, 3.0
    world = stiction.World(gravity=(0, 0, 0))
    body = world.add_body(mass=mass, inertia=[0.01] * 3, velocity=(v0, 0, 0))
    slider = world.add_slider_joint(body, axis=(1, 0, 0))
    c = 0.25 * mass / H
    world.set_joint_dynamics(slider, damping=c)
    for n in range(1, 41):
        world.step(H)
        v = world.joint_velocities([slider])[0]
        assert abs(v - v0 / 1.25**n) <= 1e-9 * v0 / 1.25**n, (n, v)
    x = world.joint_positions([slider])[0]
    assert abs(x - world.positions()[body, 0]) < 1e-12


# ----- servos -----


def test_a_stiff_position_servo_holds_a_pendulum_at_its_target():
    k = 1e6
    target = 0.3
    world, hinge = pendulum(math.pi / 2)  # horizontal; the target is 0.3 rad lower
    world.set_servo(hinge, target, stiffness=k, damping=2.0 * math.sqrt(k * INERTIA))
    worst = 0.0
    for step in range(3000):
        world.step(H)
        if step >= 1000:
            worst = max(worst, abs(angle(world, hinge) - target))
    assert worst < 1e-3, worst
    # The static deflection of a spring k under gravity's torque at the target.
    load = MASS * G * LENGTH * math.cos(target)
    error = angle(world, hinge) - target
    assert abs(error - load / k) < 1e-3 * load / k + 1e-7, (error, load / k)
    assert abs(rate(world, hinge)) < 1e-6


def test_a_position_servo_weaker_than_gravity_sags():
    load = MASS * G * LENGTH
    k = 1e6
    world, hinge = pendulum(math.pi / 2)
    world.set_servo(hinge, 0.0, stiffness=k, damping=2.0 * math.sqrt(k * INERTIA),
                    max_force=0.5 * load)
    lowest = 0.0
    for _ in range(2000):
        world.step(H)
        lowest = max(lowest, angle(world, hinge))
    # m g L cos(angle) falls to the limit at 60 degrees; the pendulum swings past it.
    assert lowest > 1.0, lowest
    # The same servo without the limit holds it.
    world, hinge = pendulum(math.pi / 2)
    world.set_servo(hinge, 0.0, stiffness=k, damping=2.0 * math.sqrt(k * INERTIA))
    world.step(H, n=2000)
    assert abs(angle(world, hinge)) < 1e-3


@pytest.mark.parametrize("solver", ["exact", "iterative"])
def test_a_velocity_servo_reaches_its_target_rate(solver):
    target, gain, limit = 5.0, 50.0, 2.0
    world = stiction.World(gravity=(0, 0, 0), solver=solver)
    joint, inertia = wheel(world)
    world.set_servo(joint, stiffness=0.0, damping=gain, target_velocity=target,
                    max_force=limit)
    # Saturated at first: the limit's acceleration.
    world.step(H)
    assert abs(rate(world, joint) - H * limit / inertia) < 1e-9
    world.step(H, n=1000)  # 0.5 s at the limit (10 rad/s^2), then gain / I = 250 /s
    assert abs(rate(world, joint) - target) < 1e-6, rate(world, joint)


def test_set_servo_targets_moves_two_servos_in_one_call():
    world = stiction.World(gravity=(0, 0, 0))
    k, d = 400.0, 2.0 * math.sqrt(400.0 * 0.2)  # critically damped
    a, _ = wheel(world, name="a", x=0.0)
    b, _ = wheel(world, name="b", x=2.0)
    world.set_servo(a, 0.0, stiffness=k, damping=d)
    world.set_servo("b", 0.0, stiffness=k, damping=d, max_force=50.0)
    world.set_servo_targets([a, "b"], np.array([0.4, -0.7]))
    world.step(H, n=2000)
    np.testing.assert_allclose(world.joint_positions([a, b]), [0.4, -0.7], atol=1e-6)
    # Only the targets changed: gains and limits are kept.
    servo_b = world.joint_dynamics("b")["servo"]
    assert servo_b == {"target": -0.7, "stiffness": k, "damping": d, "max_force": 50.0,
                       "target_velocity": 0.0}
    # Moving targets: positions and velocities (a ramp at 0.5 rad/s followed exactly).
    for n in range(1, 1001):
        t = n * H
        world.set_servo_targets([b, a], [-0.7 - 0.5 * t, 0.4 + 0.5 * t],
                                velocities=[-0.5, 0.5])
        world.step(H)
    np.testing.assert_allclose(world.joint_velocities([a, b]), [0.5, -0.5], atol=1e-3)
    np.testing.assert_allclose(world.joint_positions([a, b]), [0.9, -1.2], atol=1e-3)
    assert world.joint_dynamics(a)["servo"]["target_velocity"] == 0.5
    # velocities=None keeps each servo's target velocity.
    world.set_servo_targets([a], [1.0])
    assert world.joint_dynamics(a)["servo"]["target_velocity"] == 0.5
    assert world.joint_dynamics(a)["servo"]["target"] == 1.0


def test_a_new_servo_target_wakes_a_sleeping_pendulum():
    world, hinge = pendulum(0.0, sleeping=True)
    world.step(H, n=3000)
    assert world.stats.sleeping_bodies == 1
    k = 1e3
    world.set_servo(hinge, 0.0, stiffness=k, damping=60.0)  # holding: it may sleep on
    world.step(H, n=3000)
    assert world.stats.sleeping_bodies == 1
    world.set_servo_targets([hinge], [0.5])
    world.step(H)
    assert world.stats.sleeping_bodies == 0
    world.step(H, n=2999)
    # At rest 0.5 rad up, short of the target by gravity's torque over k.
    q = angle(world, hinge)
    assert abs(q - (0.5 - MASS * G * LENGTH * math.sin(q) / k)) < 1e-4, q


# ----- reading and changing the settings -----


def test_joint_dynamics_reads_back_what_was_set():
    world, hinge = pendulum(0.0)
    assert world.joint_dynamics(hinge) == {"friction": 0.0, "damping": 0.0, "servo": None}
    world.set_servo(hinge, 0.25, stiffness=100.0, damping=3.0, max_force=7.0,
                    target_velocity=0.5)
    world.set_joint_dynamics(hinge, friction=0.4)
    world.set_joint_dynamics(hinge, damping=1.5)  # friction kept
    expected_servo = {"target": 0.25, "stiffness": 100.0, "damping": 3.0, "max_force": 7.0,
                      "target_velocity": 0.5}
    assert world.joint_dynamics("hinge") == {"friction": 0.4, "damping": 1.5,
                                             "servo": expected_servo}
    # A new servo keeps friction and damping; no max_force is no limit (None).
    world.set_servo(hinge, stiffness=0.0, damping=2.0, target_velocity=1.0)
    d = world.joint_dynamics(hinge)
    assert (d["friction"], d["damping"]) == (0.4, 1.5)
    assert d["servo"] == {"target": 0.0, "stiffness": 0.0, "damping": 2.0, "max_force": None,
                          "target_velocity": 1.0}
    # The dict sets the same servo again.
    world.set_servo(hinge, **expected_servo)
    assert world.joint_dynamics(hinge)["servo"] == expected_servo
    # Copies, pickles and snapshots keep the settings.
    for other in (world.copy(), copy.deepcopy(world), pickle.loads(pickle.dumps(world)),
                  stiction.World.from_snapshot(world.snapshot())):
        assert other.joint_dynamics(0) == world.joint_dynamics(hinge)
    # clear_servo keeps friction and damping; 0 removes those.
    world.clear_servo(hinge)
    world.clear_servo(hinge)  # nothing to clear: not an error
    assert world.joint_dynamics(hinge) == {"friction": 0.4, "damping": 1.5, "servo": None}
    world.set_joint_dynamics(hinge, friction=0.0, damping=0.0)
    assert world.joint_dynamics(hinge) == {"friction": 0.0, "damping": 0.0, "servo": None}
    # One row per setting.
    world.step(H)
    bare = world.stats.rows
    world.set_joint_dynamics(hinge, friction=0.1, damping=0.1)
    world.set_servo(hinge, stiffness=1.0)
    world.step(H)
    assert world.stats.rows == bare + 3


def test_the_second_axis_of_a_universal_joint():
    world = stiction.World(gravity=(0, 0, 0))
    body = world.add_body(mass=1.0, inertia=[0.1] * 3)
    joint = world.add_universal_joint(body, anchor=(0, 0, 0), axis_a=(1, 0, 0),
                                      axis_b=(0, 1, 0))
    world.set_servo(joint, 0.2, stiffness=50.0, damping=5.0, axis=1)
    world.set_joint_dynamics(joint, friction=0.3, axis=0)
    assert world.joint_dynamics(joint, axis=0) == {"friction": 0.3, "damping": 0.0,
                                                   "servo": None}
    assert world.joint_dynamics(joint, 1)["servo"]["target"] == 0.2
    world.step(H, n=3000)
    assert abs(world.joint_axis(joint, 1)[0] - 0.2) < 1e-4
    assert abs(world.joint_axis(joint, 0)[0]) < 1e-7


def test_joint_positions_and_velocities():
    world = stiction.World(gravity=(0, 0, 0))
    bodies = [world.add_body(mass=1.0, inertia=[0.1] * 3, position=(3.0 * i, 0, 0))
              for i in range(4)]
    # The hinge turns at 0.3 rad/s, the slider moves at 0.4 m/s.
    world.set_state(
        linear_velocities=[[0, 0, 0], [0, 0, 0], [0, 0, 0.4], [0, 0, 0]],
        angular_velocities=[[0, 0.3, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
    )
    hinge = world.add_hinge_joint(bodies[0], anchor=(0, 0, 0), axis=(0, 1, 0), name="h")
    ball = world.add_ball_joint(bodies[1], anchor=(3, 0, 0))
    slider = world.add_slider_joint(bodies[2], axis=(0, 0, 1), name="s")
    universal = world.add_universal_joint(bodies[3], anchor=(9, 0, 0), axis_a=(1, 0, 0),
                                          axis_b=(0, 1, 0))
    world.step(H, n=100)
    q, v = world.joint_positions(), world.joint_velocities()
    assert q.dtype == np.float64 and q.shape == (2,) and v.shape == (2,)
    expected = [world.joint_axis(hinge), world.joint_axis(slider)]
    np.testing.assert_array_equal(q, [e[0] for e in expected])
    np.testing.assert_array_equal(v, [e[1] for e in expected])
    np.testing.assert_allclose(np.abs(v), [0.3, 0.4], rtol=1e-9)
    # The orientation update turns by 2 atan(w h / 2) a step (a Cayley turn): 2.25e-12 rad
    # short of w h, 2.25e-10 after 100 steps.
    np.testing.assert_allclose(np.abs(q), [0.03 - 2.25e-10, 0.04], rtol=1e-10)
    # A chosen order, by index or name, including numpy integers; and none.
    np.testing.assert_array_equal(world.joint_positions(["s", np.int64(hinge)]), q[::-1])
    np.testing.assert_array_equal(world.joint_velocities(("s",)), v[1:])
    np.testing.assert_array_equal(world.joint_positions(np.array([slider])), q[1:])
    assert world.joint_positions([]).shape == (0,)
    # Joints without exactly one axis are refused.
    for joint in (ball, universal):
        with pytest.raises(stiction.WorldError, match=r"joints\[1\] .* axes"):
            world.joint_positions([hinge, joint])
        with pytest.raises(stiction.WorldError, match="joint_velocities"):
            world.joint_velocities([joint])


# ----- refusals -----


def drive_world():
    """A hinge `h` (with a servo on the second world), a hinge `bare` without one, a ball
    joint, a rigid distance joint and a universal joint."""
    world = stiction.World()
    bodies = [world.add_body(mass=1.0, position=(2.0 * i, 0, 0)) for i in range(5)]
    world.add_hinge_joint(bodies[0], anchor=(0, 0, 1), axis=(0, 1, 0), name="h")
    world.add_hinge_joint(bodies[1], anchor=(2, 0, 1), axis=(0, 1, 0), name="bare")
    world.add_ball_joint(bodies[2], anchor=(4, 0, 1), name="ball")
    world.add_distance_joint(bodies[3], anchor_a=(6, 0, 0), anchor_b=(6, 0, 1), name="rod")
    world.add_universal_joint(bodies[4], anchor=(8, 0, 1), axis_a=(1, 0, 0),
                              axis_b=(0, 1, 0), name="u")
    world.set_servo("h", 0.1, stiffness=10.0, damping=1.0)
    world.set_joint_dynamics("h", friction=0.5)
    return world


NAN, INF = float("nan"), float("inf")

REFUSED = [
    # set_servo: gains, targets, limit, axis, joint.
    (lambda w: w.set_servo("h", 0.1), "not both zero"),
    (lambda w: w.set_servo("h", stiffness=-1.0, damping=1.0), "stiffness and damping"),
    (lambda w: w.set_servo("h", stiffness=1.0, damping=-1.0), "stiffness and damping"),
    (lambda w: w.set_servo("h", stiffness=NAN), "stiffness and damping"),
    (lambda w: w.set_servo("h", stiffness=INF), "stiffness and damping"),
    (lambda w: w.set_servo("h", damping=NAN), "stiffness and damping"),
    (lambda w: w.set_servo("h", NAN, stiffness=1.0), "servo target position"),
    (lambda w: w.set_servo("h", INF, stiffness=1.0), "servo target position"),
    (lambda w: w.set_servo("h", damping=1.0, target_velocity=NAN), "servo target velocity"),
    (lambda w: w.set_servo("h", stiffness=1.0, max_force=-1.0), "servo max force"),
    (lambda w: w.set_servo("h", stiffness=1.0, max_force=NAN), "servo max force"),
    (lambda w: w.set_servo("h", stiffness=1.0, axis=1), "axis 1 does not exist"),
    (lambda w: w.set_servo("h", stiffness=1.0, axis=-1), "axis -1 does not exist"),
    (lambda w: w.set_servo("ball", stiffness=1.0), "joint `ball`: .*0 axes"),
    (lambda w: w.set_servo("rod", stiffness=1.0), "rigid distance"),
    (lambda w: w.set_servo(99, stiffness=1.0), "no joint 99"),
    (lambda w: w.set_servo(-1, stiffness=1.0), "no joint -1"),
    (lambda w: w.set_servo("nope", stiffness=1.0), "no joint named `nope`"),
    # clear_servo.
    (lambda w: w.clear_servo("h", axis=2), "axis 2 does not exist"),
    (lambda w: w.clear_servo("ball"), "0 axes"),
    (lambda w: w.clear_servo(7), "no joint 7"),
    # set_joint_dynamics.
    (lambda w: w.set_joint_dynamics("h", friction=-0.1), "joint friction"),
    (lambda w: w.set_joint_dynamics("h", friction=NAN), "joint friction"),
    (lambda w: w.set_joint_dynamics("h", friction=INF), "joint friction"),
    (lambda w: w.set_joint_dynamics("h", damping=-2.0), "joint damping"),
    (lambda w: w.set_joint_dynamics("h", damping=NAN), "joint damping"),
    (lambda w: w.set_joint_dynamics("h", friction=1.0, damping=-2.0), "joint damping"),
    (lambda w: w.set_joint_dynamics("u", friction=1.0, axis=2), "axis 2 .* 2 axes"),
    (lambda w: w.set_joint_dynamics("rod", damping=1.0), "rigid distance"),
    (lambda w: w.set_joint_dynamics("nope", damping=1.0), "no joint named"),
    # joint_dynamics.
    (lambda w: w.joint_dynamics("h", axis=1), "joint `h`: .*axis 1 does not exist"),
    (lambda w: w.joint_dynamics("h", axis=-3), "axis -3"),
    (lambda w: w.joint_dynamics(42), "no joint 42"),
    # set_servo_targets.
    (lambda w: w.set_servo_targets(["h", "bare"], [0.0, 0.0]),
     r"joints\[1\] \(joint `bare`\): has no servo"),
    (lambda w: w.set_servo_targets(["h", "ball"], [0.0, 0.0]), "has no servo"),
    (lambda w: w.set_servo_targets(["h"], [0.0, 1.0]), r"targets must have shape \(1\)"),
    (lambda w: w.set_servo_targets(["h"], [[0.0]]), "targets must have shape"),
    (lambda w: w.set_servo_targets(["h"], 0.0), "targets must have shape"),
    (lambda w: w.set_servo_targets(["h"], [NAN]), "servo target position"),
    (lambda w: w.set_servo_targets(["h"], [0.2], velocities=[INF]), "servo target velocity"),
    (lambda w: w.set_servo_targets(["h"], [0.2], velocities=[1.0, 2.0]), "velocities"),
    (lambda w: w.set_servo_targets(["h", 9], [0.2, 0.3]), "no joint 9"),
    # joint_positions, joint_velocities.
    (lambda w: w.joint_positions(["h", "ball"]), r"joints\[1\] \(joint `ball`\)"),
    (lambda w: w.joint_velocities(["u"]), "universal joint with 2 axes"),
    (lambda w: w.joint_positions(["nope"]), "no joint named"),
    (lambda w: w.joint_velocities([5]), "no joint 5"),
]


@pytest.mark.parametrize("call,message", REFUSED)
def test_bad_input_is_a_world_error_and_changes_nothing(call, message):
    world = drive_world()
    before = [world.joint_dynamics(j) for j in ("h", "bare", "u")] + [
        world.joint_dynamics("u", axis=1)]
    with pytest.raises(stiction.WorldError, match=message) as error:
        call(world)
    assert isinstance(error.value, stiction.StictionError)
    assert isinstance(error.value, ValueError)
    after = [world.joint_dynamics(j) for j in ("h", "bare", "u")] + [
        world.joint_dynamics("u", axis=1)]
    assert after == before


@pytest.mark.parametrize(
    "call",
    [
        lambda w: w.set_servo("h", "up", stiffness=1.0),
        lambda w: w.set_servo("h", stiffness="stiff"),
        lambda w: w.set_servo(1.5, stiffness=1.0),
        lambda w: w.set_servo("h", stiffness=1.0, axis=0.5),
        lambda w: w.set_joint_dynamics("h", friction="lots"),
        lambda w: w.set_servo_targets("h", [0.0]),
        lambda w: w.set_servo_targets(3, [0.0]),
        lambda w: w.set_servo_targets(["h"], ["a"]),
        lambda w: w.joint_positions("h"),
        lambda w: w.joint_velocities(0),
    ],
)
def test_arguments_of_the_wrong_type_are_type_errors(call):
    world = drive_world()
    with pytest.raises(TypeError):
        call(world)


def test_a_refused_batch_changes_no_servo():
    world = drive_world()
    world.set_servo("bare", 0.0, stiffness=5.0)
    with pytest.raises(stiction.WorldError, match=r"joints\[1\]"):
        world.set_servo_targets(["h", "bare"], [0.3, NAN])
    assert world.joint_dynamics("h")["servo"]["target"] == 0.1
    assert world.joint_dynamics("bare")["servo"]["target"] == 0.0
    world.set_servo_targets(["h", "bare"], [0.3, 0.4])
    assert world.joint_dynamics("h")["servo"]["target"] == 0.3
    assert world.joint_dynamics("bare")["servo"]["target"] == 0.4


def test_the_example_in_the_python_guide():
    # docs/python.md's arm, run as written: each joint ends near its servo's target.
    guide = (Path(__file__).resolve().parents[2] / "docs" / "python.md").read_text()
    section = guide[guide.index("## Joint friction, damping and servos"):]
    code = section[section.index("```python\n") + 10:section.index("```\n", 10)]
    scope = {}
    exec(compile(code, "docs/python.md", "exec"), scope)
    world = scope["world"]
    q = world.joint_positions(["shoulder", "elbow"])
    np.testing.assert_allclose(q, [0.4606, -0.2975], atol=1e-4)
    servo = world.joint_dynamics("shoulder")["servo"]
    assert abs(servo["target"] - 0.5 * math.sin(1.999)) < 1e-12
