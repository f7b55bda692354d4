//! The simulation driver: steps a model, reports progress, writes trajectory and energy CSV.

use crate::check::{joint_reactions, joint_violations};
use crate::contact::output::ContactCsv;
use crate::contact::ContactWorld;
use crate::output::{energy_plot, progress_bar, CsvWriter, OutputDir};
use crate::plot::{line_plot, Series};
use crate::scene::{NameMaps, OutputSpec};
use crate::sensor::{Sensor, SensorKind};
use crate::watch::{Diagnostic, Watch};
use anyhow::{Context, Result};
use ferrodyn_kernel::analysis::{energy, violation};
use ferrodyn_kernel::{step, step_with, Integrator, ModelStorage, RigidData, RigidModel};
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
    /// Which files to write (states, energy, reactions, plots).
    pub outputs: OutputSpec,
    /// Body and joint names for the CSV columns.
    pub names: NameMaps,
    /// Sensors sampled into `sensors.csv` (and plotted when `outputs.plots`).
    pub sensors: Vec<Sensor>,
}

impl RunSettings {
    /// Every output and plot, no sensors, bodies named `body0…` and joints `joint0…`.
    pub fn everything<St: ModelStorage>(
        model: &RigidModel<f64, St>,
        end_time: f64,
        step: f64,
        output_interval: f64,
    ) -> Self {
        Self {
            end_time,
            step,
            output_interval,
            outputs: OutputSpec {
                states: true,
                energy: true,
                reactions: true,
                plots: true,
            },
            names: NameMaps {
                bodies: (0..model.bodies().len()).map(|b| format!("body{b}")).collect(),
                joints: (0..model.joints().len()).map(|j| format!("joint{j}")).collect(),
                ..NameMaps::default()
            },
            sensors: Vec::new(),
        }
    }
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

/// A CSV file of the run with its header written, or `None` when not requested.
fn csv(out: &OutputDir, wanted: bool, name: &str, columns: &[String]) -> Result<Option<CsvWriter>> {
    if !wanted {
        return Ok(None);
    }
    let mut file = out.file(name)?;
    file.header(columns)?;
    Ok(Some(file))
}

/// Columns `time, {name}_{channel}…` for every name and channel.
fn columns(names: &[String], channels: &[&str]) -> Vec<String> {
    let mut columns = vec!["time".to_string()];
    for name in names {
        columns.extend(channels.iter().map(|c| format!("{name}_{c}")));
    }
    columns
}

/// Runs `model` from its initial state and writes the requested files: `trajectory.csv`
/// (states), `energy.csv` (energies and constraint violation), `reactions.csv` (force of each
/// joint on its body j, global), `sensors.csv`, and with plots `energy.png` and one
/// `sensor_NAME.png` per plotted sensor.
pub fn simulate<St: ModelStorage>(
    model: &RigidModel<f64, St>,
    integrator: &mut impl Integrator<f64>,
    settings: &RunSettings,
    out: &OutputDir,
) -> Result<RunSummary> {
    simulate_with_contact(model, integrator, settings, out, None)
}

/// [`simulate`] with contact forces from `contact` evaluated at every integrator stage, and
/// the active contacts written into `contacts.csv` at every output time.
pub fn simulate_with_contact<St: ModelStorage>(
    model: &RigidModel<f64, St>,
    integrator: &mut impl Integrator<f64>,
    settings: &RunSettings,
    out: &OutputDir,
    mut contact: Option<&mut ContactWorld>,
) -> Result<RunSummary> {
    let mut data = Box::new(RigidData::new(model));
    ferrodyn_kernel::assemble(model, &mut data).context("assembling the initial configuration")?;
    let mut contacts = match contact.as_deref_mut() {
        Some(world) => {
            world.commit(&data);
            Some(ContactCsv::create(out)?)
        }
        None => None,
    };
    let n = model.bodies().len();
    let wanted = &settings.outputs;
    let names = &settings.names;
    let mut trajectory = csv(
        out,
        wanted.states,
        "trajectory.csv",
        &columns(&names.bodies, &["x", "y", "z", "qw", "qx", "qy", "qz"]),
    )?;
    let energy_columns = [
        "time",
        "kinetic",
        "potential",
        "total",
        "violation_position",
        "violation_velocity",
    ];
    let mut energies = csv(
        out,
        wanted.energy,
        "energy.csv",
        &energy_columns.map(String::from),
    )?;
    let mut reactions = csv(
        out,
        wanted.reactions,
        "reactions.csv",
        &columns(&names.joints, &["fx", "fy", "fz"]),
    )?;
    let sensor_columns: Vec<String> = settings.sensors.iter().flat_map(|s| s.columns()).collect();
    let mut sensors = csv(
        out,
        !settings.sensors.is_empty(),
        "sensors.csv",
        &[vec!["time".to_string()], sensor_columns.clone()].concat(),
    )?;
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
    // (t, value) of every sensor channel, for the sensor plots.
    let mut sensor_history: Vec<Vec<(f64, f64)>> = vec![Vec::new(); sensor_columns.len()];
    let mut row = Vec::with_capacity(1 + 7 * n);
    let started = Instant::now();
    for k in 0..=steps {
        if k % every == 0 || k == steps {
            let t = data.time();
            let e = energy(model, &data);
            let v = violation(model, &data);
            max_de = max_de.max((e.total() - e0).abs());
            watch.observe(t, e.total(), e.kinetic, &joint_violations(model, &mut data)?);
            max_violation = max_violation.max(v.position);
            if let Some(file) = energies.as_mut() {
                file.row(&[t, e.kinetic, e.potential, e.total(), v.position, v.velocity])?;
            }
            for (h, value) in history.iter_mut().zip([e.kinetic, e.potential, e.total()]) {
                h.push((t, value));
            }
            if let Some(file) = reactions.as_mut() {
                row.clear();
                row.push(t);
                for r in joint_reactions(model, &mut data)? {
                    row.extend(r.force.to_array());
                }
                file.row(&row)?;
            }
            if let Some(file) = sensors.as_mut() {
                row.clear();
                row.push(t);
                for sensor in &settings.sensors {
                    sensor.sample(model, &data, &mut row);
                }
                for (h, value) in sensor_history.iter_mut().zip(&row[1..]) {
                    h.push((t, *value));
                }
                file.row(&row)?;
            }
            if let Some(file) = trajectory.as_mut() {
                row.clear();
                row.push(t);
                row.extend_from_slice(&data.state()[..7 * n]);
                file.row(&row)?;
            }
            if let (Some(file), Some(world)) = (contacts.as_mut(), contact.as_deref()) {
                file.write(t, world)?;
            }
            progress.set_position(k);
            progress.set_message(format!("{t:.3}"));
        }
        if k < steps {
            let stepped = match contact.as_deref_mut() {
                Some(world) => step_with(model, &mut data, integrator, settings.step, world),
                None => step(model, &mut data, integrator, settings.step),
            };
            stepped.with_context(|| format!("step {} at t = {} s failed", k + 1, data.time()))?;
            if let Some(world) = contact.as_deref_mut() {
                world.commit(&data);
            }
        }
    }
    progress.finish_and_clear();
    let wall_seconds = started.elapsed().as_secs_f64();
    let mut files = Vec::new();
    for file in [trajectory, energies, reactions, sensors].into_iter().flatten() {
        files.push(file.finish()?);
    }
    if let Some(file) = contacts {
        files.push(file.finish()?);
    }
    if wanted.plots {
        files.push(energy_plot(out, ["kinetic", "potential", "total"], &history)?);
        files.extend(sensor_plots(
            out,
            &settings.sensors,
            &sensor_columns,
            &sensor_history,
        )?);
    }
    Ok(RunSummary {
        steps,
        wall_seconds,
        max_energy_change: max_de,
        max_violation,
        files,
        diagnostics: watch.diagnostics,
    })
}

/// One `sensor_NAME.png` per sensor marked for plotting, its channels against time.
fn sensor_plots(
    out: &OutputDir,
    sensors: &[Sensor],
    columns: &[String],
    history: &[Vec<(f64, f64)>],
) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut first = 0;
    for sensor in sensors {
        let channels = sensor.columns().len();
        let range = first..first + channels;
        first += channels;
        if !sensor.plot {
            continue;
        }
        let path = out.claim(&format!("sensor_{}.png", sensor.name))?;
        let series: Vec<Series> = columns[range.clone()]
            .iter()
            .zip(&history[range])
            .map(|(label, points)| Series { label, points })
            .collect();
        let unit = match sensor.kind {
            SensorKind::Point { .. } => "position [m], velocity [m/s]",
            SensorKind::JointAngle { .. } => "angle [rad], rate [rad/s]",
        };
        line_plot(&path, &sensor.name, "time [s]", unit, &series)
            .with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
    }
    Ok(files)
}
