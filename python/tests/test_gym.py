"""The optional gymnasium adapter (skipped without gymnasium)."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import ferrodyn  # noqa: E402
from conftest import scene  # noqa: E402


def test_scene_env_acts_and_observes():
    from ferrodyn.gym import SceneEnv

    env = SceneEnv(scene("hil_arm"), steps_per_action=10, max_steps=100)
    observation, _ = env.reset(seed=0)
    assert observation.shape == (8,)
    data = env.model.new_data()
    for k in range(10):
        observation, reward, terminated, truncated, info = env.step(np.array([0.0]))
        data.ctrl[0] = 0.0
        ferrodyn.step(env.model, data, 10)
        assert np.array_equal(observation, data.sensordata)
        assert truncated == (k == 9) and not terminated
