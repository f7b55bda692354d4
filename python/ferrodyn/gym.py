"""A gymnasium environment around a scene: its input ports are the action, its sensor channels
the observation. gymnasium is imported here only (``pip install gymnasium``), never by
``import ferrodyn``."""

from typing import Any, Callable, Optional

import gymnasium
import numpy as np

from . import Data, Model, load, step


class SceneEnv(gymnasium.Env):
    """A scene as an environment: each ``step(action)`` writes ``action`` to the inputs (port
    units), takes ``steps_per_action`` steps and observes the sensors. ``reward(data)`` gives
    the reward (default 0); an episode is truncated after ``max_steps`` scene steps (default:
    the scene's end time)."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        scene: Any,
        steps_per_action: int = 1,
        reward: Optional[Callable[[Data], float]] = None,
        max_steps: Optional[int] = None,
        action_low: float = -np.inf,
        action_high: float = np.inf,
    ):
        self.model: Model = scene if isinstance(scene, Model) else load(scene)
        if self.model.nu == 0:
            raise ValueError("the scene has no [[input]]: nothing to act on")
        self.steps_per_action = steps_per_action
        self.reward = reward or (lambda data: 0.0)
        self.max_steps = self.model.steps if max_steps is None else max_steps
        self.action_space = gymnasium.spaces.Box(
            action_low, action_high, shape=(self.model.nu,), dtype=np.float64
        )
        self.observation_space = gymnasium.spaces.Box(
            -np.inf, np.inf, shape=(self.model.nsensor,), dtype=np.float64
        )
        self.data: Data = self.model.new_data()

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self.data = self.model.new_data()
        return self.data.sensordata.copy(), {"time": self.data.time}

    def step(self, action):
        self.data.ctrl[:] = np.asarray(action, dtype=np.float64)
        step(self.model, self.data, self.steps_per_action)
        observation = self.data.sensordata.copy()
        truncated = self.data.steps >= self.max_steps
        return observation, float(self.reward(self.data)), False, truncated, {"time": self.data.time}
