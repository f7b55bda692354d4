//! The one drive loop: steps a simulation from its current state to the end time, shows
//! progress, watches for energy growth and constraint drift, and feeds the recorders at every
//! output time; returns the summary line's figures.

use super::drive_work::WorkIntegral;
use super::Simulation;
use crate::check::DriveLoad;
use crate::interrupt::{self, Stop};
use crate::output::Progress;
use crate::record::Recorder;
use crate::watch::{Diagnostic, Watch};
use anyhow::{Context, Result};
use ferrodyn_kernel::rigid::{joint_violation, Violation};
use ferrodyn_kernel::{Digest, Energy};
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

/// Largest |Φ| a joint may drift to before the watch reports it (projection keeps joints near
/// 1e-12).
pub const DRIFT_TOLERANCE: f64 = 1e-6;

/// What the drive loop evaluates once at an output time, for the watch, the summary and the
/// recorders.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Mechanical energy.
    pub energy: Energy<f64>,
    /// Position and velocity violation of every joint (empty without rigid joints).
    pub joints: Vec<Violation<f64>>,
    /// Every drive's generalized force and power (scene order; empty without drives).
    pub drives: Vec<DriveLoad>,
}

impl Sample {
    /// Evaluates the simulation's current state.
    pub fn of(sim: &mut Simulation) -> Result<Self> {
        let energy = sim
            .energy()
            .with_context(|| format!("energy at t = {} s", sim.time()))?;
        let joints = sim
            .rigid()
            .map(|(m, d)| (0..m.joints().len()).map(|j| joint_violation(m, d, j)).collect())
            .unwrap_or_default();
        let drives = drive_loads(sim)?;
        Ok(Self {
            energy,
            joints,
            drives,
        })
    }
}

/// The drives' loads at the current state, the error naming the time.
fn drive_loads(sim: &mut Simulation) -> Result<Vec<DriveLoad>> {
    let t = sim.time();
    sim.drive_loads()
        .with_context(|| format!("drive loads at t = {t} s"))
}

impl Interrupted {
    /// The time reached to 12 significant digits ([`super::shown`]).
    pub fn shown_time(&self) -> f64 {
        super::shown(self.time)
    }
}

/// What a run did, for its summary line.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Steps taken.
    pub steps: u64,
    /// Wall-clock seconds spent stepping and recording.
    pub wall_seconds: f64,
    /// Largest |E(t) − E(0)| seen at output times (J).
    pub max_energy_change: f64,
    /// E(end) − E(0) (J): for a driven system, the net work its drives, forces and inputs did.
    pub energy_change: f64,
    /// Whether drives, applied forces, loads or inputs do work on the system, so its energy
    /// change is their work and not an integration error.
    pub driven: bool,
    /// The drives' work W = ∫ Σ P_d dt over the run (J), where the system has drives and says
    /// their loads: the balance ΔE − W is then the integration error (with the work of any
    /// applied forces, inputs and dampers).
    pub drive_work: Option<f64>,
    /// Largest |Φ| of every joint seen at output times (empty without joints).
    pub joint_drift: Vec<f64>,
    /// Most contacts active at an output time (systems with contact).
    pub peak_contacts: Option<usize>,
    /// What an iterative solver did (implicit systems).
    pub solver: Option<String>,
    /// What the watch saw (energy growth, constraint drift), with time and joint name.
    pub diagnostics: Vec<Diagnostic>,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// Digest chained over the state after every step (the firmware's trajectory hash).
    pub trajectory: Digest,
    /// Digest of the final state.
    pub final_state: Digest,
    /// Where a signal stopped the run (`None`: it reached its end time).
    pub interrupted: Option<Interrupted>,
}

/// A run stopped by a signal before its end time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interrupted {
    /// The signal.
    pub signal: Stop,
    /// Simulation time reached (s).
    pub time: f64,
    /// Steps the run was to take.
    pub planned_steps: u64,
}

/// The summary line: steps, wall time, energy change, and |Φ|, contacts and solver work where
/// the system has them.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(i) = &self.interrupted {
            write!(
                f,
                "interrupted at t = {} s by {} after {} of {} steps; ",
                i.shown_time(),
                i.signal.name(),
                self.steps,
                i.planned_steps
            )?;
        }
        write!(
            f,
            "{} steps in {:.2} s wall ({:.1} µs/step); ",
            self.steps,
            self.wall_seconds,
            1e6 * self.wall_seconds / self.steps.max(1) as f64,
        )?;
        if let Some(w) = self.drive_work {
            write!(
                f,
                "drive work {w:.6e} J, energy change {:.6e} J, balance ΔE − W {:.2e} J",
                self.energy_change,
                self.energy_change - w
            )?;
        } else if self.driven {
            // Not a drift: what drives, forces and inputs put in or took out.
            write!(
                f,
                "driven: energy change E(end) − E(0) = {:.3e} J (the net work done on the system; largest |ΔE| {:.3e} J)",
                self.energy_change, self.max_energy_change
            )?;
        } else {
            write!(f, "max |ΔE| = {:.3e} J", self.max_energy_change)?;
        }
        if let Some(v) = self.max_violation() {
            write!(f, ", max |Φ| = {v:.2e}")?;
        }
        if let Some(n) = self.peak_contacts {
            write!(f, ", contacts: peak {n} active")?;
        }
        if let Some(s) = &self.solver {
            write!(f, "; {s}")?;
        }
        Ok(())
    }
}

