//! `ferrodyn.Data`: one simulation of a Model at its current state, with numpy views of its
//! state, inputs and sensors, and `ferrodyn.step`, which advances it with the GIL released.

use crate::arrays::{f64_values, view1};
use crate::errors::{step_error, ModelMismatchError, StateError, StepError};
use crate::model::Model;
use crate::sync::{Refused, Synced};
use ferrodyn_host::simulation::Simulation;
use numpy::PyArray1;
use pyo3::prelude::*;

/// A simulation of a Model: state, inputs, sensors, time.
#[pyclass(module = "ferrodyn")]
pub struct Data {
    sim: Simulation,
    model_id: u64,
    nq: usize,
    synced: Synced,
    /// Where the state lives: checked before every call, since the views point there.
    state_address: usize,
}

impl From<Refused> for PyErr {
    fn from(refused: Refused) -> Self {
        StateError::new_err(refused.0)
    }
}

impl Data {
    /// `sim`, a fresh simulation of `model`.
    pub(crate) fn new(model: &Model, sim: Simulation) -> PyResult<Self> {
        Ok(Self {
            model_id: model.id,
            nq: model.nq,
            synced: Synced::new(&sim),
            state_address: sim.state().as_ptr() as usize,
            sim,
        })
    }

    /// Fails unless this data was made by `model`.
    pub(crate) fn check_model(&self, model: &Model) -> PyResult<()> {
        if self.model_id != model.id {
            return Err(ModelMismatchError::new_err(format!(
                "this Data was made by another Model (not {}): use the Model whose new_data() made it",
                model.scene.path().display()
            )));
        }
        Ok(())
    }

    /// Takes in what was written through the views since the last call.
    fn take_writes(&mut self) -> PyResult<()> {
        self.check_address()?;
        self.synced.take_writes(&mut self.sim, self.nq)?;
        Ok(())
    }

    /// The views point at the state's buffer: it must not have moved (no system reallocates
    /// it; this turns a broken promise into an error instead of a dangling view).
    fn check_address(&self) -> PyResult<()> {
        if self.sim.state().as_ptr() as usize != self.state_address {
            return Err(StepError::new_err(
                "internal error: the simulation's state moved; its views are invalid",
            ));
        }
        Ok(())
    }

    /// Advances by `nstep` steps with the GIL released; stops at a failed step, the data at
    /// its last good state.
    pub(crate) fn step(&mut self, py: Python<'_>, nstep: u64) -> PyResult<()> {
        self.take_writes()?;
        let sim = &mut self.sim;
        let result = py.detach(|| (0..nstep).try_for_each(|_| sim.step()));
        self.synced.record(&self.sim);
        self.check_address()?;
        result.map_err(step_error)
    }

    /// The simulation (writes through the views taken in).
    pub(crate) fn simulation(&mut self) -> PyResult<&mut Simulation> {
        self.take_writes()?;
        Ok(&mut self.sim)
    }
}

#[pymethods]
impl Data {
    /// Position coordinates: a writeable view of the state (nq values).
    #[getter]
    fn qpos<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (ptr, nq) = {
            let data = slf.borrow();
            (data.sim.state().as_ptr(), data.nq)
        };
        // SAFETY: the state's buffer is made once with the simulation, which this Data owns
        // for as long as the array holds it; steps write it in place (`check_address`).
        unsafe { view1(slf.into_any(), ptr, nq, true) }
    }

    /// Velocity coordinates: a writeable view of the state (nv values).
    #[getter]
    fn qvel<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (ptr, nv) = {
            let data = slf.borrow();
            let state = data.sim.state();
            (state[data.nq..].as_ptr(), state.len() - data.nq)
        };
        // SAFETY: as for `qpos`.
        unsafe { view1(slf.into_any(), ptr, nv, true) }
    }

    /// The input ports' values in port units (`[[input]]`): a writeable view, held from the
    /// next step on.
    #[getter]
    fn ctrl<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (ptr, nu) = {
            let data = slf.borrow();
            (data.sim.inputs().as_ptr(), data.sim.inputs().len())
        };
        // SAFETY: the inputs' buffer is made once when the simulation is compiled and only
        // written in place (set_input).
        unsafe { view1(slf.into_any(), ptr, nu, true) }
    }

    /// Sensor channels (SI units) at the current state: a read-only view, refreshed by every
    /// step.
    #[getter]
    fn sensordata<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (ptr, n) = {
            let mut data = slf.borrow_mut();
            data.take_writes()?;
            let Data { sim, synced, .. } = &mut *data;
            synced.refresh_sensors(sim);
            (synced.sensors.as_ptr(), synced.sensors.len())
        };
        // SAFETY: a boxed slice made once with this Data and written in place.
        unsafe { view1(slf.into_any(), ptr, n, false) }
    }

    /// Simulation time (s).
    #[getter]
    fn time(&self) -> f64 {
        self.sim.time()
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.sim.steps()
    }

    /// Kinetic, potential and strain energy (J) at the current state.
    #[getter]
    fn energy<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        self.take_writes()?;
        let energy = self
            .sim
            .energy()
            .map_err(|e| StepError::new_err(self.sim.labels.name_error(e.into()).to_string()))?;
        Ok(PyArray1::from_slice(
            py,
            &[energy.kinetic, energy.potential, energy.strain],
        ))
    }

    /// A copy of the flat state `[qpos | qvel]`.
    fn state<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let sim = self.simulation()?;
        Ok(PyArray1::from_slice(py, sim.state()))
    }

    /// Sets the flat state `[qpos | qvel]` (nq + nv float64 values); time is kept.
    fn set_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let values = f64_values(state, "state", &[self.sim.state().len()])?;
        let sim = self.simulation()?;
        sim.set_state(&values)
            .map_err(|e| StateError::new_err(sim.labels.name_error(e.into()).to_string()))?;
        self.synced.record(&self.sim);
        Ok(())
    }

    /// The digest of the state's bits, as `ferrodyn run` prints it (`final=` of its
    /// `state digest` line): 16 hexadecimal digits.
    fn digest(&mut self) -> PyResult<String> {
        Ok(format!("{:016x}", self.simulation()?.digest().0))
    }

    fn __repr__(&self) -> String {
        format!(
            "<ferrodyn.Data t={} s after {} steps, {} state values>",
            self.sim.time(),
            self.sim.steps(),
            self.sim.state().len()
        )
    }
}

/// Advances `data` (made by `model`) by `nstep` steps of the scene's integrator, with the GIL
/// released. A failed step raises StepError and leaves the data at its last good state.
#[pyfunction]
#[pyo3(signature = (model, data, nstep = 1))]
pub fn step(py: Python<'_>, model: &Bound<'_, Model>, data: &Bound<'_, Data>, nstep: u64) -> PyResult<()> {
    let mut data = data.try_borrow_mut()?;
    data.check_model(model.get())?;
    data.step(py, nstep)
}
