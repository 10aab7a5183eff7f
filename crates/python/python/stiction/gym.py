"""A gymnasium vector environment over a :class:`stiction.Batch` (docs/batch.md).

Gymnasium (``pip install gymnasium``) is optional: importing this module needs it. The
environment steps N copies of one world in one call per step, on all cores, with the GIL
released; what a task needs (its reward, when an episode ends) comes in as functions of the
batch's state arrays, so any scene or robot model becomes a vectorised environment::

    import numpy as np
    import stiction, stiction.gym

    world = stiction.World.from_model("arm.urdf", servo=(100, 10))
    def reward(state):               # state: the dict Batch.step returns, arrays (N, ...)
        return -np.linalg.norm(state["positions"][:, -1] - (0.3, 0.0, 0.5), axis=1)
    env = stiction.gym.VectorEnv(world, 64, action="servo_targets", reward=reward,
                                 max_episode_steps=500)
    obs, info = env.reset(seed=0)
    obs, rewards, terminated, truncated, info = env.step(env.action_space.sample())

- **Actions**: ``"servo_targets"`` (N, servo axes), each servo's target position, or
  ``"forces"`` (N, bodies, 3) at the centres of mass, N, world frame. Bounds: ``low`` and
  ``high`` (default +-inf).
- **Observations**: per world, the bodies' positions, orientations (w, x, y, z), linear
  and angular velocities, flattened: (N, 13 x bodies), float64.
- **Episodes**: ``terminate(state)`` (N,) bool ends one (default: never), and
  ``max_episode_steps`` truncates; a world whose step the engine refused (held in the
  batch) is terminated with ``info["failed"]``. Ended worlds are reset to their start on
  the next ``step`` (gymnasium's next-step autoreset), ignoring that step's action.
- ``frame_skip``: engine steps per environment step (the action held over them).
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

import gymnasium
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from ._stiction import Batch, World

__all__ = ["VectorEnv"]

_State = dict[str, np.ndarray]


class VectorEnv(gymnasium.vector.VectorEnv):
    """N copies of a world as one gymnasium vector environment (see the module docs)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        world: Union[World, str],
        num_envs: int,
        *,
        action: str = "servo_targets",
        reward: Callable[[_State], np.ndarray],
        terminate: Optional[Callable[[_State], np.ndarray]] = None,
        max_episode_steps: Optional[int] = None,
        frame_skip: int = 1,
        low: float = -np.inf,
        high: float = np.inf,
        threads: int = 0,
    ) -> None:
        if action not in ("servo_targets", "forces"):
            raise ValueError(f'action must be "servo_targets" or "forces", got {action!r}')
        if frame_skip < 1:
            raise ValueError(f"frame_skip must be >= 1, got {frame_skip}")
        self.batch = Batch(world, num_envs, threads=threads)
        self.num_envs = num_envs
        self._action = action
        self._reward = reward
        self._terminate = terminate
        self._max_steps = max_episode_steps
        self._frame_skip = frame_skip
        state = self.batch.state()
        bodies = state["positions"].shape[1]
        if action == "servo_targets":
            axes = self.batch.servo_axes
            if axes == 0:
                raise ValueError('action="servo_targets" needs a world with servos (set_servo)')
            single_action: spaces.Box = spaces.Box(low, high, shape=(axes,), dtype=np.float64)
        else:
            single_action = spaces.Box(low, high, shape=(bodies, 3), dtype=np.float64)
        self.single_action_space = single_action
        self.action_space = spaces.Box(
            np.broadcast_to(single_action.low, (num_envs, *single_action.shape)),
            np.broadcast_to(single_action.high, (num_envs, *single_action.shape)),
            dtype=np.float64,
        )
        self.single_observation_space = spaces.Box(-np.inf, np.inf, shape=(13 * bodies,), dtype=np.float64)
        self.observation_space = spaces.Box(-np.inf, np.inf, shape=(num_envs, 13 * bodies), dtype=np.float64)
        self._elapsed = np.zeros(num_envs, dtype=np.int64)
        self._ended = np.zeros(num_envs, dtype=bool)

    @staticmethod
    def observe(state: _State) -> np.ndarray:
        """The observation rows of a batch state: (N, 13 x bodies)."""
        n = state["positions"].shape[0]
        parts = [state[k].reshape(n, -1) for k in ("positions", "orientations", "linear_velocities", "angular_velocities")]
        return np.concatenate(parts, axis=1)

    def reset(
        self, *, seed: Optional[Union[int, list[int]]] = None, options: Optional[dict[str, Any]] = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Every world back to its start (the worlds are deterministic: ``seed`` only seeds
        the action space's sampler)."""
        if seed is not None:
            self.action_space.seed(seed if isinstance(seed, int) else seed[0])
        self.batch.reset()
        self._elapsed[:] = 0
        self._ended[:] = False
        return self.observe(self.batch.state()), {}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        actions = np.asarray(actions, dtype=np.float64)
        if actions.shape != self.action_space.shape:
            raise ValueError(f"actions must have shape {self.action_space.shape}, got {actions.shape}")
        kwargs = {self._action: actions}
        state = self.batch.step(**kwargs, steps=self._frame_skip)
        self._elapsed += 1
        # Worlds whose episode ended last step start again, their action ignored (they were
        # stepped with the others and are put back at their start).
        ended = np.flatnonzero(self._ended)
        if len(ended):
            self.batch.reset(ended.tolist())
            self._elapsed[ended] = 0
            state = self.batch.state()
        rewards = np.asarray(self._reward(state), dtype=np.float64).reshape(self.num_envs)
        terminated = state["failed"].copy()
        if self._terminate is not None:
            terminated |= np.asarray(self._terminate(state), dtype=bool).reshape(self.num_envs)
        truncated = np.zeros(self.num_envs, dtype=bool)
        if self._max_steps is not None:
            truncated = (self._elapsed >= self._max_steps) & ~terminated
        # Worlds reset on this step report a zero reward and no ending (next-step autoreset).
        if len(ended):
            rewards[ended] = 0.0
            terminated[ended] = False
            truncated[ended] = False
        self._ended = terminated | truncated
        return self.observe(state), rewards, terminated, truncated, {"failed": state["failed"]}
