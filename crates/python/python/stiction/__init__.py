"""Stiction: rigid-body dynamics on complementarity solvers, from Python.

Bodies, joints and contacts become rows of a boxed linear complementarity problem (LCP)
each step, solved exactly by Dantzig pivoting (``solver="exact"``, like ODE's
``dWorldStep``) or by projected Gauss-Seidel (``solver="iterative"``, like
``dWorldQuickStep``).

>>> import stiction
>>> world = stiction.World()
>>> ground = world.add_collider("halfspace")
>>> ball = world.add_body(mass=1.0, position=(0, 0, 1))
>>> _ = world.add_collider("sphere", ball, radius=0.1)
>>> _ = world.step(1 / 60, n=120)
>>> round(float(world.positions()[ball, 2]), 3)
0.1

Conventions: z is up; SI units; quaternions are (w, x, y, z); bodies and joints are
indices in the order they were added (the rows of every state array) or names.

- :class:`World`: bodies, colliders, joints, stepping, state arrays, contacts, snapshots,
  scene queries (rays, shape casts, overlaps) and sensor and contact events.
- :class:`Batch`: many worlds stepped together on all cores, actions and states as
  ``(N, ...)`` arrays.
- :mod:`stiction.lcp`: the LCP solvers on numpy arrays.
- :class:`StictionError` (a ``ValueError``) and its subclasses for every refusal.
"""

from ._stiction import (
    SNAPSHOT_FORMAT_VERSION,
    Batch,
    ContactEvents,
    ContactPairs,
    Contacts,
    JointFeedback,
    LcpError,
    ModelError,
    PointProjection,
    RayHit,
    RayHits,
    SceneError,
    SensorEvents,
    ShapeHit,
    SnapshotError,
    StepError,
    StepStats,
    StictionError,
    World,
    WorldError,
    __version__,
)
from . import lcp

__all__ = [
    "SNAPSHOT_FORMAT_VERSION",
    "Batch",
    "ContactEvents",
    "ContactPairs",
    "Contacts",
    "JointFeedback",
    "LcpError",
    "ModelError",
    "PointProjection",
    "RayHit",
    "RayHits",
    "SceneError",
    "SensorEvents",
    "ShapeHit",
    "SnapshotError",
    "StepError",
    "StepStats",
    "StictionError",
    "World",
    "WorldError",
    "__version__",
    "lcp",
]
