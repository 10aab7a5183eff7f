"""Shared helpers of the Python test suite (run by `pytest tests/python` in the venv that
`pip install ./crates/python` built)."""

import math
import threading
import time

import pytest

import stiction

G = 9.81


def zero_crossings(t, x):
    """Times where x changes sign from negative to positive, by linear interpolation."""
    out = []
    for i in range(1, len(x)):
        if x[i - 1] < 0.0 <= x[i]:
            f = -x[i - 1] / (x[i] - x[i - 1])
            out.append(t[i - 1] + f * (t[i] - t[i - 1]))
    return out


def physical_pendulum_period(length, radius, amplitude):
    """Period of a ball of radius `radius` on a massless rod of `length` (a physical
    pendulum: the ball turns with the rod), to fourth order in the amplitude."""
    inertia_ratio = 1.0 + 0.4 * radius**2 / length**2  # I_pivot / (m L^2)
    small = 2.0 * math.pi * math.sqrt(inertia_ratio * length / G)
    return small * (1.0 + amplitude**2 / 16.0 + 11.0 * amplitude**4 / 3072.0)


def loops_beside(call):
    """Runs `call()` in a thread and counts how often this thread loops meanwhile: with the
    GIL held for the whole call the count stays near 0. Returns (count, call's result)."""
    started, result = threading.Event(), []

    def run():
        started.set()
        result.append(call())

    thread = threading.Thread(target=run)
    thread.start()
    started.wait()
    time.sleep(0.01)
    count = 0
    while thread.is_alive():
        count += 1
    thread.join()
    return count, result[0]


@pytest.fixture
def resting_box():
    """A 10 kg unit cube resting on the ground (settled for one second)."""
    world = stiction.World()
    world.add_collider("halfspace")
    box = world.add_body(mass=10.0, inertia=[10.0 / 6.0] * 3, position=(0, 0, 0.5), name="box")
    world.add_collider("box", box, half_extents=(0.5, 0.5, 0.5))
    world.step(1 / 240, n=240)
    return world, box
