"""Batches and rollouts: n members stepped on a thread pool, each the same bits as a lone Data
stepped alike, whatever the number of threads."""

import numpy as np
import pytest

import ferrodyn
from conftest import bits


def lone_digest(model, qpos0, ctrl, nstep):
    """A lone Data with qpos[0] = qpos0 and the inputs `ctrl`, stepped nstep times."""
    data = model.new_data()
    data.qpos[0] = qpos0
    data.ctrl[:] = ctrl
    ferrodyn.step(model, data, nstep)
    return data.digest()


def test_shapes(hil_arm):
    batch = ferrodyn.Batch(hil_arm, 6, threads=2)
    assert len(batch) == 6 and batch.threads == 2
    assert batch.qpos.shape == (6, 1) and batch.qvel.shape == (6, 1)
    assert batch.ctrl.shape == (6, 1) and batch.sensordata.shape == (6, 8)
    assert batch.time.shape == (6,) and batch.state().shape == (6, 2)


@pytest.mark.parametrize("threads", [1, 2, 8])
def test_members_are_lone_runs_bit_for_bit(hil_arm, threads):
    n = 8
    qpos0 = np.linspace(-0.5, 0.5, n)
    ctrl = np.linspace(-2e6, 2e6, n).reshape(n, 1)
    batch = ferrodyn.Batch(hil_arm, n, threads=threads)
    batch.qpos[:, 0] = qpos0
    batch.step(300, ctrl=ctrl)
    expected = [lone_digest(hil_arm, qpos0[i], ctrl[i], 300) for i in range(n)]
    assert batch.digests() == expected


def test_thread_counts_agree_on_a_chain(chain5):
    finals = []
    for threads in [1, 2, 8]:
        batch = ferrodyn.Batch(chain5, 5, threads=threads)
        batch.qvel[:] = np.arange(5.0).reshape(5, 1)
        batch.step(200)
        finals.append(bits(batch.state()))
    assert np.array_equal(finals[0], finals[1]) and np.array_equal(finals[0], finals[2])


def test_batch_views_stay_put_and_follow_steps(chain5):
    batch = ferrodyn.Batch(chain5, 3, threads=2)
    view = batch.qpos
    address = view.ctypes.data
    batch.step(50)
    assert batch.qpos.ctypes.data == address
    assert np.array_equal(bits(view), bits(batch.state()[:, :5]))
    assert list(batch.time) == pytest.approx([0.05] * 3)


def test_batch_ctrl_wrong_shape(hil_arm):
    batch = ferrodyn.Batch(hil_arm, 3)
    with pytest.raises(ValueError, match=r"\(3, 1\)"):
        batch.step(1, ctrl=np.zeros(3))


def test_batch_nan_names_the_member(chain5):
    batch = ferrodyn.Batch(chain5, 4, threads=2)
    batch.qpos[2, 1] = np.nan
    with pytest.raises(ferrodyn.StateError, match=r"member 2: qpos\[1\] = NaN"):
        batch.step(1)
    assert not np.isnan(batch.qpos).any()


def test_batch_set_state(chain5):
    batch = ferrodyn.Batch(chain5, 2)
    state = np.zeros((2, 10))
    state[1, 0] = 0.2
    batch.set_state(state)
    assert np.array_equal(batch.state(), state)


def test_rollout_is_lone_runs(hil_arm):
    n, nstep = 4, 50
    initial = np.zeros((n, 2))
    initial[:, 0] = [0.0, 0.1, 0.2, 0.3]
    controls = np.linspace(-1e6, 1e6, n * nstep).reshape(n, nstep, 1)
    states, sensors = ferrodyn.rollout(hil_arm, initial, controls, threads=2)
    assert states.shape == (n, nstep, 2) and sensors.shape == (n, nstep, 8)
    for i in range(n):
        data = hil_arm.new_data()
        data.set_state(initial[i])
        for k in range(nstep):
            data.ctrl[0] = controls[i, k, 0]
            ferrodyn.step(hil_arm, data)
            assert np.array_equal(bits(states[i, k]), bits(data.state()))
            assert np.array_equal(bits(sensors[i, k]), bits(data.sensordata))


def test_rollout_thread_counts_agree(chain5):
    initial = np.zeros((6, 10))
    initial[:, 5] = np.arange(6.0)
    runs = [ferrodyn.rollout(chain5, initial, nstep=100, threads=t)[0] for t in [1, 2, 8]]
    assert np.array_equal(bits(runs[0]), bits(runs[1])) and np.array_equal(bits(runs[0]), bits(runs[2]))


def test_rollout_arguments_checked(hil_arm):
    with pytest.raises(ValueError, match="controls"):
        ferrodyn.rollout(hil_arm, np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"\(2, 5, 1\)"):
        ferrodyn.rollout(hil_arm, np.zeros((2, 2)), np.zeros((3, 5, 1)))
    with pytest.raises(ValueError, match=r"\(2, 2\)"):
        ferrodyn.rollout(hil_arm, np.zeros((2, 3)), nstep=5)
