"""stiction.ray: a sweep run as Ray tasks on a local two-node cluster (a head and a worker
process on loopback, started here) writes the summary a local `stiction sweep` writes, row
for row (but for the wall time column).

Needs Ray (tests/python/run.sh installs it) and the stiction command ($STICTION_BIN, or
target/release/stiction or target/debug/stiction). Fails when either is missing, unless
STICTION_SKIP_RAY=1, which skips it with that reason.
"""

import csv
import os
import pathlib
import shutil
import socket
import subprocess
import sys

import pytest

import stiction.ray

ROOT = pathlib.Path(__file__).resolve().parents[2]

if os.environ.get("STICTION_SKIP_RAY") == "1":
    pytest.skip("STICTION_SKIP_RAY=1", allow_module_level=True)

try:
    import ray
except ImportError:  # A missing Ray must not pass silently.
    pytest.fail("ray is not installed: run tests/python/run.sh, or set STICTION_SKIP_RAY=1", pytrace=False)


def stiction_binary():
    named = os.environ.get("STICTION_BIN")
    candidates = [named] if named else [ROOT / "target/release/stiction", ROOT / "target/debug/stiction"]
    for candidate in candidates:
        if candidate and pathlib.Path(candidate).is_file():
            return str(candidate)
    pytest.fail("no stiction binary (set STICTION_BIN or run cargo build)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    ray_cli = shutil.which("ray") or str(pathlib.Path(sys.executable).parent / "ray")
    binary = stiction_binary()
    env = dict(os.environ, STICTION_BIN=binary, RAY_USAGE_STATS_ENABLED="0")
    port = free_port()
    address = f"127.0.0.1:{port}"
    temp = tmp_path_factory.mktemp("ray")
    start = [ray_cli, "start", "--num-cpus=1", "--disable-usage-stats"]
    subprocess.run(
        start + ["--head", f"--port={port}", "--node-ip-address=127.0.0.1", "--include-dashboard=false", f"--temp-dir={temp}"],
        check=True,
        env=env,
        capture_output=True,
    )
    try:
        subprocess.run(start + [f"--address={address}", "--node-ip-address=127.0.0.1"], check=True, env=env, capture_output=True)
        os.environ["STICTION_BIN"] = binary
        ray.init(address=address, log_to_driver=False)
        yield address, binary
    finally:
        ray.shutdown()
        subprocess.run([ray_cli, "stop", "--force"], env=env, capture_output=True)


def rows(path):
    with open(path, newline="") as file:
        table = list(csv.DictReader(file))
    for row in table:
        row.pop("wall_seconds")
    return table


def test_a_32_run_sweep_over_a_two_node_cluster_equals_the_local_sweep(cluster, tmp_path):
    _, binary = cluster
    alive = [n for n in ray.nodes() if n["Alive"]]
    assert len(alive) == 2, "a head and a worker"
    scene = ROOT / "scenes" / "incline.toml"
    sets = ["materials.wood.friction=0.1:0.8:8"]
    args = ["--steps", "60", "--jitter", "0.01"]
    local = tmp_path / "local"
    subprocess.run(
        [binary, "sweep", str(scene), "--set", sets[0], "--seeds", "4", *args, "--out", str(local), "--quiet"],
        check=True,
    )
    summary = stiction.ray.sweep(scene, sets, seeds=4, args=args, out=tmp_path / "ray", parts=4)
    expected, got = rows(local / "summary.csv"), rows(summary)
    assert len(expected) == 32
    assert got == expected
    # The runs differ (friction and seeds), so equal tables mean equal runs.
    assert len({r["report_x"] for r in got}) == 32


def test_a_part_that_cannot_run_is_an_error(cluster, tmp_path):
    with pytest.raises(stiction.ray.SweepFailed, match="no-such-path"):
        stiction.ray.sweep("incline", ["no-such-path=1,2"], out=tmp_path / "bad", parts=2)
    with pytest.raises(stiction.ray.SweepFailed, match="--shard is chosen"):
        stiction.ray.sweep("incline", [], out=tmp_path / "bad", args=["--shard", "0/2"])
