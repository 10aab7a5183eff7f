"""Run a ``stiction sweep`` over a Ray cluster (docs/batch.md#ray-clusters).

Ray (``pip install "ray>=2.9"``) is optional: this module imports it only when a sweep
runs. The sweep is split into parts (``stiction sweep --shard I/N``), one Ray task each;
every task runs its part with the ``stiction`` command on whichever node Ray chose and
sends back its rows, and the driver writes one ``summary.csv`` sorted by run, the table a
local ``stiction sweep`` with the same arguments writes (equal row for row, but for the
``wall_seconds`` column). A scene file is read by the driver and shipped to the tasks as
text, so the nodes need the ``stiction`` command but not the scene.

From Python::

    import stiction.ray
    stiction.ray.sweep("scenes/incline.toml", ["materials.wood.friction=0.1:0.9:9"],
                       seeds=4, out="out/friction", address="ray://head:10001")

From the shell (the one command to run against a cluster)::

    python -m stiction.ray scenes/incline.toml --set materials.wood.friction=0.1:0.9:9 \\
        --seeds 4 --out out/friction --address ray://head:10001

Every node needs the ``stiction`` command: on ``PATH``, or named by ``$STICTION_BIN`` on
that node (``cargo install --path crates/cli`` installs it).
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
from typing import Any, Optional, Sequence

__all__ = ["sweep", "SweepFailed"]


class SweepFailed(RuntimeError):
    """A part of the sweep could not run (bad arguments, no ``stiction`` command on a
    node): the message carries the command's ``error:`` line and the node it ran on."""


def _binary() -> str:
    named = os.environ.get("STICTION_BIN")
    if named:
        return named
    found = shutil.which("stiction")
    if found:
        return found
    raise SweepFailed("no `stiction` command on this node: put it on PATH or set STICTION_BIN")


def _run_part(
    scene_name: str, scene_text: Optional[str], args: list[str], part: int, parts: int
) -> dict[str, Any]:
    """One Ray task: runs part ``part`` of ``parts`` in a scratch directory and returns
    its summary table's text, or the command's error."""
    import socket

    with tempfile.TemporaryDirectory(prefix="stiction-ray-") as scratch:
        scene = scene_name
        if scene_text is not None:
            scene = str(pathlib.Path(scratch) / scene_name)
            pathlib.Path(scene).write_text(scene_text)
        out = pathlib.Path(scratch) / "part"
        command = [_binary(), "sweep", scene, *args, "--out", str(out), "--shard", f"{part}/{parts}", "--quiet"]
        done = subprocess.run(command, capture_output=True, text=True)
        summary = out / "summary.csv"
        return {
            "node": socket.gethostname(),
            "status": done.returncode,
            "stderr": done.stderr.strip(),
            "summary": summary.read_text() if summary.is_file() else None,
        }


def sweep(
    scene: str | os.PathLike[str],
    sets: Sequence[str],
    *,
    out: str | os.PathLike[str],
    seeds: int = 1,
    args: Sequence[str] = (),
    address: Optional[str] = None,
    parts: Optional[int] = None,
) -> pathlib.Path:
    """Runs ``stiction sweep SCENE --set S ... --seeds N ARGS`` as Ray tasks and writes
    ``OUT/summary.csv``; returns its path.

    ``sets``: the ``--set`` arguments (``"PATH=VALUES"``); ``args``: further ``stiction
    sweep`` options (``["--steps", "600", "--jitter", "0.01"]``; not ``--out``,
    ``--shard`` or ``--keep-runs``). ``address``: the cluster, as ``ray.init`` takes it
    (``None``: the one this process is connected to, or a local one). ``parts``: how many
    tasks (default: the cluster's CPU count). Runs that fail are rows with their error,
    as in a local sweep. Raises :class:`SweepFailed` when a part cannot run at all.
    """
    import ray

    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False)
    path = pathlib.Path(scene)
    scene_text = path.read_text() if path.is_file() else None
    scene_name = path.name if scene_text is not None else str(scene)
    argv = [a for s in sets for a in ("--set", s)] + ["--seeds", str(seeds), *args]
    for forbidden in ("--out", "--shard", "--keep-runs"):
        if any(a == forbidden or a.startswith(forbidden + "=") for a in args):
            raise SweepFailed(f"{forbidden} is chosen by stiction.ray")
    if parts is None:
        parts = max(1, int(ray.cluster_resources().get("CPU", 1)))
    task = ray.remote(num_cpus=1)(_run_part)
    results = ray.get([task.remote(scene_name, scene_text, argv, part, parts) for part in range(parts)])

    header: Optional[list[str]] = None
    rows: dict[int, list[str]] = {}
    for part, result in enumerate(results):
        # Exit 1 means some runs failed; their rows say why. Anything else is a refusal.
        if result["status"] not in (0, 1) or result["summary"] is None:
            raise SweepFailed(f"part {part}/{parts} on {result['node']}: {result['stderr']}")
        table = list(csv.reader(io.StringIO(result["summary"])))
        if header is None:
            header = table[0]
        elif table[0] != header:
            raise SweepFailed(f"part {part}/{parts} wrote another table: {table[0]}")
        for row in table[1:]:
            rows[int(row[0])] = row
    target = pathlib.Path(out)
    target.mkdir(parents=True, exist_ok=True)
    summary = target / "summary.csv"
    with summary.open("w", newline="") as file:
        writer = csv.writer(file, lineterminator="\n")
        writer.writerow(header or [])
        for run in sorted(rows):
            writer.writerow(rows[run])
    return summary


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``python -m stiction.ray SCENE --set PATH=VALUES ... --out DIR [--address A]``."""
    parser = argparse.ArgumentParser(prog="python -m stiction.ray", description=__doc__.splitlines()[0])
    parser.add_argument("scene")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="PATH=VALUES")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--address", default=None, help="the Ray cluster (ray.init's address)")
    parser.add_argument("--parts", type=int, default=None, help="tasks (default: the cluster's CPUs)")
    known, rest = parser.parse_known_args(argv)
    try:
        summary = sweep(
            known.scene,
            known.sets,
            out=known.out,
            seeds=known.seeds,
            args=rest,
            address=known.address,
            parts=known.parts,
        )
    except SweepFailed as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
