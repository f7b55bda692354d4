//! The `ferrodyn` Python package's extension module (`ferrodyn._ferrodyn`): a thin layer over
//! ferrodyn-host. It converts arguments and errors and gives numpy views of the state; scenes,
//! compiling and physics are the host's and the kernel's (`Scene::load` → `compile` →
//! `Simulation`), so Python steps the same bits as `ferrodyn run`. docs/python.md is its guide.

mod arrays;
mod batch;
mod commands;
mod data;
mod errors;
mod model;
mod sync;

use pyo3::prelude::*;
use std::path::PathBuf;

/// The model of the scene file at `path`.
#[pyfunction]
fn load(py: Python<'_>, path: PathBuf) -> PyResult<model::Model> {
    model::Model::load(py, path)
}

#[pymodule]
fn _ferrodyn(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<model::Model>()?;
    m.add_class::<data::Data>()?;
    m.add_class::<batch::Batch>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(data::step, m)?)?;
    m.add_function(wrap_pyfunction!(batch::rollout, m)?)?;
    commands::register(m)?;
    m.add("FerrodynError", py.get_type::<errors::FerrodynError>())?;
    m.add("SceneError", py.get_type::<errors::SceneError>())?;
    m.add("StepError", py.get_type::<errors::StepError>())?;
    m.add("StateError", py.get_type::<errors::StateError>())?;
    m.add("ModelMismatchError", py.get_type::<errors::ModelMismatchError>())?;
    Ok(())
}
