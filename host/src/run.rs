//! The simulation driver: steps a model, reports progress, writes trajectory and energy CSV.

use crate::check::{joint_reactions, joint_violations};
use crate::output::{energy_plot, progress_bar, OutputDir};
use crate::watch::{Diagnostic, Watch};
use anyhow::{Context, Result};
use ferrodyn_kernel::analysis::{energy, violation};
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::{step, ModelStorage, RigidData, RigidModel};
use std::path::PathBuf;
use std::time::Instant;

/// Settings of a run.
#[derive(Clone, Debug)]
pub struct RunSettings {
    /// End time (s).
    pub end_time: f64,
    /// Step size (s).
    pub step: f64,
    /// Interval between output rows (s); rounded to a whole number of steps.
    pub output_interval: f64,
    /// Also write `reactions.csv`: the force each joint exerts on its body j (global axes).
    pub reactions: bool,
}

/// What a run produced, for the summary line.
#[derive(Clone, Debug)]
pub struct RunSummary {
    /// Steps taken.
    pub steps: u64,
    /// Wall-clock seconds spent stepping.
    pub wall_seconds: f64,
    /// Largest |E(t) − E(0)| seen at output times (J).
    pub max_energy_change: f64,
    /// Largest constraint violation seen at output times.
    pub max_violation: f64,
    /// Files written.
    pub files: Vec<PathBuf>,
    /// What the run-time watch saw (energy growth, constraint drift), with time and joint.
    pub diagnostics: Vec<Diagnostic>,
}

/// Runs `model` from its initial state and writes `trajectory.csv` and `energy.csv`.
pub fn simulate<St: ModelStorage>(
    model: &RigidModel<f64, St>,
    integrator: &mut Method<f64>,
    settings: &RunSettings,
    out: &OutputDir,
) -> Result<RunSummary> {
    let mut data = Box::new(RigidData::new(model));
    ferrodyn_kernel::assemble(model, &mut data).context("assembling the initial configuration")?;
    let n = model.bodies().len();
    let mut trajectory = out.file("trajectory.csv")?;
    let mut columns = vec!["time".to_string()];
    for b in 0..n {
        for c in ["x", "y", "z", "qw", "qx", "qy", "qz"] {
            columns.push(format!("body{b}_{c}"));
        }
    }
    trajectory.header(&columns)?;
    let mut energies = out.file("energy.csv")?;
    energies.header(&[
        "time",
        "kinetic",
        "potential",
        "total",
        "violation_position",
        "violation_velocity",
    ])?;

    let mut reactions = match settings.reactions {
        true => {
            let mut file = out.file("reactions.csv")?;
            let mut columns = vec!["time".to_string()];
            for j in 0..model.joints().len() {
                columns.extend(["fx", "fy", "fz"].map(|c| format!("joint{j}_{c}")));
            }
            file.header(&columns)?;
            Some(file)
        }
        false => None,
    };
    let steps = (settings.end_time / settings.step).round().max(0.0) as u64;
    let every = ((settings.output_interval / settings.step).round() as u64).max(1);
    let progress = progress_bar(steps);
    let e0 = energy(model, &data).total();
    let (mut max_de, mut max_violation) = (0.0f64, 0.0f64);
    // Energy may not grow by 1e-3 of its scale without external work; joints may not drift
    // beyond 1e-6 (projection keeps them near 1e-12).
    let mut watch = Watch::new(model, e0, 1e-3, 1e-6);
    // (t, kinetic), (t, potential), (t, total) for the energy plot.
    let mut history: [Vec<(f64, f64)>; 3] = Default::default();
    let mut row = Vec::with_capacity(1 + 7 * n);
    let started = Instant::now();
    for k in 0..=steps {
        if k % every == 0 || k == steps {
            let e = energy(model, &data);
            let v = violation(model, &data);
            max_de = max_de.max((e.total() - e0).abs());
            watch.observe(
                data.time(),
                e.total(),
                e.kinetic,
                &joint_violations(model, &mut data)?,
            );
            max_violation = max_violation.max(v.position);
            energies.row(&[
                data.time(),
                e.kinetic,
                e.potential,
                e.total(),
                v.position,
                v.velocity,
            ])?;
            for (h, value) in history.iter_mut().zip([e.kinetic, e.potential, e.total()]) {
                h.push((data.time(), value));
            }
            if let Some(file) = reactions.as_mut() {
                let mut values = vec![data.time()];
                for r in joint_reactions(model, &mut data)? {
                    values.extend(r.force.to_array());
                }
                file.row(&values)?;
            }
            row.clear();
            row.push(data.time());
            row.extend_from_slice(&data.state()[..7 * n]);
            trajectory.row(&row)?;
            progress.set_position(k);
            progress.set_message(format!("{:.3}", data.time()));
        }
        if k < steps {
            step(model, &mut data, integrator, settings.step)
                .with_context(|| format!("step {} at t = {} s failed", k + 1, data.time()))?;
        }
    }
    progress.finish_and_clear();
    let wall_seconds = started.elapsed().as_secs_f64();
    let plot = energy_plot(out, ["kinetic", "potential", "total"], &history)?;
    Ok(RunSummary {
        steps,
        wall_seconds,
        max_energy_change: max_de,
        max_violation,
        files: [
            Some(trajectory.finish()?),
            Some(energies.finish()?),
            reactions.map(|f| f.finish()).transpose()?,
            Some(plot),
        ]
        .into_iter()
        .flatten()
        .collect(),
        diagnostics: watch.diagnostics,
    })
}
