"""Type stubs of the ferrodyn package (docs/python.md)."""

from os import PathLike
from pathlib import Path
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, PathLike[str]]
_F64 = npt.NDArray[np.float64]
_ArrayLike = npt.ArrayLike

class FerrodynError(Exception):
    """Base class of Ferrodyn's exceptions."""

class SceneError(FerrodynError):
    """A scene that cannot be read, checked or compiled (file:line, item and reason)."""

class StepError(FerrodynError):
    """A step that failed; the data stays at its last good state."""

class StateError(FerrodynError):
    """A value written into the views or given to set_state that the model refuses."""

class ModelMismatchError(FerrodynError):
    """A Data used with another Model than the one that made it."""

class Model:
    """A scene, ready to make simulations of."""

    nq: int
    nv: int
    nu: int
    nsensor: int
    timestep: float
    end_time: float
    steps: int
    body_names: list[str]
    joint_names: list[str]
    input_names: list[str]
    input_scales: list[float]
    sensor_names: list[str]
    sensor_channels: list[str]
    description: str
    @property
    def path(self) -> Path: ...
    @staticmethod
    def load(path: _Path) -> Model: ...
    @staticmethod
    def from_toml(text: str, path: Optional[_Path] = None) -> Model: ...
    def new_data(self) -> Data: ...

class Data:
    """One simulation of a Model: numpy views of its state, inputs and sensors."""

    @property
    def qpos(self) -> _F64:
        """Position coordinates (nq,): a writeable view of the state."""
    @property
    def qvel(self) -> _F64:
        """Velocity coordinates (nv,): a writeable view of the state."""
    @property
    def ctrl(self) -> _F64:
        """Input ports (nu,) in port units: a writeable view, held from the next step on."""
    @property
    def sensordata(self) -> _F64:
        """Sensor channels (nsensor,) in SI units: a read-only view refreshed by steps."""
    @property
    def time(self) -> float: ...
    @property
    def steps(self) -> int: ...
    @property
    def energy(self) -> _F64:
        """Kinetic, potential and strain energy (J): a new array."""
    def state(self) -> _F64:
        """A copy of the flat state [qpos | qvel]."""
    def set_state(self, state: _ArrayLike) -> None: ...
    def digest(self) -> str:
        """The state digest as `ferrodyn run` prints it (16 hex digits)."""

class Batch:
    """n simulations of one Model stepped on a thread pool without the GIL."""

    threads: int
    def __init__(self, model: Model, n: int, threads: Optional[int] = None) -> None: ...
    def step(self, nstep: int = 1, ctrl: Optional[_ArrayLike] = None) -> None: ...
    @property
    def qpos(self) -> _F64:
        """(n, nq), writeable."""
    @property
    def qvel(self) -> _F64:
        """(n, nv), writeable."""
    @property
    def ctrl(self) -> _F64:
        """(n, nu), writeable."""
    @property
    def sensordata(self) -> _F64:
        """(n, nsensor), read-only."""
    @property
    def time(self) -> _F64: ...
    def state(self) -> _F64: ...
    def set_state(self, state: _ArrayLike) -> None: ...
    def digests(self) -> list[str]: ...
    def __len__(self) -> int: ...

def load(path: _Path) -> Model:
    """A scene file, or a URDF or MJCF model file (imported with the default options)."""
    ...
def step(model: Model, data: Data, nstep: int = 1) -> None: ...
def rollout(
    model: Model,
    initial_states: _ArrayLike,
    controls: Optional[_ArrayLike] = None,
    nstep: Optional[int] = None,
    threads: Optional[int] = None,
) -> tuple[_F64, _F64]:
    """States (n, nstep, nq + nv) and sensor channels (n, nstep, nsensor) after every step."""

def run(
    scene: _Path,
    out: _Path,
    force: bool = False,
    end: Optional[float] = None,
    dt: Optional[float] = None,
    output_interval: Optional[float] = None,
    integrator: Optional[str] = None,
    formulation: Optional[str] = None,
) -> dict[str, Any]: ...
def check(scene: _Path, report: bool = False) -> dict[str, Any]: ...
def export_rust(
    scene: _Path,
    precision: str = "f32",
    out: Optional[_Path] = None,
    integrator: Optional[str] = None,
    dt: Optional[float] = None,
    end: Optional[float] = None,
) -> str: ...
def export_fmu(
    scene: _Path,
    out: _Path,
    library: _Path,
    fmi: str = "3",
    integrator: Optional[str] = None,
    dt: Optional[float] = None,
    end: Optional[float] = None,
) -> None: ...
def export_firmware(
    scene: _Path,
    out: _Path,
    part: str,
    precision: str = "f32",
    integrator: Optional[str] = None,
    dt: Optional[float] = None,
    end: Optional[float] = None,
    kernel_path: Optional[_Path] = None,
    force: bool = False,
) -> None: ...
def sweep_plan(
    scene: _Path,
    params: Sequence[str],
    out: _Path,
    lhs: Optional[int] = None,
    monte_carlo: Optional[int] = None,
    seed: Optional[int] = None,
    force: bool = False,
) -> int: ...
def sweep_run(study: _Path, index: int, outputs: bool = False, force: bool = False) -> dict[str, Any]: ...
def sweep_local(
    study: _Path, program: _Path, jobs: int = 1, outputs: bool = False, force: bool = False
) -> dict[str, int | list[int]]: ...
def sweep_collect(study: _Path) -> dict[str, Any]: ...
