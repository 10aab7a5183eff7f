"""The examples in examples/python run and print the right answers, and the package's
docstring examples hold."""

import doctest
import subprocess
import sys
from pathlib import Path

import stiction
import stiction.lcp

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


def run(name):
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_pendulum_period_example():
    out = run("pendulum_period.py")
    rows = [line.split() for line in out.splitlines()[1:]]
    assert len(rows) == 7
    for row in rows:
        degrees, error = int(row[0].rstrip("°")), float(row[3])
        assert abs(error) < (1e-6 if degrees <= 60 else 1e-3), row


def test_lcp_teaching_example():
    out = run("lcp_box_on_slope.py")
    steep, slippery = out.split("mu = 0.2")
    assert "slides" not in steep and "sticks" in steep
    assert slippery.count("slides") == 4


def test_reinforcement_learning_loop_example():
    out = run("rl_loop.py")
    assert "reward 500 of 500" in out and "bit-identical to episode 1: True" in out


def test_docstring_examples():
    for module in (stiction, stiction.lcp):
        failures, tried = doctest.testmod(module)
        assert tried > 0 and failures == 0, module


def test_docs_first_example_runs_as_written(capsys):
    import re

    text = (EXAMPLES.parents[1] / "docs" / "python.md").read_text()
    block = re.search(r"## A world in ten lines\n\n```python\n(.*?)```", text, re.S).group(1)
    exec(compile(block, "docs/python.md", "exec"), {})
    printed = capsys.readouterr().out.split("\n")
    assert abs(float(printed[2]) - 98.1) < 1e-6  # the box's contacts carry its weight
