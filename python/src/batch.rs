//! `ferrodyn.Batch`: n simulations of one Model stepped on a thread pool with the GIL
//! released, their states, inputs and sensors as (n, …) arrays; `ferrodyn.rollout`:
//! trajectories of n initial states under given inputs. Members never share anything, so each
//! steps the same bits as a lone Data, whatever the number of threads.

use crate::arrays::{f64_values, view2};
use crate::errors::{scene_error, FerrodynError, StateError, StepError};
use crate::model::Model;
use crate::sync::{apply_inputs, apply_state, changed, sample, Refused};
use ferrodyn_host::simulation::Simulation;
use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use rayon::prelude::*;
use rayon::ThreadPool;

/// A pool of `threads` workers (default: one per core).
fn pool(threads: Option<usize>) -> PyResult<ThreadPool> {
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        return Err(pyo3::exceptions::PyValueError::new_err(
            "threads must be at least 1",
        ));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| FerrodynError::new_err(format!("cannot start {threads} threads: {e}")))
}

/// `buffer` cut into `n` rows of `width` values (empty rows when `width` is 0).
fn rows(buffer: &mut [f64], width: usize, n: usize) -> Vec<&mut [f64]> {
    match width {
        0 => (0..n).map(|_| &mut [][..]).collect(),
        _ => buffer.chunks_mut(width).collect(),
    }
}

/// How a member's call ended: fine, a refused write, or a failed step.
enum Outcome {
    Done,
    Refused(String),
    Failed(String),
}

/// One member's rows of the batch's buffers for one call.
struct Rows<'a> {
    sim: &'a mut Simulation,
    scratch: &'a mut Vec<f64>,
    state: &'a mut [f64],
    last_state: &'a mut [f64],
    ctrl: &'a mut [f64],
    last_ctrl: &'a mut [f64],
    sensors: &'a mut [f64],
}

impl Rows<'_> {
    /// Takes in the rows' writes, steps `nstep` times (stopping at a failure), and writes the
    /// member's state, inputs and sensors back into its rows.
    fn step(self, nq: usize, nstep: u64) -> Outcome {
        let sim = self.sim;
        let mut taken = Ok(());
        if changed(self.state, self.last_state) {
            taken = apply_state(sim, self.state, self.last_state, nq);
        }
        if taken.is_ok() && changed(self.ctrl, self.last_ctrl) {
            taken = apply_inputs(sim, self.ctrl, self.last_ctrl);
        }
        let outcome = match taken {
            Err(Refused(reason)) => Outcome::Refused(reason),
            Ok(()) => match (0..nstep).try_for_each(|_| sim.step()) {
                Ok(()) => Outcome::Done,
                Err(e) => Outcome::Failed(format!("{e:#}")),
            },
        };
        for row in [self.state, self.last_state] {
            row.copy_from_slice(sim.state());
        }
        for row in [self.ctrl, self.last_ctrl] {
            row.copy_from_slice(sim.inputs());
        }
        sample(sim, self.scratch);
        self.sensors.copy_from_slice(self.scratch);
        outcome
    }
}

/// n independent simulations of one Model.
#[pyclass(module = "ferrodyn")]
pub struct Batch {
    nq: usize,
    width: Widths,
    members: Vec<Simulation>,
    scratch: Vec<Vec<f64>>,
    states: Box<[f64]>,
    last_states: Box<[f64]>,
    ctrl: Box<[f64]>,
    last_ctrl: Box<[f64]>,
    sensors: Box<[f64]>,
    pool: ThreadPool,
    /// Worker threads.
    #[pyo3(get)]
    threads: usize,
}

/// Values per member: state, inputs, sensor channels.
#[derive(Clone, Copy)]
struct Widths {
    state: usize,
    inputs: usize,
    sensors: usize,
}

impl Batch {
    fn n(&self) -> usize {
        self.members.len()
    }

    /// Every member's rows, stepped `nstep` times on the pool with the GIL released; the
    /// first failure (by member) raised.
    fn run(&mut self, py: Python<'_>, nstep: u64) -> PyResult<()> {
        let (n, w, nq) = (self.n(), self.width, self.nq);
        let Batch {
            members,
            scratch,
            states,
            last_states,
            ctrl,
            last_ctrl,
            sensors,
            pool,
            ..
        } = self;
        let outcomes: Vec<Outcome> = py.detach(|| {
            let work: Vec<Rows<'_>> = members
                .iter_mut()
                .zip(scratch.iter_mut())
                .zip(rows(states, w.state, n))
                .zip(rows(last_states, w.state, n))
                .zip(rows(ctrl, w.inputs, n))
                .zip(rows(last_ctrl, w.inputs, n))
                .zip(rows(sensors, w.sensors, n))
                .map(
                    |((((((sim, scratch), state), last_state), ctrl), last_ctrl), sensors)| Rows {
                        sim,
                        scratch,
                        state,
                        last_state,
                        ctrl,
                        last_ctrl,
                        sensors,
                    },
                )
                .collect();
            pool.install(|| work.into_par_iter().map(|rows| rows.step(nq, nstep)).collect())
        });
        for (member, outcome) in outcomes.into_iter().enumerate() {
            match outcome {
                Outcome::Done => {}
                Outcome::Refused(reason) => {
                    return Err(StateError::new_err(format!("member {member}: {reason}")))
                }
                Outcome::Failed(reason) => {
                    return Err(StepError::new_err(format!("member {member}: {reason}")))
                }
            }
        }
        Ok(())
    }

