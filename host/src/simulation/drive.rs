//! The one drive loop: steps a simulation from its current state to the end time, shows
//! progress, watches for energy growth and constraint drift, and feeds the recorders at every
//! output time; returns the summary line's figures.

use super::Simulation;
use crate::check::joint_violations;
use crate::output::progress_bar;
use crate::record::Recorder;
use crate::watch::{Diagnostic, Watch};
use anyhow::{Context, Result};
use std::fmt;
use std::path::PathBuf;
use std::time::Instant;

/// What a run did, for its summary line.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Steps taken.
    pub steps: u64,
    /// Wall-clock seconds spent stepping and recording.
    pub wall_seconds: f64,
    /// Largest |E(t) − E(0)| seen at output times (J).
    pub max_energy_change: f64,
    /// Largest constraint violation seen at output times (systems with joints).
    pub max_violation: Option<f64>,
    /// Most contacts active at an output time (systems with contact).
    pub peak_contacts: Option<usize>,
    /// What an iterative solver did (implicit systems).
    pub solver: Option<String>,
    /// What the watch saw (energy growth, constraint drift), with time and joint name.
    pub diagnostics: Vec<Diagnostic>,
    /// Files written.
    pub files: Vec<PathBuf>,
}

/// The summary line: steps, wall time, energy change, and |Φ|, contacts and solver work where
/// the system has them.
impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} steps in {:.2} s wall ({:.1} µs/step); max |ΔE| = {:.3e} J",
            self.steps,
            self.wall_seconds,
            1e6 * self.wall_seconds / self.steps.max(1) as f64,
            self.max_energy_change
        )?;
        if let Some(v) = self.max_violation {
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

/// Runs `sim` to its end time, recording at every output time (and at the end) into
/// `recorders`, with a progress bar when `progress`. The recorders' files are finished and
/// listed in the summary.
pub fn drive(sim: &mut Simulation, mut recorders: Vec<Box<dyn Recorder>>, progress: bool) -> Result<Summary> {
    let steps = sim.timing.steps();
    let every = sim.timing.output_every();
    let bar = progress_bar(if progress { steps } else { 0 });
    let energy = |sim: &Simulation| {
        sim.energy()
            .with_context(|| format!("energy at t = {} s", sim.time()))
    };
    let e0 = energy(sim)?.total();
    // Energy may not grow by 1e-3 of its scale without external work; joints may not drift
    // beyond 1e-6 (projection keeps them near 1e-12).
    let mut watch = Watch::new(&sim.labels, e0, 1e-3, 1e-6);
    let has_joints = sim.rigid().is_some_and(|(m, _)| m.constraint_rows() > 0);
    let (mut max_de, mut max_violation, mut peak_contacts) = (0.0f64, 0.0f64, 0usize);
    let started = Instant::now();
    for k in 0..=steps {
        if k % every == 0 || k == steps {
            let t = sim.time();
            let e = energy(sim)?;
            max_de = max_de.max((e.total() - e0).abs());
            let violations = sim
                .rigid()
                .map(|(m, d)| joint_violations(m, d))
                .unwrap_or_default();
            max_violation = violations.iter().fold(max_violation, |m, v| m.max(*v));
            watch.observe(t, e.total(), e.kinetic, &violations);
            if let Some(c) = sim.contacts() {
                peak_contacts = peak_contacts.max(c.active_count());
            }
            for r in recorders.iter_mut() {
                r.record(sim)?;
            }
            bar.set_position(k);
            bar.set_message(format!("{t:.6}"));
        }
        if k < steps {
            sim.step()?;
        }
    }
    bar.finish_and_clear();
    let mut files = Vec::new();
    for r in recorders {
        files.extend(r.finish()?);
    }
    Ok(Summary {
        steps,
        wall_seconds: started.elapsed().as_secs_f64(),
        max_energy_change: max_de,
        max_violation: has_joints.then_some(max_violation),
        peak_contacts: sim.contacts().map(|_| peak_contacts),
        solver: sim.solver_report(),
        diagnostics: watch.diagnostics,
        files,
    })
}
