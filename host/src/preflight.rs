//! The `check` and scene-file `run` commands: a scene compiled into a kernel model, checked
//! (capacities, DOF, redundant rows, initial violation, assembly, settling) and simulated.

use crate::check::{dof_report, joint_reactions, joint_violations, settle};
use crate::model::HostData;
use crate::model::HostModel;
use crate::output::OutputDir;
use crate::run::{simulate_with_contact, RunSettings};
use crate::scene::{NameMaps, Scene};
use crate::watch::Diagnostic;
use anyhow::{bail, Context, Result};
use ferrodyn_kernel::assemble;
use std::path::Path;

/// Violation above which an initial joint state is flagged (m, or rad-like for angular rows).
const VIOLATION_WARNING: f64 = 1e-4;
/// Drift above which a joint is flagged during the prescribed-motion run.
const DRIFT_WARNING: f64 = 1e-6;

/// Compiles a loaded scene's rigid part into a host model.
fn rigid_from(scene: Scene, path: &Path) -> Result<(Scene, HostModel, NameMaps)> {
    if !scene.flexibles.is_empty() {
        bail!(
            "{}: rigid bodies together with flexible bodies are run by `ferrodyn run`, not here",
            path.display()
        );
    }
    let (model, names) = scene.build_rigid()?;
    Ok((scene, model, names))
}

/// `ferrodyn check SCENE`: prints a preflight report; fails on errors, warns on violations.
pub fn check_scene(path: &Path, with_settle: bool, with_motion: bool) -> Result<()> {
    let scene = Scene::load(path)?;
    if !scene.flexibles.is_empty() {
        return crate::flex_run::check_flexible(scene);
    }
    let (scene, model, names) = rigid_from(scene, path)?;
    let c = scene.required_capacities();
    println!(
        "{}: {} bodies, {} joints ({} constraint rows), {} forces",
        path.display(),
        c.bodies,
        c.joints,
        c.rows,
        c.forces
    );
    println!(
        "kernel capacities needed: bodies {}, joints {}, forces {}, rows {}, skyline {}",
        c.bodies, c.joints, c.forces, c.rows, c.skyline
    );
    let mut data = HostData::new(&model);
    let dof = dof_report(&model, &mut data)?;
    println!(
        "DOF: Grübler {} | rank of Φ_q {} → {} independent",
        dof.gruebler, dof.rank, dof.independent
    );
    for (joint, row) in &dof.redundant {
        println!("  redundant: joint \"{}\" row {row}", names.joints[*joint]);
    }
    let violations = joint_violations(&model, &mut data)?;
    for (name, v) in names.joints.iter().zip(&violations) {
        let flag = if *v > VIOLATION_WARNING {
            "  WARNING: inconsistent initial position"
        } else {
            ""
        };
        println!("  joint \"{name}\": |Φ| at t0 = {v:.3e}{flag}");
    }
    if dof.redundant.is_empty() {
        let iterations = assemble(&model, &mut data).context("assembling the initial configuration")?;
        let after = joint_violations(&model, &mut data)?
            .into_iter()
            .fold(0.0f64, f64::max);
        println!("assembly: {iterations} Newton iterations, max |Φ| {after:.3e}");
    } else {
        println!("assembly skipped: remove the redundant constraint rows first");
        return Ok(());
    }
    if with_motion {
        prescribed_motion(&scene, &model, &names)?;
    }
    if with_settle {
        let mut method = scene.integrator();
        let rest = settle(
            &model,
            &mut data,
            &mut method,
            scene.simulation.step,
            5.0,
            1e-12,
            120.0,
        )?;
        println!(
            "settled in {:.2} s (kinetic energy {:.2e} J); joint reactions on body j:",
            rest.time, rest.kinetic
        );
        for (name, r) in names.joints.iter().zip(joint_reactions(&model, &mut data)?) {
            println!(
                "  {name}: force [{:.6}, {:.6}, {:.6}] N",
                r.force.x, r.force.y, r.force.z
            );
        }
    }
    Ok(())
}