    /// A view of column block `offset..offset + columns` of `buffer` (rows of `stride`).
    fn view<'py>(
        slf: Bound<'py, Self>,
        buffer: impl Fn(&Self) -> &[f64],
        (offset, columns, stride): (usize, usize, usize),
        writeable: bool,
    ) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (ptr, n) = {
            let batch = slf.borrow();
            let values = buffer(&batch);
            (values.get(offset..).unwrap_or_default().as_ptr(), batch.n())
        };
        // SAFETY: the batch's buffers are boxed slices made once with it and written in place;
        // the array keeps the batch alive.
        unsafe { view2(slf.into_any(), ptr, (n, columns, stride), writeable) }
    }
}

#[pymethods]
impl Batch {
    /// `n` simulations of `model` at its initial state, stepped by `threads` workers
    /// (default: one per core).
    #[new]
    #[pyo3(signature = (model, n, threads = None))]
    fn new(py: Python<'_>, model: &Bound<'_, Model>, n: usize, threads: Option<usize>) -> PyResult<Self> {
        let model = model.get();
        let pool = pool(threads)?;
        let members = py
            .detach(|| {
                pool.install(|| {
                    (0..n)
                        .into_par_iter()
                        .map(|_| model.compile())
                        .collect::<Result<Vec<_>, _>>()
                })
            })
            .map_err(scene_error)?;
        let width = Widths {
            state: model.nq + model.nv,
            inputs: model.nu,
            sensors: model.nsensor,
        };
        let mut states = Vec::with_capacity(n * width.state);
        let mut ctrl = Vec::with_capacity(n * width.inputs);
        let mut sensors = Vec::with_capacity(n * width.sensors);
        let mut scratch = Vec::with_capacity(n);
        for sim in &members {
            states.extend_from_slice(sim.state());
            ctrl.extend_from_slice(sim.inputs());
            let mut row = Vec::new();
            sample(sim, &mut row);
            sensors.extend_from_slice(&row);
            scratch.push(row);
        }
        Ok(Self {
            nq: model.nq,
            width,
            members,
            scratch,
            last_states: states.clone().into_boxed_slice(),
            states: states.into_boxed_slice(),
            last_ctrl: ctrl.clone().into_boxed_slice(),
            ctrl: ctrl.into_boxed_slice(),
            sensors: sensors.into_boxed_slice(),
            threads: pool.current_num_threads(),
            pool,
        })
    }

    /// Advances every member by `nstep` steps; `ctrl` (n, nu), when given, sets the inputs
    /// first. A failure raises (StepError, StateError) naming the first member that failed;
    /// the others have taken their steps, a failed member is at its last good state.
    #[pyo3(signature = (nstep = 1, ctrl = None))]
    fn step(&mut self, py: Python<'_>, nstep: u64, ctrl: Option<&Bound<'_, PyAny>>) -> PyResult<()> {
        if let Some(ctrl) = ctrl {
            let values = f64_values(ctrl, "ctrl", &[self.n(), self.width.inputs])?;
            self.ctrl.copy_from_slice(&values);
        }
        self.run(py, nstep)
    }

    /// Position coordinates, (n, nq): a writeable view.
    #[getter]
    fn qpos<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (nq, stride) = (slf.borrow().nq, slf.borrow().width.state);
        Self::view(slf, |b| &b.states, (0, nq, stride), true)
    }

    /// Velocity coordinates, (n, nv): a writeable view.
    #[getter]
    fn qvel<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let (nq, stride) = (slf.borrow().nq, slf.borrow().width.state);
        Self::view(slf, |b| &b.states, (nq, stride - nq, stride), true)
    }

    /// Input ports (port units), (n, nu): a writeable view, held from the next step on.
    #[getter]
    fn ctrl<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let nu = slf.borrow().width.inputs;
        Self::view(slf, |b| &b.ctrl, (0, nu, nu), true)
    }

    /// Sensor channels (SI units), (n, nsensor): read-only, refreshed by every step.
    #[getter]
    fn sensordata<'py>(slf: Bound<'py, Self>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        let ns = slf.borrow().width.sensors;
        Self::view(slf, |b| &b.sensors, (0, ns, ns), false)
    }

    /// Each member's time (s), (n,).
    #[getter]
    fn time<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let times: Vec<f64> = self.members.iter().map(Simulation::time).collect();
        PyArray1::from_vec(py, times)
    }

    /// A copy of the flat states, (n, nq + nv).
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray2<f64>>> {
        PyArray1::from_slice(py, &self.states).reshape([self.n(), self.width.state])
    }

    /// Sets every member's flat state from an (n, nq + nv) array (taken in at the next step).
    fn set_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        let values = f64_values(state, "state", &[self.n(), self.width.state])?;
        self.states.copy_from_slice(&values);
        self.run(state.py(), 0)
    }

    /// Each member's state digest, as `ferrodyn run` prints it (16 hexadecimal digits).
    fn digests(&mut self, py: Python<'_>) -> PyResult<Vec<String>> {
        self.run(py, 0)?;
        Ok(self
            .members
            .iter()
            .map(|sim| format!("{:016x}", sim.digest().0))
            .collect())
    }

    fn __len__(&self) -> usize {
        self.n()
    }

    fn __repr__(&self) -> String {
        format!("<ferrodyn.Batch of {} on {} threads>", self.n(), self.threads)
    }
}

