"""Ferrodyn from Python: scenes, zero-copy views of the state, steps without the GIL, batches.

A thin layer over the Rust host (``Scene::load`` → ``compile`` → ``Simulation``): the same
scene steps the same bits here as in ``ferrodyn run``. Guide: docs/python.md.

    import ferrodyn
    model = ferrodyn.load("scenes/chain5.toml")
    data = model.new_data()
    ferrodyn.step(model, data, nstep=1000)
    print(data.time, data.qpos, data.digest())
"""

from ._ferrodyn import (
    Batch,
    Data,
    FerrodynError,
    Model,
    ModelMismatchError,
    SceneError,
    StateError,
    StepError,
    check,
    export_firmware,
    export_fmu,
    export_rust,
    load,
    rollout,
    run,
    step,
    sweep_collect,
    sweep_local,
    sweep_plan,
    sweep_run,
)

__all__ = [
    "Batch",
    "Data",
    "FerrodynError",
    "Model",
    "ModelMismatchError",
    "SceneError",
    "StateError",
    "StepError",
    "check",
    "export_firmware",
    "export_fmu",
    "export_rust",
    "load",
    "rollout",
    "run",
    "step",
    "sweep_collect",
    "sweep_local",
    "sweep_plan",
    "sweep_run",
]
