"""What calling the engine from Python costs: per-call overhead of `World.step` and the
time to read a 1,000-body state into numpy. A benchmark to run by hand, not a test.

The overhead of a call is measured as the time of `step()` called once per step minus the
time per step of `step(n=200)` (one call for 200 steps, whose Python cost is amortised), on
the same scene and state. Best of five rounds.

    python examples/python/bench_overhead.py
"""

import time

import stiction


def best_us(call, repeats, rounds=5):
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeats):
            call()
        times.append((time.perf_counter() - start) / repeats)
    return min(times) * 1e6


def main():
    for scene in ["s4-stack-20", "s5-spinner"]:
        a = stiction.World.from_scene(scene)
        a.step(n=10)
        per_call = best_us(lambda: a.step(), 200)
        b = stiction.World.from_scene(scene)
        b.step(n=10)
        batched = best_us(lambda: b.step(n=200), 1) / 200
        print(f"{scene}: step() {per_call:.2f} us/step, step(n=200) {batched:.2f} us/step, "
              f"Python overhead {per_call - batched:.2f} us per call")
    pile = stiction.World.from_scene("s2-sphere-pile")
    pile.step(n=5)
    one = best_us(pile.positions, 2000)
    full = best_us(lambda: (pile.positions(), pile.orientations(), pile.linear_velocities(),
                            pile.angular_velocities()), 2000)
    print(f"s2-sphere-pile ({pile.body_count} bodies): positions() {one:.1f} us, "
          f"all four state arrays {full:.1f} us")


if __name__ == "__main__":
    main()