/// Trajectories of `model` from each of `initial_states` (n, nq + nv) under `controls`
/// (n, nstep, nu; None: the inputs stay at their scene values and `nstep` says how many steps),
/// the members spread over `threads` workers with the GIL released. Returns the states
/// (n, nstep, nq + nv) and sensor channels (n, nstep, nsensor) after every step.
#[pyfunction]
#[pyo3(signature = (model, initial_states, controls = None, nstep = None, threads = None))]
pub fn rollout<'py>(
    py: Python<'py>,
    model: &Bound<'py, Model>,
    initial_states: &Bound<'py, PyAny>,
    controls: Option<&Bound<'py, PyAny>>,
    nstep: Option<usize>,
    threads: Option<usize>,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
    let model = model.get();
    let (ns, nu, nsensor) = (model.nq + model.nv, model.nu, model.nsensor);
    let n = match initial_states.cast::<PyUntypedArray>() {
        Ok(a) if a.ndim() == 2 => a.shape()[0],
        _ => initial_states.len()?,
    };
    let initial = f64_values(initial_states, "initial_states", &[n, ns])?;
    let (controls, nstep) = match (controls, nstep) {
        (Some(c), given) => {
            let steps = match c.cast::<PyUntypedArray>() {
                Ok(a) if a.ndim() == 3 => a.shape()[1],
                _ => given.unwrap_or(0),
            };
            if given.is_some_and(|g| g != steps) {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "nstep = {} but controls hold {steps} steps",
                    given.unwrap_or(0)
                )));
            }
            (Some(f64_values(c, "controls", &[n, steps, nu])?), steps)
        }
        (None, Some(steps)) => (None, steps),
        (None, None) => {
            return Err(pyo3::exceptions::PyValueError::new_err(
                "give controls (n, nstep, nu) or nstep",
            ))
        }
    };
    let pool = pool(threads)?;
    let mut states = vec![0.0; n * nstep * ns];
    let mut sensors = vec![0.0; n * nstep * nsensor];
    let failures: Vec<Option<String>> = py.detach(|| {
        let work: Vec<_> = rows(&mut states, nstep * ns, n)
            .into_iter()
            .zip(rows(&mut sensors, nstep * nsensor, n))
            .enumerate()
            .collect();
        pool.install(|| {
            work.into_par_iter()
                .map(|(member, (states, sensors))| {
                    let initial = &initial[member * ns..(member + 1) * ns];
                    let controls = controls
                        .as_deref()
                        .map(|c| &c[member * nstep * nu..(member + 1) * nstep * nu]);
                    trajectory(model, initial, controls, (nstep, nu), states, sensors).err()
                })
                .collect()
        })
    });
    if let Some((member, reason)) = failures
        .into_iter()
        .enumerate()
        .find_map(|(m, f)| f.map(|f| (m, f)))
    {
        return Err(StepError::new_err(format!("member {member}: {reason}")));
    }
    let states = PyArray1::from_vec(py, states).reshape([n, nstep, ns])?;
    let sensors = PyArray1::from_vec(py, sensors).reshape([n, nstep, nsensor])?;
    Ok((states.into_any(), sensors.into_any()))
}

/// One member of a rollout: a fresh simulation of `model` set to `initial`, then per step the
/// inputs of `controls` (nu per step) and the step, its state and sensors written into
/// `states` and `sensors`.
fn trajectory(
    model: &Model,
    initial: &[f64],
    controls: Option<&[f64]>,
    (nstep, nu): (usize, usize),
    states: &mut [f64],
    sensors: &mut [f64],
) -> Result<(), String> {
    let mut sim = model.compile().map_err(|e| e.to_string())?;
    sim.set_state(initial)
        .map_err(|e| format!("initial state: {}", sim.labels.name_error(e.into())))?;
    let (ns, nsensor) = (initial.len(), sensors.len() / nstep.max(1));
    let mut row = Vec::with_capacity(nsensor);
    for k in 0..nstep {
        if let Some(controls) = controls {
            for (index, &value) in controls[k * nu..(k + 1) * nu].iter().enumerate() {
                sim.set_input(index, value)
                    .map_err(|e| format!("controls at step {k}: {e:#}"))?;
            }
        }
        sim.step().map_err(|e| format!("{e:#}"))?;
        states[k * ns..(k + 1) * ns].copy_from_slice(sim.state());
        sample(&sim, &mut row);
        sensors[k * nsensor..(k + 1) * nsensor].copy_from_slice(&row);
    }
    Ok(())
}
