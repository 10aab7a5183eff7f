"""Batched stepping throughput: S4 (a stack of 20 unit boxes, iterative stepper, h = 1/60 s)
in N copies, world-steps per second, from Python. A benchmark to run by hand, not a test.

    python examples/python/bench_batch.py [--worlds 64] [--steps 200] [--rounds 3]

Needs `pip install mujoco` for the MuJoCo rows (tests/python/run.sh installs it in its
venv). Prints a markdown table on stdout, every configuration interleaved in each round.

- Stiction `Batch`, one `step()` call per step for the whole batch (as an RL loop does),
  on 1 and 2 threads; the same worlds stepped one by one from a Python loop (one
  `World.step()` call per world per step); and `Batch.step(steps=...)`, every step of
  each world in one call (each world's steps back to back, as `mujoco.rollout` runs).
- MuJoCo 4 on an equivalent model (20 free unit boxes of 1 kg stacked on a plane,
  friction 0.6 as S4, h = 1/60 s, its default Newton solver, pyramidal cones): a Python
  loop of `mj_step` over N `MjData`, and `mujoco.rollout` on 1 and 2 threads (N initial
  states, `steps` steps each, in one call).
- Rates: world-steps per second = N x steps / wall time of the timed part, the median
  over rounds.
"""

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import time

import numpy as np

import stiction

try:
    import mujoco
    from mujoco import rollout
except ImportError:  # The MuJoCo rows are optional.
    mujoco = None


def stiction_batch(n, steps, threads):
    batch = stiction.Batch("s4-stack-20", n, threads=threads)
    start = time.perf_counter()
    for _ in range(steps):
        state = batch.step()
    elapsed = time.perf_counter() - start
    assert not state["failed"].any()
    return n * steps / elapsed


def stiction_batch_rollout(n, steps, threads):
    """All the steps in one call, as MuJoCo's rollout does them."""
    batch = stiction.Batch("s4-stack-20", n, threads=threads)
    start = time.perf_counter()
    state = batch.step(steps=steps)
    elapsed = time.perf_counter() - start
    assert not state["failed"].any()
    return n * steps / elapsed


def stiction_loop(n, steps):
    worlds = [stiction.World.from_scene("s4-stack-20") for _ in range(n)]
    start = time.perf_counter()
    for _ in range(steps):
        for world in worlds:
            world.step()
    elapsed = time.perf_counter() - start
    return n * steps / elapsed


STACK_XML = """
<mujoco>
  <option timestep="{h}"/>
  <default><geom friction="0.6 0.005 0.0001"/></default>
  <worldbody>
    <geom type="plane" size="50 50 0.1"/>
    {boxes}
  </worldbody>
</mujoco>
"""


def mujoco_model():
    boxes = "\n".join(
        f'<body pos="0 0 {0.5 + i}"><freejoint/><geom type="box" size="0.5 0.5 0.5" mass="1"/></body>'
        for i in range(20)
    )
    return mujoco.MjModel.from_xml_string(STACK_XML.format(h=1 / 60, boxes=boxes))


def mujoco_loop(n, steps):
    model = mujoco_model()
    datas = [mujoco.MjData(model) for _ in range(n)]
    start = time.perf_counter()
    for _ in range(steps):
        for data in datas:
            mujoco.mj_step(model, data)
    elapsed = time.perf_counter() - start
    return n * steps / elapsed


def mujoco_rollout(n, steps, threads):
    model = mujoco_model()
    datas = [mujoco.MjData(model) for _ in range(threads)]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.empty(mujoco.mj_stateSize(model, spec))
    mujoco.mj_getState(model, datas[0], state0, spec)
    initial = np.tile(state0, (n, 1))
    with rollout.Rollout(nthread=threads) as runner:
        start = time.perf_counter()
        runner.rollout([model] * n, datas, initial, nstep=steps)
        elapsed = time.perf_counter() - start
    return n * steps / elapsed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    n, steps = args.worlds, args.steps
    runs = {
        "Stiction `Batch`, 1 thread": lambda: stiction_batch(n, steps, 1),
        "Stiction `Batch`, 2 threads": lambda: stiction_batch(n, steps, 2),
        "Stiction, Python loop of `World.step()`": lambda: stiction_loop(n, steps),
        "Stiction `Batch`, all steps in one call, 1 thread": lambda: stiction_batch_rollout(n, steps, 1),
        "Stiction `Batch`, all steps in one call, 2 threads": lambda: stiction_batch_rollout(n, steps, 2),
    }
    if mujoco is not None:
        runs["MuJoCo, Python loop of `mj_step`"] = lambda: mujoco_loop(n, steps)
        runs["MuJoCo `rollout`, 1 thread"] = lambda: mujoco_rollout(n, steps, 1)
        runs["MuJoCo `rollout`, 2 threads"] = lambda: mujoco_rollout(n, steps, 2)
    rates = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            rates[name].append(run())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(
        f"{n} copies of S4 x {steps} steps, median of {args.rounds} interleaved rounds; "
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, commit {commit}, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"stiction {stiction.__version__}" + (f", mujoco {mujoco.__version__}" if mujoco else "")
    )
    print()
    base = statistics.median(rates["Stiction, Python loop of `World.step()`"])
    print("| configuration | world-steps/s | ratio to Stiction's Python loop |")
    print("| --- | ---: | ---: |")
    for name, values in rates.items():
        rate = statistics.median(values)
        print(f"| {name} | {rate:,.0f} | {rate / base:.2f} |")


if __name__ == "__main__":
    main()
