//! A running simulation of any scene: the model family [`crate::compile`] chose, behind one
//! [`System`] interface, with the scene's step, time span, output interval and names. [`drive`]
//! steps it to the end and feeds the recorders ([`crate::record`]); the viewer steps it frame by
//! frame; `check` evaluates it.

mod drive;
mod drive_work;
mod kernel;
mod labels;
mod system;
mod tree;

pub use drive::{drive, Interrupted, Sample, Summary, DRIFT_TOLERANCE};
pub use kernel::{KernelSystem, Views};
pub use labels::Labels;
pub use system::{ContactModel, Contacts, FlexibleState, System};
pub use tree::{InputPort, TreeSystem};

use crate::storage::{RigidData, RigidModel};
use anyhow::Context;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::{Digest, Energy, KernelError};

/// The time span, step and outputs of a simulation (from the scene's `[simulation]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Step (s).
    pub step: f64,
    /// End time (s).
    pub end_time: f64,
    /// Interval between output samples (s), rounded to whole steps.
    pub output_interval: f64,
}

impl Timing {
    /// Steps from t = 0 to the end time.
    pub fn steps(&self) -> u64 {
        (self.end_time / self.step).round().max(0.0) as u64
    }
    /// Steps between output samples (at least 1).
    pub fn output_every(&self) -> u64 {
        ((self.output_interval / self.step).round() as u64).max(1)
    }
    /// What whole steps change of the end time and the output interval asked for, one note
    /// each (`end 0.0012 s: 3 steps of 0.0004 s (asked 0.001 s)`); empty when both are
    /// whole multiples of the step.
    pub fn rounding_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let differs = |a: f64, b: f64| (a - b).abs() > 1e-9 * b.abs();
        let (steps, every) = (self.steps(), self.output_every());
        let end = steps as f64 * self.step;
        if differs(end, self.end_time) {
            notes.push(format!(
                "end {} s: {steps} steps of {} s (asked {} s: not a whole number of steps)",
                shown(end),
                self.step,
                self.end_time
            ));
        }
        let interval = every as f64 * self.step;
        if differs(interval, self.output_interval) {
            notes.push(format!(
                "output every {} s: {every} steps of {} s (asked {} s: not a whole number of steps)",
                shown(interval),
                self.step,
                self.output_interval
            ));
        }
        notes
    }
}

impl Simulation {
    /// Bytes the recorders write per output time ([`crate::limits::output_bytes_per_time`]).
    pub fn output_bytes_per_time(&self) -> f64 {
        let bodies = self.rigid().map_or(0, |(m, _)| m.bodies().len());
        let joints = self.rigid().map_or(0, |(m, _)| m.joints().len());
        let sensors: usize = self.labels.sensors.iter().map(|s| s.columns().len()).sum();
        let (nodes, tets) = self
            .flexible()
            .map_or((0, 0), |f| (f.node_count(), f.connectivity.len()));
        crate::limits::output_bytes_per_time(bodies, joints, sensors, nodes, tets)
    }
    /// Warnings about the size of this run ([`crate::limits::run_size_warnings`]).
    pub fn size_warnings(&self) -> Vec<String> {
        let (steps, every) = (self.timing.steps(), self.timing.output_every());
        crate::limits::run_size_warnings(steps, steps / every + 1, self.output_bytes_per_time())
    }
}

/// `x` to 12 significant digits, for messages: sums of steps carry rounding
/// (3 × 0.0004 = 0.0012000000000000001 is shown as 0.0012).
pub fn shown(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}

/// What a simulation carries from step to step ([`Simulation::resume_point`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ResumePoint {
    /// The clock: time and the rounding carried by its compensated sum.
    pub clock: [f64; 2],
    /// Steps taken.
    pub steps: u64,
    /// What the integrator advances ([`System::carried_state`]: the flat state, or a
    /// flexible body's displacements it is formed from).
    pub state: Vec<f64>,
    /// The input ports' values ([`Simulation::inputs`]).
    pub inputs: Vec<f64>,
}

/// A model of any family at its current state, with its timing and labels.
pub struct Simulation {
    system: Box<dyn System>,
    /// Step, end time and output interval.
    pub timing: Timing,
    /// Names of the parts.
    pub labels: Labels,
    steps: u64,
}

impl Simulation {
    /// A simulation of `system` at its current state.
    pub fn new(system: Box<dyn System>, timing: Timing, labels: Labels) -> Self {
        Self {
            system,
            timing,
            labels,
            steps: 0,
        }
    }

    /// Advances by one step; the error names the step and time.
    pub fn step(&mut self) -> anyhow::Result<()> {
        let t = self.time();
        self.system
            .step(self.timing.step)
            .map_err(|e| self.labels.name_error(e))
            .with_context(|| format!("step {} at t = {t} s failed", self.steps + 1))?;
        self.steps += 1;
        Ok(())
    }

