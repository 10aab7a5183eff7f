"""A reinforcement-learning style loop: a cart-pole reset from a snapshot, driven by motor
commands, observed as numpy arrays.

The cart slides along x (a slider joint with a velocity motor: the action is the target
velocity); the pole swings on a hinge. Each episode restores the same snapshot, so runs are
reproducible bit for bit. With gymnasium installed, `CartPoleEnv` is a `gymnasium.Env`.

    python examples/python/rl_loop.py
"""

import math

import numpy as np

import stiction

DT = 1 / 100
# Joint indices (the order they are added in build()); snapshots carry no names.
RAIL, HINGE = 0, 1


def build():
    world = stiction.World(timestep=DT)
    cart = world.add_body(mass=1.0, inertia=[0.1, 0.1, 0.1], position=(0, 0, 1), name="cart")
    world.add_slider_joint(cart, axis=(1, 0, 0), limit=(-2.4, 2.4), motor=(0.0, 50.0), name="rail")
    pole = world.add_body(mass=0.1, inertia=[0.1 / 3 * 0.25, 0.1 / 3 * 0.25, 1e-4],
                          position=(0, 0, 1.5), name="pole")
    world.add_hinge_joint(pole, cart, anchor=(0, 0, 1), axis=(0, 1, 0), name="hinge")
    return world


class CartPole:
    """reset() -> observation; step(action) -> (observation, reward, done)."""

    def __init__(self):
        self.start = build().snapshot()
        self.world = None

    def observe(self):
        x, v = self.world.joint_axis(RAIL)
        angle, rate = self.world.joint_axis(HINGE)
        return np.array([x, v, angle, rate])

    def reset(self, tilt=0.05):
        self.world = stiction.World.from_snapshot(self.start, timestep=DT)
        # Tip the pole a little (a rotation about y of the pole's position and attitude).
        p = self.world.positions()
        q = self.world.orientations()
        p[1] = (0.5 * math.sin(tilt), 0.0, 1.0 + 0.5 * math.cos(tilt))
        q[1] = (math.cos(tilt / 2), 0.0, math.sin(tilt / 2), 0.0)
        self.world.set_state(positions=p, orientations=q)
        return self.observe()

    def step(self, action):
        self.world.set_motor(RAIL, float(action), 50.0)
        self.world.step()
        obs = self.observe()
        done = abs(obs[2]) > 0.5 or abs(obs[0]) > 2.3
        return obs, 0.0 if done else 1.0, done


def policy(obs):
    """A linear law, tuned by a grid search: move the cart under the pole, and (through the
    position terms, whose sign is the pole's) lean the pole back towards the centre."""
    x, v, angle, rate = obs
    return 5.0 * angle + 1.0 * rate + 2.0 * x + 2.0 * v


def run_episode(env, steps=500):
    obs, total = env.reset(), 0.0
    for _ in range(steps):
        obs, reward, done = env.step(policy(obs))
        total += reward
        if done:
            break
    return total, obs


try:
    import gymnasium as gym

    class CartPoleEnv(gym.Env):
        """The same cart-pole as a gymnasium environment (continuous action: cart velocity)."""

        def __init__(self):
            self.inner = CartPole()
            self.action_space = gym.spaces.Box(-5.0, 5.0, (1,), dtype=np.float64)
            self.observation_space = gym.spaces.Box(-np.inf, np.inf, (4,), dtype=np.float64)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return self.inner.reset(), {}

        def step(self, action):
            obs, reward, done = self.inner.step(float(np.asarray(action).reshape(-1)[0]))
            return obs, reward, done, False, {}

except ImportError:
    pass


if __name__ == "__main__":
    env = CartPole()
    first = run_episode(env)
    second = run_episode(env)
    print(f"episode 1: reward {first[0]:.0f} of 500, final [x, v, angle, rate] {np.round(first[1], 6)}")
    print(f"episode 2: reward {second[0]:.0f}, bit-identical to episode 1: {np.array_equal(first[1], second[1])}")
