"""stiction.gym.VectorEnv: a Batch as a gymnasium vector environment. Servo targets move
each copy of a hinged arm to its own angle, episodes truncate and reset on the next step
with the start's observation, a NaN action terminates only its world, bad actions raise.

Needs gymnasium (tests/python/run.sh installs it with the robot-model packages); fails
without it unless STICTION_SKIP_MODELS=1, which skips it with that reason.
"""

import math
import os

import numpy as np
import pytest

import stiction

try:
    import gymnasium
    import stiction.gym
except ImportError:
    if os.environ.get("STICTION_SKIP_MODELS") == "1":
        pytest.skip("gymnasium not installed (STICTION_SKIP_MODELS=1)", allow_module_level=True)
    pytest.fail("gymnasium is not installed: run tests/python/run.sh", pytrace=False)


def arm():
    """A 1 m arm on a hinge about z at the origin, gravity off, a position servo."""
    world = stiction.World(gravity=(0, 0, 0), solver="exact", timestep=1 / 240)
    body = world.add_body(mass=1.0, inertia=(0.01, 0.1, 0.1), position=(0.5, 0, 0))
    hinge = world.add_hinge_joint(body, anchor=(0, 0, 0), axis=(0, 0, 1))
    world.set_servo(hinge, 0.0, stiffness=50.0, damping=10.0)
    return world


def angle(state):
    p = state["positions"][:, 0]
    return np.arctan2(p[:, 1], p[:, 0])


GOALS = np.array([-0.6, -0.2, 0.2, 0.6])


def test_servo_actions_reach_each_goal_and_the_reward_says_so():
    env = stiction.gym.VectorEnv(
        arm(), 4, action="servo_targets", reward=lambda s: -np.abs(angle(s) - GOALS), frame_skip=24
    )
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.action_space.shape == (4, 1) and env.observation_space.shape == (4, 13)
    obs, info = env.reset(seed=1)
    assert obs.shape == (4, 13)
    np.testing.assert_allclose(obs[:, :3], [[0.5, 0, 0]] * 4)
    for _ in range(100):  # 10 s
        obs, rewards, terminated, truncated, info = env.step(GOALS.reshape(4, 1))
    assert not terminated.any() and not truncated.any() and not info["failed"].any()
    np.testing.assert_allclose(rewards, 0.0, atol=1e-6)
    # The observation's first three numbers are the arm's centre, on the 0.5 m circle.
    np.testing.assert_allclose(obs[:, 0], 0.5 * np.cos(GOALS), atol=1e-6)
    np.testing.assert_allclose(obs[:, 1], 0.5 * np.sin(GOALS), atol=1e-6)


def test_episodes_truncate_and_restart_from_the_start_on_the_next_step():
    env = stiction.gym.VectorEnv(
        arm(),
        2,
        action="forces",
        reward=lambda s: angle(s),
        terminate=lambda s: angle(s) > 0.3,
        max_episode_steps=5,
        frame_skip=12,
    )
    start, _ = env.reset()
    push = np.zeros((2, 1, 3))
    push[0, 0, 1] = 100.0  # world 0 swings past 0.3 rad (servo equilibrium 1 rad); world 1 stays put
    ended_at = None
    for step in range(1, 6):
        obs, rewards, terminated, truncated, _ = env.step(push)
        if terminated[0]:
            ended_at = step
            break
    assert ended_at is not None and ended_at < 5, "world 0 terminated before truncation"
    assert not terminated[1] and not truncated[1]
    # Next step: world 0 starts again (its action ignored), with a zero reward.
    obs, rewards, terminated, truncated, _ = env.step(push)
    np.testing.assert_array_equal(obs[0], start[0])
    assert rewards[0] == 0.0 and not terminated[0] and not truncated[0]
    # World 1 runs on to its 5th step and is truncated there.
    while not truncated[1]:
        obs, rewards, terminated, truncated, _ = env.step(np.zeros((2, 1, 3)))
    assert env._elapsed[1] == 5


def test_a_non_finite_action_terminates_only_its_world_and_bad_shapes_raise():
    env = stiction.gym.VectorEnv(arm(), 3, action="forces", reward=lambda s: np.zeros(3))
    env.reset()
    push = np.zeros((3, 1, 3))
    push[1, 0, 0] = math.nan
    _, _, terminated, _, info = env.step(push)
    assert terminated.tolist() == [False, True, False]
    assert info["failed"].tolist() == [False, True, False]
    obs, _, terminated, _, _ = env.step(np.zeros((3, 1, 3)))
    assert not terminated.any()  # world 1 was reset
    with pytest.raises(ValueError, match=r"actions must have shape \(3, 1, 3\)"):
        env.step(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="needs a world with servos"):
        stiction.gym.VectorEnv(stiction.World.from_scene("pendulum"), 2, reward=lambda s: 0)
    with pytest.raises(ValueError, match="action must be"):
        stiction.gym.VectorEnv(arm(), 2, action="torque", reward=lambda s: 0)