    /// Advances until the time reaches `t` (within half a step).
    pub fn advance_to(&mut self, t: f64) -> anyhow::Result<()> {
        while self.time() + 0.5 * self.timing.step < t {
            self.step()?;
        }
        Ok(())
    }

    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// Simulation time (s).
    pub fn time(&self) -> f64 {
        self.system.time()
    }
    /// Mechanical energy (kinetic, potential, strain).
    pub fn energy(&self) -> Result<Energy<f64>, KernelError> {
        self.system.energy()
    }
    /// The state as one flat slice `[positions | velocities]`; its buffer is made once, so its
    /// address stays for the simulation's life.
    pub fn state(&self) -> &[f64] {
        self.system.state()
    }
    /// How many of the state's values are positions (nq); the rest are velocities (nv).
    pub fn position_count(&self) -> usize {
        self.system.position_count()
    }
    /// Overwrites the state; time is kept.
    pub fn set_state(&mut self, state: &[f64]) -> Result<(), KernelError> {
        self.system.set_state(state)
    }
    /// The values of the input ports (`[[input]]`, port units), in scene order.
    pub fn inputs(&self) -> &[f64] {
        self.system.inputs()
    }
    /// Sets input port `index` (scene order) to `value` in port units (the joint gets value ×
    /// scale from the next step on, as `ferrodyn run` holds the scene's `value`); fails,
    /// changing nothing, for an unknown port or a value that is not finite.
    pub fn set_input(&mut self, index: usize, value: f64) -> anyhow::Result<()> {
        self.system.set_input(index, value)
    }
    /// Everything the simulation carries from step to step, to go on from later with
    /// [`Simulation::resume`] bit for bit; `None` where the system carries more than its
    /// state, clock and inputs (contact memory, adaptive, multistep or implicit integrators).
    pub fn resume_point(&self) -> Option<ResumePoint> {
        Some(ResumePoint {
            clock: self.system.clock_reading()?,
            steps: self.steps,
            state: self.system.carried_state().to_vec(),
            inputs: self.inputs().to_vec(),
        })
    }
    /// Goes back (or forth) to `point`, taken from this simulation or another compiled from
    /// the same scene; fails, changing nothing, when it does not fit.
    pub fn resume(&mut self, point: &ResumePoint) -> anyhow::Result<()> {
        if self.system.clock_reading().is_none() {
            anyhow::bail!("this simulation cannot be resumed exactly (see Simulation::resume_point)");
        }
        let (state, inputs) = (self.system.carried_state().len(), self.inputs().len());
        if point.state.len() != state || point.inputs.len() != inputs {
            anyhow::bail!(
                "the saved point has {} state values and {} inputs; this simulation {state} and {inputs}",
                point.state.len(),
                point.inputs.len()
            );
        }
        if let Some(bad) = point.inputs.iter().chain(&point.clock).find(|v| !v.is_finite()) {
            anyhow::bail!("the saved point holds {bad}");
        }
        let old = self.system.carried_state().to_vec();
        self.system.set_carried_state(&point.state)?;
        for (index, &value) in point.inputs.iter().enumerate() {
            if let Err(e) = self.system.set_input(index, value) {
                self.system.set_carried_state(&old)?;
                return Err(e);
            }
        }
        self.system.resume_clock(point.clock);
        self.steps = point.steps;
        Ok(())
    }
    /// The digest of the state's bits.
    pub fn digest(&self) -> Digest {
        self.system.digest()
    }
    /// The rigid bodies, where there are any.
    pub fn rigid(&self) -> Option<(&RigidModel, &RigidData)> {
        self.system.rigid()
    }
    /// The rigid model and its data to evaluate in place (rigid systems only).
    pub fn rigid_mut(&mut self) -> Option<(&RigidModel, &mut RigidData)> {
        self.system.rigid_mut()
    }
    /// Pose of rigid body `body`: position of its frame origin and orientation (body → global);
    /// the origin and no rotation without rigid bodies.
    pub fn body_pose(&self, body: usize) -> (Vec3<f64>, Quat<f64>) {
        match self.rigid() {
            Some((_, data)) => (data.position(body), data.orientation(body)),
            None => (Vec3::ZERO, Quat::IDENTITY),
        }
    }
    /// The load (generalized force and power) of every drive at the current state, in scene
    /// order; empty without drives or where the system does not say.
    pub fn drive_loads(&mut self) -> anyhow::Result<Vec<crate::check::DriveLoad>> {
        self.system.drive_loads()
    }
    /// The flexible nodes, where there are any.
    pub fn flexible(&self) -> Option<FlexibleState<'_>> {
        self.system.flexible()
    }
    /// The contacts, where there are any.
    pub fn contacts(&self) -> Option<Contacts<'_>> {
        self.system.contacts()
    }
    /// What an iterative solver did so far.
    pub fn solver_report(&self) -> Option<String> {
        self.system.solver_report()
    }
    /// Takes over the state, time and contact memory of `old` (compiled from the same scene
    /// before a change of parameters such as gravity); fails when it is of another kind.
    pub fn take_over(&mut self, old: &mut Simulation) -> anyhow::Result<()> {
        if !self.system.take_over(old.system.as_mut()) {
            anyhow::bail!("the scene changed kind while running");
        }
        self.steps = old.steps;
        Ok(())
    }
}
