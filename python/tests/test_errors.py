"""Bad input gets a clear exception with the CLI's message, never a crash; a refused write or a
failed step leaves the data at its last good state."""

import numpy as np
import pytest

import ferrodyn
from conftest import bits, cli_error, scene

BAD_JOINT = """
[simulation]
end_time = 1.0
step = 1e-3

[[body]]
id = 1
name = "arm"
mass = 1.0
inertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }

[[joint]]
name = "elbow"
type = "revolute"
body_i = "ground"
body_j = "forearm"
frame_i = { origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }
frame_j = { origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }
"""


def test_scene_error_carries_the_cli_message(cli, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(BAD_JOINT)
    with pytest.raises(ferrodyn.SceneError) as caught:
        ferrodyn.load(path)
    message = str(caught.value)
    assert message == cli_error(cli, "run", str(path), "--out", str(tmp_path / "out"))
    assert "forearm" in message and 'joint "elbow"' in message and ":16" in message


def test_from_toml_errors_name_the_line():
    with pytest.raises(ferrodyn.SceneError, match=r"<string>:16"):
        ferrodyn.Model.from_toml(BAD_JOINT)


def test_exceptions_share_a_base():
    for kind in [ferrodyn.SceneError, ferrodyn.StepError, ferrodyn.StateError, ferrodyn.ModelMismatchError]:
        assert issubclass(kind, ferrodyn.FerrodynError)


def test_nan_in_qpos_is_refused_and_undone(chain5):
    data = chain5.new_data()
    ferrodyn.step(chain5, data, 10)
    good = data.state()
    data.qpos[2] = np.nan
    with pytest.raises(ferrodyn.StateError, match=r"qpos\[2\] = NaN"):
        ferrodyn.step(chain5, data)
    assert np.array_equal(bits(data.state()), bits(good))
    assert data.steps == 10
    ferrodyn.step(chain5, data)  # and it goes on
    assert data.steps == 11


def test_infinity_in_qvel_is_refused(chain5):
    data = chain5.new_data()
    data.qvel[1] = np.inf
    with pytest.raises(ferrodyn.StateError, match=r"qvel\[1\] = inf"):
        data.digest()
    assert data.qvel[1] == 0.0


def test_nan_in_ctrl_is_refused_and_undone(hil_arm):
    data = hil_arm.new_data()
    data.ctrl[0] = np.nan
    with pytest.raises(ferrodyn.StateError, match=r"ctrl\[0\] = NaN"):
        ferrodyn.step(hil_arm, data)
    assert data.ctrl[0] == -1.0e6


def test_set_state_with_nan_names_the_joint(chain5):
    data = chain5.new_data()
    state = data.state()
    state[3] = np.nan
    with pytest.raises(ferrodyn.StateError, match='joint "hinge3"'):
        data.set_state(state)
    assert not np.isnan(data.state()).any()


def test_set_state_wrong_shape(chain5):
    with pytest.raises(ValueError, match=r"shape \(10,\), not \(3,\)"):
        chain5.new_data().set_state(np.zeros(3))


def test_set_state_wrong_dtype(chain5):
    with pytest.raises(TypeError, match="float64"):
        chain5.new_data().set_state(np.zeros(10, dtype=np.int64))


def test_set_state_not_numbers(chain5):
    with pytest.raises(TypeError):
        chain5.new_data().set_state(["a"] * 10)


def test_data_of_another_model(chain5):
    other = ferrodyn.load(scene("chain5"))  # the same file, another Model
    with pytest.raises(ferrodyn.ModelMismatchError, match="another Model"):
        ferrodyn.step(other, chain5.new_data())


def test_failed_step_leaves_the_last_good_state(chain5):
    # A rate of 1e300 rad/s overflows within the step: the kernel refuses the non-finite
    # result and the state stays where the step started.
    data = chain5.new_data()
    ferrodyn.step(chain5, data, 5)
    data.qvel[0] = 1e300
    before = data.state()
    with pytest.raises(ferrodyn.StepError, match="step 6") as caught:
        ferrodyn.step(chain5, data, 10)
    assert "hinge" in str(caught.value)
    assert np.array_equal(bits(data.state()), bits(before))
    assert data.steps == 5


def test_negative_nstep_is_refused(chain5):
    with pytest.raises(OverflowError):
        ferrodyn.step(chain5, chain5.new_data(), -1)


def test_data_busy_in_another_thread_is_an_error_not_a_crash(chain5):
    import threading

    data = chain5.new_data()
    worker = threading.Thread(target=ferrodyn.step, args=(chain5, data, 300_000))
    worker.start()
    errors = 0
    while worker.is_alive():
        try:
            data.digest()
        except RuntimeError:
            errors += 1
    worker.join()
    assert errors > 0
    assert data.steps == 300_000
