"""numpy views of a Data: they are the simulation's state (no copies), writes go in, and they
stay valid across steps."""

import numpy as np
import pytest

import ferrodyn
from conftest import bits, scene


def test_qpos_views_the_state_without_copying(chain5):
    data = chain5.new_data()
    a, b = data.qpos, data.qpos
    assert a.ctypes.data == b.ctypes.data
    assert a.base is data
    assert a.dtype == np.float64 and a.shape == (5,) and a.flags.writeable


def test_qvel_follows_qpos_in_the_same_buffer(chain5):
    data = chain5.new_data()
    assert data.qvel.ctypes.data == data.qpos.ctypes.data + 8 * chain5.nq


def test_a_view_taken_before_steps_sees_the_steps(chain5):
    data = chain5.new_data()
    view = data.qpos
    ferrodyn.step(chain5, data, 100)
    assert np.array_equal(bits(view), bits(data.state()[: chain5.nq]))
    assert view[0] != 0.0


def test_written_qpos_is_where_the_next_step_starts(chain5):
    # Writing qpos[0] through the view steps exactly as setting the same state does.
    written, reference = chain5.new_data(), chain5.new_data()
    written.qpos[0] = 0.3
    state = reference.state()
    state[0] = 0.3
    reference.set_state(state)
    ferrodyn.step(chain5, written, 1)
    ferrodyn.step(chain5, reference, 1)
    assert written.digest() == reference.digest()
    # ... and not as the unwritten chain does.
    untouched = chain5.new_data()
    ferrodyn.step(chain5, untouched, 1)
    assert written.digest() != untouched.digest()


def test_written_qvel_is_taken_in(chain5):
    written, reference = chain5.new_data(), chain5.new_data()
    written.qvel[:] = 0.5
    state = reference.state()
    state[5:] = 0.5
    reference.set_state(state)
    ferrodyn.step(chain5, written, 20)
    ferrodyn.step(chain5, reference, 20)
    assert written.digest() == reference.digest()


def test_the_view_stays_put_for_a_million_steps(chain5):
    data = chain5.new_data()
    view = data.qpos
    address = view.ctypes.data
    ferrodyn.step(chain5, data, 1_000_000)
    assert data.steps == 1_000_000
    assert data.qpos.ctypes.data == address
    assert np.array_equal(bits(view), bits(data.state()[:5]))


@pytest.mark.parametrize(
    "name", ["beam6", "spin_up", "four_bar", "steel_cantilever", "chain20_implicit", "sphere_drop"]
)
def test_views_stay_put_in_every_family(name):
    # Flexible (RK4), rigid + flexible (HHT), Cartesian rigid with a loop, flexible (HHT),
    # rigid (generalized-α), rigid with contact.
    model = ferrodyn.load(scene(name))
    data = model.new_data()
    address = data.qpos.ctypes.data
    ferrodyn.step(model, data, 3)
    assert data.qpos.ctypes.data == address
    assert np.array_equal(bits(data.qpos), bits(data.state()[: model.nq]))


def test_ctrl_written_is_the_scene_with_that_value(hil_arm):
    # Setting the torque port to 0 from Python steps as the scene file with value = 0.
    text = scene("hil_arm").read_text().replace("value = -1.0e6", "value = 0.0")
    zero = ferrodyn.Model.from_toml(text, path=str(scene("hil_arm")))
    a, b = hil_arm.new_data(), zero.new_data()
    a.ctrl[0] = 0.0
    ferrodyn.step(hil_arm, a, 500)
    ferrodyn.step(zero, b, 500)
    assert a.digest() == b.digest()


def test_encoder_reads_the_joint_coordinate(hil_arm):
    # One revolute joint from the ground: the encoder's angle and rate are q and v.
    data = hil_arm.new_data()
    ferrodyn.step(hil_arm, data, 400)
    angle, rate = data.sensordata[:2]
    assert angle == pytest.approx(data.qpos[0], abs=1e-12)
    assert rate == pytest.approx(data.qvel[0], abs=1e-12)


def test_tip_stays_half_a_metre_from_the_hinge(hil_arm):
    # The tip point is 0.25 m beyond the arm's centre, which is 0.25 m from the hinge at the
    # origin; the hinge is about y, so the tip moves in the x–z plane.
    data = hil_arm.new_data()
    for _ in range(5):
        ferrodyn.step(hil_arm, data, 200)
        x, y, z = data.sensordata[2:5]
        assert np.hypot(x, z) == pytest.approx(0.5, abs=1e-12)
        assert y == pytest.approx(0.0, abs=1e-12)


def test_sensordata_is_read_only(hil_arm):
    data = hil_arm.new_data()
    with pytest.raises(ValueError):
        data.sensordata[0] = 1.0


def test_energy_of_the_released_chain(chain5):
    # Released at rest along x at the height of the hinge: no kinetic energy and zero
    # potential (zero at the origin); then kinetic = −potential, the chain conserving energy.
    data = chain5.new_data()
    assert list(data.energy) == [0.0, 0.0, 0.0]
    ferrodyn.step(chain5, data, 500)
    kinetic, potential, strain = data.energy
    assert kinetic > 1.0 and potential < -1.0 and strain == 0.0
    assert kinetic + potential == pytest.approx(0.0, abs=1e-6 * kinetic)


def test_state_is_a_copy_and_set_state_restores_it(chain5):
    data = chain5.new_data()
    ferrodyn.step(chain5, data, 10)
    saved = data.state()
    saved_copy = saved.copy()
    ferrodyn.step(chain5, data, 10)
    assert np.array_equal(saved, saved_copy)  # not a view
    time = data.time
    data.set_state(saved)
    assert np.array_equal(bits(data.state()), bits(saved))
    assert data.time == time  # time is kept


def test_set_state_takes_a_list(chain5):
    data = chain5.new_data()
    data.set_state([0.1] * 5 + [0.0] * 5)
    assert list(data.qpos) == [0.1] * 5