impl Summary {
    /// Largest constraint violation seen at output times (systems with joints).
    pub fn max_violation(&self) -> Option<f64> {
        self.joint_drift.iter().copied().reduce(f64::max)
    }
}

/// Runs `sim` to its end time, recording at every output time (and at the end) into
/// `recorders`, with progress shown when `progress` (a bar on a terminal, else a line to stderr
/// every few seconds). A SIGINT or SIGTERM ([`crate::interrupt`]) stops it between steps: the
/// state reached is recorded and the summary says where it stopped. The recorders' files are
/// finished and listed in the summary.
pub fn drive(sim: &mut Simulation, mut recorders: Vec<Box<dyn Recorder>>, progress: bool) -> Result<Summary> {
    let steps = sim.timing.steps();
    let every = sim.timing.output_every();
    let mut shown = Progress::new(progress, steps);
    let e0 = Sample::of(sim)?.energy.total();
    let mut work = WorkIntegral::default();
    let drives = !drive_loads(sim)?.is_empty();
    let mut add_power = |sim: &mut Simulation| -> Result<()> {
        if drives {
            let power = drive_loads(sim)?.iter().map(|d| d.power).sum();
            work.push(sim.time(), power);
        }
        Ok(())
    };
    add_power(sim)?;
    let mut seen = Seen::new(&sim.labels, e0);
    let mut trajectory = Digest::default();
    let mut interrupted = None;
    let started = Instant::now();
    let mut taken = 0;
    for k in 0..=steps {
        if k % every == 0 || k == steps {
            seen.record(sim, &mut recorders)?;
            shown.at(k, sim.time());
        }
        if k == steps {
            break;
        }
        if let Some(signal) = interrupt::received() {
            // The state reached, unless it was just recorded.
            if k % every != 0 {
                seen.record(sim, &mut recorders)?;
            }
            interrupted = Some(Interrupted {
                signal,
                time: sim.time(),
                planned_steps: steps,
            });
            break;
        }
        sim.step()?;
        add_power(sim)?;
        trajectory.add(sim.state());
        taken = k + 1;
    }
    shown.finish();
    let mut files = Vec::new();
    for r in recorders {
        files.extend(r.finish()?);
    }
    Ok(Summary {
        steps: taken,
        wall_seconds: started.elapsed().as_secs_f64(),
        max_energy_change: seen.max_de,
        energy_change: seen.last_de,
        driven: !sim.labels.conservative,
        drive_work: drives.then(|| work.total()),
        joint_drift: seen.joint_drift,
        peak_contacts: sim.contacts().map(|_| seen.peak_contacts),
        solver: sim.solver_report(),
        diagnostics: seen.watch.diagnostics,
        files,
        trajectory,
        final_state: sim.digest(),
        interrupted,
    })
}

/// What the loop tracks over the output times: the watch, the largest energy change, joint
/// drift and contact count.
struct Seen {
    watch: Watch,
    e0: f64,
    max_de: f64,
    last_de: f64,
    joint_drift: Vec<f64>,
    peak_contacts: usize,
}

impl Seen {
    fn new(labels: &super::Labels, e0: f64) -> Self {
        Self {
            // Energy may not grow by 1e-3 of its scale without external work.
            watch: Watch::new(labels, e0, 1e-3, DRIFT_TOLERANCE),
            e0,
            max_de: 0.0,
            last_de: 0.0,
            joint_drift: Vec::new(),
            peak_contacts: 0,
        }
    }
    /// Evaluates the current state, watches it and hands it to every recorder.
    fn record(&mut self, sim: &mut Simulation, recorders: &mut [Box<dyn Recorder>]) -> Result<()> {
        let t = sim.time();
        let sample = Sample::of(sim)?;
        let e = sample.energy;
        self.last_de = e.total() - self.e0;
        self.max_de = self.max_de.max(self.last_de.abs());
        let violations: Vec<f64> = sample.joints.iter().map(|v| v.position).collect();
        self.joint_drift.resize(violations.len(), 0.0f64);
        for (worst, v) in self.joint_drift.iter_mut().zip(&violations) {
            *worst = worst.max(*v);
        }
        self.watch.observe(t, e.total(), e.kinetic, &violations);
        if let Some(c) = sim.contacts() {
            self.peak_contacts = self.peak_contacts.max(c.active_count());
        }
        for r in recorders.iter_mut() {
            r.record(sim, &sample)?;
        }
        Ok(())
    }
}
