"""World.from_urdf / from_mjcf / from_model: robot models loaded by stiction-models, with
bodies and joints by link and joint name, the loader's warnings, and located errors."""

import math
import pathlib

import pytest

import stiction

FIXTURES = pathlib.Path(__file__).resolve().parents[2] / "crates/models/tests/fixtures"


def test_urdf_double_pendulum_swings_and_is_addressable_by_name():
    world = stiction.World.from_urdf(FIXTURES / "double_pendulum.urdf", joints={"shoulder": 0.5})
    names = world.body_names
    assert {"base", "upper", "lower"} <= set(names)
    assert set(world.joint_names) == {"shoulder", "elbow"}
    angle, rate = world.joint_axis("shoulder")
    assert angle == pytest.approx(0.5, abs=1e-9)
    assert rate == 0.0
    upper = world.body_index("upper")
    x0 = world.positions()[upper, 0]
    assert x0 < -0.2
    angles = []
    for _ in range(480):  # 2 s at the default 1/240 s
        world.step()
        angles.append(world.joint_axis("shoulder")[0])
    assert world.time == pytest.approx(2.0)
    # Released at +0.5 rad, it swings through to the other side.
    assert min(angles) < -0.2, min(angles)
    assert all(math.isfinite(a) for a in angles)
    # The warnings are located lines.
    assert world.model_warnings
    assert all("double_pendulum.urdf:" in w and ": warning: " in w for w in world.model_warnings)


def test_mjcf_loads_with_options():
    world = stiction.World.from_mjcf(
        FIXTURES / "double_pendulum.xml", base="fixed", hold=True, timestep=1e-3
    )
    assert world.joint_count == 2
    assert all(n is not None for n in world.joint_names)
    world.step(n=10)
    assert world.time == pytest.approx(0.01)
    assert isinstance(stiction.World.from_model(str(FIXTURES / "arm.xml")), stiction.World)


def test_a_bad_file_raises_a_located_model_error(tmp_path):
    bad = tmp_path / "bad.urdf"
    bad.write_text(
        '<robot name="x">\n  <link name="a"/>\n'
        '  <joint name="j" type="revolute"><parent link="a"/></joint>\n</robot>\n'
    )
    with pytest.raises(stiction.ModelError) as info:
        stiction.World.from_urdf(bad)
    assert str(info.value).startswith(f"{bad}:3:3: ")
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, stiction.StictionError)


def test_bad_options_raise():
    with pytest.raises(stiction.ModelError, match="nope"):
        stiction.World.from_urdf(FIXTURES / "double_pendulum.urdf", joints={"nope": 1.0})
    with pytest.raises(stiction.ModelError, match="base"):
        stiction.World.from_urdf(FIXTURES / "double_pendulum.urdf", base="wobbly")
