"""Models: sizes, names and timing of the scenes, as the scene files declare them."""

import pytest

import ferrodyn
from conftest import scene


def test_chain5_sizes_and_names(chain5):
    # Five revolute joints in joint coordinates: one coordinate and one rate each.
    assert (chain5.nq, chain5.nv, chain5.nu, chain5.nsensor) == (5, 5, 0, 0)
    assert chain5.body_names == [f"link{k}" for k in range(5)]
    assert chain5.joint_names == [f"hinge{k}" for k in range(5)]
    assert chain5.input_names == [] and chain5.sensor_names == []


def test_chain5_timing(chain5):
    # [simulation] end_time = 1.0, step = 1e-3.
    assert chain5.timestep == 1e-3
    assert chain5.end_time == 1.0
    assert chain5.steps == 1000


def test_hil_arm_ports(hil_arm):
    # One torque input in µN·m (scale 1e-6); an encoder (angle, rate) and a tip point
    # (x, y, z, vx, vy, vz).
    assert (hil_arm.nq, hil_arm.nv, hil_arm.nu) == (1, 1, 1)
    assert hil_arm.input_names == ["torque"]
    assert hil_arm.input_scales == [1e-6]
    assert hil_arm.sensor_names == ["encoder", "tip"]
    assert hil_arm.nsensor == 8
    assert hil_arm.sensor_channels[:3] == ["encoder_angle", "encoder_rate", "tip_x"]


def test_flexible_block_sizes():
    # beam6: one box cell, 8 nodes of 12 ANCF coordinates each.
    model = ferrodyn.load(scene("beam6"))
    assert (model.nq, model.nv) == (96, 96)


def test_coupled_sizes_count_a_quaternion():
    # spin_up: a hub (7 positions with its quaternion, 6 velocities) and a 40×1×1 box beam
    # (41·2·2 = 164 nodes of 12 coordinates).
    model = ferrodyn.load(scene("spin_up"))
    assert model.nq == 7 + 12 * 164
    assert model.nv == 6 + 12 * 164


def test_from_toml_is_the_same_scene(chain5):
    text = scene("chain5").read_text()
    model = ferrodyn.Model.from_toml(text, path=str(scene("chain5")))
    a, b = chain5.new_data(), model.new_data()
    ferrodyn.step(chain5, a, 50)
    ferrodyn.step(model, b, 50)
    assert a.digest() == b.digest()


def test_cartesian_sizes_from_a_string_path():
    # The pendulum's distance constraint keeps its bob in Cartesian coordinates: origin and
    # quaternion (7), velocity and angular velocity (6).
    model = ferrodyn.load(str(scene("pendulum")))
    assert (model.nq, model.nv) == (7, 6)


def test_repr_names_the_scene(chain5):
    assert "chain5.toml" in repr(chain5)
    assert "nq=5" in repr(chain5)
    assert "Data" in repr(chain5.new_data())


def test_new_data_starts_at_the_initial_state(chain5):
    data = chain5.new_data()
    assert data.time == 0.0 and data.steps == 0
    # Released horizontally: every joint at zero, at rest.
    assert list(data.qpos) == [0.0] * 5 and list(data.qvel) == [0.0] * 5


def test_hil_arm_inputs_start_at_the_scene_value(hil_arm):
    # `value = -1.0e6`: what `ferrodyn run` holds.
    assert list(hil_arm.new_data().ctrl) == [-1.0e6]


def test_missing_file_is_a_scene_error(tmp_path):
    with pytest.raises(ferrodyn.SceneError, match="cannot read"):
        ferrodyn.load(tmp_path / "nothing.toml")