/// `ferrodyn run SCENE`: simulates the scene with its own integrator, step and end time
/// (`end` overrides the end time). Scenes with a flexible body (alone or attached to rigid
/// bodies) run through `flex_run`; rigid scenes run as rigid models.
pub fn run_scene(path: &Path, out: &Path, force: bool, end: Option<f64>) -> Result<()> {
    let mut scene = Scene::load(path)?;
    if let Some(end) = end {
        if !(end > 0.0 && end.is_finite()) {
            bail!("--end must be > 0 (got {end})");
        }
        scene.simulation.end_time = end;
    }
    if !scene.flexibles.is_empty() {
        return crate::flex_run::run_flexible(scene, out, force);
    }
    let (scene, model, names) = rigid_from(scene, path)?;
    let sim = &scene.simulation;
    let dir = OutputDir::create(out, force)?;
    println!(
        "ferrodyn: {} ({} bodies), {}, dt = {} s, t = 0 … {} s",
        path.display(),
        model.bodies().len(),
        sim.integrator_name(),
        sim.step,
        sim.end_time
    );
    let settings = RunSettings {
        end_time: sim.end_time,
        step: sim.step,
        output_interval: sim.output_interval,
        outputs: scene.output,
        names: names.clone(),
        sensors: scene.sensors.clone(),
    };
    let mut method = scene.integrator();
    // Contact shapes, checked against the model's bodies; contacts.csv when there are any.
    let mut world = match &scene.contact {
        Some(spec) => Some(spec.world(model.bodies().len()).context("setting up contact")?),
        None => None,
    };
    let summary = simulate_with_contact(&model, &mut method, &settings, &dir, world.as_mut())?;
    println!(
        "{} steps in {:.2} s wall; max |ΔE| = {:.3e} J, max |Φ| = {:.2e}",
        summary.steps, summary.wall_seconds, summary.max_energy_change, summary.max_violation
    );
    for d in &summary.diagnostics {
        match d {
            Diagnostic::ConstraintDrift {
                time,
                joint,
                violation,
            } => {
                println!(
                    "diagnostic: t = {time} s: joint \"{}\" drifted to |Φ| = {violation:.3e}",
                    names.joints[*joint]
                )
            }
            other => println!("diagnostic: {other}"),
        }
    }
    for f in &summary.files {
        println!("wrote {}", f.display());
    }
    Ok(())
}

/// Runs the scene to its end time in memory and reports the largest |Φ| of every joint over the
/// output times: the prescribed-motion check (a drive's |Φ| is its tracking error).
fn prescribed_motion(scene: &Scene, model: &HostModel, names: &NameMaps) -> Result<()> {
    let sim = &scene.simulation;
    let mut data = HostData::new(model);
    assemble(model, &mut data).context("assembling the initial configuration")?;
    let mut method = scene.integrator();
    let steps = (sim.end_time / sim.step).round().max(0.0) as u64;
    let every = ((sim.output_interval / sim.step).round() as u64).max(1);
    let mut worst = joint_violations(model, &mut data)?;
    for k in 1..=steps {
        ferrodyn_kernel::step(model, &mut data, &mut method, sim.step)
            .with_context(|| format!("step {k} at t = {} s", data.time()))?;
        if k % every == 0 || k == steps {
            for (w, v) in worst.iter_mut().zip(joint_violations(model, &mut data)?) {
                *w = w.max(v);
            }
        }
    }
    println!("prescribed motion over {} s: largest |Φ| per joint", sim.end_time);
    for (name, w) in names.joints.iter().zip(&worst) {
        let flag = if *w > DRIFT_WARNING {
            "  WARNING: drift"
        } else {
            ""
        };
        println!("  joint \"{name}\": {w:.3e}{flag}");
    }
    Ok(())
}
