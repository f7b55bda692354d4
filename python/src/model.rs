//! `ferrodyn.Model`: a scene read and checked, with the sizes and names of what it compiles
//! to. Every `Data` it makes is a fresh compile of the same scene (`Scene` → `compile` →
//! `Simulation`), so the Python package has no pipeline of its own.

use crate::data::Data;
use crate::errors::{load_error, scene_error};
use ferrodyn_host::compile::compile;
use ferrodyn_host::import::load_scene;
use ferrodyn_host::scene::{Scene, SceneError as HostSceneError};
use ferrodyn_host::simulation::Simulation;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Gives every Model its own number, which its Datas and Batches carry.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A scene, ready to make simulations of.
#[pyclass(module = "ferrodyn", frozen)]
pub struct Model {
    pub(crate) scene: Scene,
    pub(crate) id: u64,
    /// Position coordinates.
    #[pyo3(get)]
    pub nq: usize,
    /// Velocity coordinates.
    #[pyo3(get)]
    pub nv: usize,
    /// Input ports (`[[input]]`).
    #[pyo3(get)]
    pub nu: usize,
    /// Sensor channels (all sensors' values, in scene order).
    #[pyo3(get)]
    pub nsensor: usize,
    /// The scene's step (s).
    #[pyo3(get)]
    pub timestep: f64,
    /// The scene's end time (s).
    #[pyo3(get)]
    pub end_time: f64,
    /// Rigid body names, in scene order.
    #[pyo3(get)]
    pub body_names: Vec<String>,
    /// Joint and drive names, in scene order.
    #[pyo3(get)]
    pub joint_names: Vec<String>,
    /// Input port names, in scene order.
    #[pyo3(get)]
    pub input_names: Vec<String>,
    /// SI units per port unit of each input.
    #[pyo3(get)]
    pub input_scales: Vec<f64>,
    /// Sensor names, in scene order.
    #[pyo3(get)]
    pub sensor_names: Vec<String>,
    /// One name per sensor channel (`tip_x`, `encoder_angle`, ...), as sensors.csv's columns.
    #[pyo3(get)]
    pub sensor_channels: Vec<String>,
    /// Steps from t = 0 to the end time (as `ferrodyn run` takes them).
    #[pyo3(get)]
    pub steps: u64,
    /// What runs (`1 bodies in joint coordinates, rk4`, ...), as `ferrodyn run`'s header.
    #[pyo3(get)]
    pub description: String,
}

impl Model {
    /// The model of `scene`, compiled once to learn its sizes and names.
    fn of_scene(scene: Scene) -> PyResult<Self> {
        let sim = compile(&scene).map_err(scene_error)?;
        let nq = sim.position_count();
        let sensors = &sim.labels.sensors;
        Ok(Self {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            nq,
            nv: sim.state().len() - nq,
            nu: sim.inputs().len(),
            nsensor: sensors.iter().map(|s| s.columns().len()).sum(),
            timestep: scene.simulation.step,
            end_time: scene.simulation.end_time,
            body_names: sim.labels.names.bodies.clone(),
            joint_names: sim.labels.names.joints.clone(),
            input_names: scene.inputs.iter().map(|i| i.name.clone()).collect(),
            input_scales: scene.inputs.iter().map(|i| i.value.scale).collect(),
            sensor_names: sensors.iter().map(|s| s.name.clone()).collect(),
            sensor_channels: sensors.iter().flat_map(|s| s.columns()).collect(),
            steps: sim.timing.steps(),
            description: sim.labels.description.clone(),
            scene,
        })
    }

    /// A fresh simulation of the scene at t = 0.
    pub(crate) fn compile(&self) -> Result<Simulation, HostSceneError> {
        compile(&self.scene)
    }
}

#[pymethods]
impl Model {
    /// The model of the scene file at `path`, or of a URDF or MJCF model file (imported with
    /// the default options, as `ferrodyn run MODEL.urdf` does).
    #[staticmethod]
    pub fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let scene = py.detach(|| load_scene(&path)).map_err(load_error)?;
        Self::of_scene(scene)
    }

    /// The model of a scene given as TOML text; meshes and errors refer to `path` (default
    /// `<string>`, meshes relative to the working directory).
    #[staticmethod]
    #[pyo3(signature = (text, path = None))]
    pub fn from_toml(text: &str, path: Option<PathBuf>) -> PyResult<Self> {
        let path = path.unwrap_or_else(|| PathBuf::from("<string>"));
        Self::of_scene(Scene::parse(&path, text).map_err(scene_error)?)
    }

    /// A new Data at the scene's initial state (t = 0, inputs at their scene values).
    pub fn new_data(slf: &Bound<'_, Self>) -> PyResult<Data> {
        let model = slf.get();
        Data::new(model, model.compile().map_err(scene_error)?)
    }

    /// The scene file's path.
    #[getter]
    pub fn path(&self) -> &Path {
        self.scene.path()
    }

    fn __repr__(&self) -> String {
        format!(
            "<ferrodyn.Model {}: {}; nq={} nv={} nu={} nsensor={}, dt={} s, end {} s>",
            self.scene.path().display(),
            self.description,
            self.nq,
            self.nv,
            self.nu,
            self.nsensor,
            self.timestep,
            self.end_time
        )
    }
}
