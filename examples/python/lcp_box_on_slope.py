"""Teaching the contact LCP: a box on a slope. Which contacts stick, which slide?

A 1 kg cube rests on a plane tilted by 20 degrees. Each step the exact stepper builds one
boxed LCP per island, A x = b + w, with three rows per contact point: the normal force
(x >= 0) and two friction forces bounded by mu times the normal force (findex couples them).
We take that LCP from the running world, solve it ourselves, and read the answer:

- a friction row strictly inside its bounds has w = 0: that contact sticks;
- a friction row at +-mu x_n has w != 0 (the tangential velocity it could not stop): slides.

With mu = 0.5 > tan(20°) = 0.36 the box sticks; with mu = 0.2 it slides, and every friction
force sits on its bound.

    python examples/python/lcp_box_on_slope.py
"""

import math

import numpy as np

import stiction
from stiction import lcp

TILT = math.radians(20.0)
H = 1 / 240


def box_on_slope(mu):
    # The slope is a half-space whose normal is tilted about y; the box sits on it, turned
    # the same way.
    normal = (math.sin(TILT), 0.0, math.cos(TILT))
    turn = (math.cos(TILT / 2), 0.0, math.sin(TILT / 2), 0.0)  # (w, x, y, z)
    world = stiction.World(capture_problems=True)
    world.add_collider("halfspace", normal=normal, friction=mu)
    box = world.add_body(mass=1.0, inertia=[1 / 6] * 3, orientation=turn,
                         position=tuple(0.5 * n for n in normal))
    world.add_collider("box", box, half_extents=(0.5, 0.5, 0.5), friction=mu)
    world.step(H, n=60)
    return world, box


def explain(mu):
    world, box = box_on_slope(mu)
    (problem,) = world.captured_problems()
    result = problem.solve("dantzig")
    print(f"\nmu = {mu}: {problem}, status {result.status}")
    # The rows are velocity-level: w = A x - b is the relative velocity the step leaves
    # at the contact, divided by h. A friction force strictly inside mu x_n needs w = 0
    # (the contact sticks); one on the bound may have w != 0: the surfaces slip at w h.
    print(f"{'contact':>8} {'normal N':>9} {'friction N':>11} {'mu x_n N':>9} {'slip m/s':>9}  state")
    normals = np.flatnonzero(problem.findex < 0)
    for k, j in enumerate(normals):
        rows = np.flatnonzero(problem.findex == j)
        bound = problem.hi[rows[0]] * result.x[j]
        friction = np.linalg.norm(result.x[rows])
        slip = np.linalg.norm(result.w[rows]) * H
        if friction < bound * (1 - 1e-9):
            state = "sticks: inside the cone, w = 0"
        elif slip < 1e-5:
            state = "on the cone's edge, but not moving"
        else:
            state = "slides: friction at mu x_n"
        print(f"{k:>8} {result.x[j]:>9.4f} {friction:>11.4f} {bound:>9.4f} {slip:>9.2e}  {state}")
    total_n = result.x[normals].sum()
    print(f"sum of normal forces {total_n:.4f} N = m g cos(tilt) {9.81 * math.cos(TILT):.4f} N")
    speed = np.linalg.norm(world.linear_velocities()[box])
    print(f"box speed after 0.25 s: {speed:.4f} m/s (g (sin - mu cos) t = "
          f"{max(0.0, 9.81 * (math.sin(TILT) - mu * math.cos(TILT))) * 0.25:.4f})")


if __name__ == "__main__":
    explain(0.5)
    explain(0.2)
