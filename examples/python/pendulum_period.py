"""A pendulum's period against the analytic value, at amplitudes from 5 to 120 degrees.

A 1 kg ball (radius 5 cm) on a massless 1 m rod hangs from a ball joint. The exact period of
this physical pendulum is T = 4 sqrt(I / (m g L)) K(sin(theta0 / 2)), with I = m L^2 + 2/5
m r^2 about the pivot and K the complete elliptic integral of the first kind. Stiction's
period is measured from the bob's zero crossings.

    python examples/python/pendulum_period.py          # prints a table
    python examples/python/pendulum_period.py --plot   # and draws it (needs matplotlib)
"""

import math
import sys

import stiction

G, L, R, M = 9.81, 1.0, 0.05, 1.0


def elliptic_k(k):
    """K(k) by the arithmetic-geometric mean: K = pi / (2 AGM(1, sqrt(1 - k^2)))."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    while abs(a - b) > 1e-15 * a:
        a, b = (a + b) / 2, math.sqrt(a * b)
    return math.pi / (2 * a)


def analytic_period(amplitude):
    inertia = M * L**2 + 0.4 * M * R**2
    return 4 * math.sqrt(inertia / (M * G * L)) * elliptic_k(math.sin(amplitude / 2))


def measured_period(amplitude, h=1e-3, periods=3):
    world = stiction.World()
    bob = world.add_body(
        mass=M,
        inertia=[0.4 * M * R**2] * 3,
        position=(L * math.sin(amplitude), 0.0, 2.0 - L * math.cos(amplitude)),
    )
    world.add_ball_joint(bob, anchor=(0.0, 0.0, 2.0))
    crossings, last_x, last_t = [], None, None
    while len(crossings) < periods + 1:
        world.step(h)
        x, t = world.positions()[bob, 0], world.time
        if last_x is not None and last_x < 0.0 <= x:
            crossings.append(last_t + (t - last_t) * (-last_x) / (x - last_x))
        last_x, last_t = x, t
    return (crossings[-1] - crossings[0]) / periods


def main():
    rows = []
    print(f"{'amplitude':>10} {'analytic T':>12} {'stiction T':>12} {'error':>10}")
    for degrees in [5, 15, 30, 45, 60, 90, 120]:
        a = math.radians(degrees)
        exact, ours = analytic_period(a), measured_period(a)
        rows.append((degrees, exact, ours))
        print(f"{degrees:>9}° {exact:>11.6f}s {ours:>11.6f}s {(ours - exact) / exact:>+10.2e}")
    if "--plot" in sys.argv:
        try:
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot")
            return
        d, exact, ours = zip(*rows)
        plt.plot(d, exact, "-", label="analytic (elliptic integral)")
        plt.plot(d, ours, "o", label="stiction")
        plt.xlabel("amplitude (degrees)")
        plt.ylabel("period (s)")
        plt.legend()
        plt.savefig("pendulum_period.png", dpi=120)
        print("wrote pendulum_period.png")


if __name__ == "__main__":
    main()
