//! `ferrodyn check`: preflight checks of a scene, in the manner of an occupant-simulation
//! preflight — the capacities a firmware build needs (as one `Fixed` type), degrees of freedom
//! and redundant constraint rows, the initial violation of every joint and the assembly, the
//! explicit stability limit of every flexible body against the step; optionally the
//! prescribed motion's drift per joint and the reactions after settling under gravity.

use super::count;
use crate::check::{dof_report, joint_reactions, joint_violations, redundant_note, redundant_rows, settle};
use crate::compile::{
    choose, compile, compile_chosen, fewest_loop_rows, flexible_model, mirror_model, tree_parts,
    tree_parts_on, Capacities, Choice, TreeLink, TreeParts,
};
use crate::dae::HostMethod;
use crate::export::target::{
    contact_instructions, tree_needs, with_loops_and_forces, Core, LinkMix, LoopsAndForces, Motion,
};
use crate::export::tree_loops::capacities;
use crate::export::{contact_pair_count, refuse_tendons};

use crate::limits::{output_bytes_per_time, run_size_warnings};
use crate::scene::{Named, Scene};
use crate::simulation::{drive, DRIFT_TOLERANCE};
use crate::spec::IntegratorSpec;
use crate::storage::{Growable, RigidData, RigidModel};
use anyhow::{bail, Context, Result};
use ferrodyn_kernel::flex::max_frequency;
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::rigid::{violation, Joint, JointKind};
use ferrodyn_kernel::tree::redundant_loop_rows;
use ferrodyn_kernel::Dynamics;
use std::io::{BufWriter, Write};
use std::path::Path;

/// Violation above which an initial joint state is flagged (m, or rad-like for angular rows).
const VIOLATION_WARNING: f64 = 1e-4;

/// RMS acceleration from rest, per m/s² of gravity, below which a settled model is at rest.
const SETTLE_TOLERANCE: f64 = 1e-9;

/// Prints the preflight report of the scene at `path`; with `with_motion` runs it and reports
/// the drift of every joint, with `with_settle` settles it under gravity and reports the joint
/// reactions. Fails on an error, and when a requested run cannot be made (saying why).
pub fn check(path: &Path, with_settle: bool, with_motion: bool, target: Option<&str>) -> Result<()> {
    let core = target
        .map(|name| {
            Core::from_name(name)
                .with_context(|| format!("unknown target '{name}'; choose cortex-m4f or cortex-m7"))
        })
        .transpose()?;
    let scene = crate::import::load_scene(path)?;
    let mut capacities = Capacities::of_scene(&scene);
    println!(
        "{}: {}, {} ({}), {}, {}",
        path.display(),
        count(capacities.bodies, "body", "bodies"),
        count(capacities.joints, "joint", "joints"),
        count(capacities.rows, "constraint row", "constraint rows"),
        count(capacities.forces, "force", "forces"),
        count(scene.flexibles.len(), "flexible body", "flexible bodies")
    );
    for note in &scene.notes {
        println!("note: {note}");
    }
    // The one capacity type `ferrodyn export` writes: the tree's for rigid scenes in joint
    // coordinates, the model's otherwise.
    let mut tree_capacities = None;
    let mut cartesian = false;
    if !scene.bodies.is_empty() {
        let (choice, mirror) = choose_beside_mirror(&scene)?;
        println!("formulation: {}", choice.describe());
        cartesian = matches!(choice, Choice::Cartesian(_));
        tree_capacities = check_rigid(&scene, choice, mirror)?;
    }
    for index in 0..scene.flexibles.len() {
        check_flexible(&scene, index)?;
    }
    if !scene.flexibles.is_empty() {
        // The profile of all flexible bodies as one model, as the firmware builds them.
        let (merged, _) = flexible_model::<Growable>(&scene, &scene.flexibles)?;
        capacities.profile = merged.profile_entries();
    }
    match tree_capacities {
        Some(tree) if scene.flexibles.is_empty() => {
            println!("kernel capacities (joint coordinates, as `ferrodyn export` writes them): {tree}")
        }
        _ if cartesian => println!(
            "kernel capacities of the Cartesian model (export takes joint coordinates): {capacities}"
        ),
        _ => println!("kernel capacities (as `ferrodyn export` writes them): {capacities}"),
    }
    for warning in size_warnings(&scene) {
        println!("{warning}");
    }
    if let Some(core) = core {
        target_report(&scene, core)?;
    }
    if with_motion {
        prescribed_motion(&scene)?;
    }
    if with_settle {
        settle_report(&scene)?;
    }
    let items = scene.bodies.len() + scene.joints.len();
    crate::release::drop_large(scene, items);
    Ok(())
}

/// The spanning tree of a scene in joint coordinates (each link's joint, from the body it
/// hangs from to its own), and the joints closing loops on it with their rows on the tree's
/// coordinates and the redundant ones at the initial state, by joint name.
/// Returns the tree's capacity type as `ferrodyn export` writes it, and the tree's parts (on
/// `mirror`, the scene's Cartesian mirror, and its fresh `data`, which they assemble).
fn tree_report(
    scene: &Scene,
    links: &[TreeLink],
    (mirror, data): (RigidModel, RigidData),
) -> Result<(String, TreeParts)> {
    spanning_tree_line(scene, links)?;
    let parts = tree_parts_on(scene, links, mirror, data)?;
    loop_rows_report(scene, &parts);
    let model = &parts.model;
    // Force elements and tendons take one forces list each.
    let (fixed, _) = capacities(model, parts.forces.elements().len().max(model.tendons().len()));
    let capacities = format!(
        "pub type Capacities = ferrodyn_kernel::{fixed}; // {}, {} DOF",
        count(links.len(), "link", "links"),
        model.velocity_count()
    );
    tendons_report(scene);
    if is_open(&parts) {
        return Ok((capacities, parts));
    }
    let data = parts.initial_data()?;
    let redundant = redundant_loop_rows(model, &data)?;
    let mut first = 0;
    for (index, joint) in &parts.tree.loops {
        let rows = joint.kind.rows();
        let dropped: Vec<String> = (0..rows)
            .filter(|k| redundant.get(first + k).copied().unwrap_or(false))
            .map(|k| k.to_string())
            .collect();
        let dropped = match dropped.len() {
            0 => String::new(),
            1 => format!("; redundant row {} (zero multiplier)", dropped.join("")),
            _ => format!("; redundant rows {} (zero multipliers)", dropped.join(", ")),
        };
        println!(
            "  loop closed by joint \"{}\": {} ({}){dropped}",
            scene.joints[*index].name,
            joint.kind.name(),
            count(
                rows,
                "row on the tree's coordinates",
                "rows on the tree's coordinates"
            ),
        );
        first += rows;
    }
    let coordinate_rows = redundant.get(model.loop_rows()..).unwrap_or_default();
    coordinate_rows_report(scene, links, &parts, coordinate_rows);
    Ok((capacities, parts))
}

/// The spanning tree's line: each link's joint, from the body it hangs from to its own.
/// Written as it is formed, through one buffer: for 10⁶ links the line is 40 MB, and
/// each piece as a string of its own cost a million allocations.
fn spanning_tree_line(scene: &Scene, links: &[TreeLink]) -> Result<()> {
    let body = |b: usize| &scene.bodies[b].name;
    let mut out = BufWriter::new(std::io::stdout().lock());
    write!(out, "spanning tree: ")?;
    for (k, l) in links.iter().enumerate() {
        if k > 0 {
            write!(out, ", ")?;
        }
        match l.joint {
            Some(j) => {
                write!(out, "\"{}\" (", scene.joints[j].name)?;
                match l.parent.and_then(|p| links.get(p)) {
                    Some(parent) => write!(out, "\"{}\"", body(parent.body))?,
                    None => write!(out, "ground")?,
                }
                write!(out, " → \"{}\")", body(l.body))?;
            }
            None => write!(out, "floating base \"{}\"", body(l.body))?,
        }
    }
    writeln!(out)?;
    Ok(out.flush()?)
}

/// One line for a tree with loops: its loop rows, the joints cut (and distance joints) that
/// make them, and that the spanning tree was chosen for the fewest of them
/// (`compile::fewest_loop_rows`), with the joints that must stay on the tree taken into account
/// when they cost rows.
fn loop_rows_report(scene: &Scene, parts: &TreeParts) {
    let loops = &parts.tree.loops;
    if loops.is_empty() {
        return;
    }
    let rows: usize = loops.iter().map(|(_, joint)| joint.kind.rows()).sum();
    let joints: Vec<String> = loops
        .iter()
        .map(|&(index, joint)| {
            let cut = match joint.kind {
                JointKind::Distance { .. } => "",
                _ => " cut",
            };
            format!(
                "{} joint \"{}\"{cut}",
                joint.kind.name(),
                scene.joints[index].name
            )
        })
        .collect();
    let fewest = fewest_loop_rows(scene);
    let choice = if rows <= fewest {
        "the fewest rows".to_string()
    } else {
        format!(
            "the fewest rows that keep on the tree the joints drives, couplings, inputs, tendons, joint springs and limits act on ({fewest} without them)"
        )
    };
    println!("loop rows: {rows} ({}; {choice})", joints.join(", "));
}

/// Whether the tree is open: no joint closing a loop, no drive or coupling row on its
/// coordinates. Its coordinates are then independent by construction: its DOF are exact from
/// the joint types, with no rank to compute.
fn is_open(parts: &TreeParts) -> bool {
    let tree = &parts.tree;
    tree.loops.is_empty() && tree.drives.is_empty() && tree.couplings.is_empty()
}

/// The drives and couplings on the tree, one line each, by name: the joints whose coordinates
/// they hold, and whether a row is redundant (`redundant`: the coordinate rows' flags, drives
/// then couplings).
fn coordinate_rows_report(scene: &Scene, links: &[TreeLink], parts: &TreeParts, redundant: &[bool]) {
    let joint_of = |link: usize| {
        links
            .get(link)
            .and_then(|l| l.joint)
            .map_or("?", |j| scene.joints[j].name.as_str())
    };
    for (k, drive) in parts.tree.drives.iter().enumerate() {
        let note = match redundant.get(k) {
            Some(true) => "; redundant (zero multiplier)",
            _ => "",
        };
        println!(
            "  drive \"{}\": joint \"{}\"'s coordinate follows its function (1 row on the tree's coordinates){note}",
            scene.joints[drive.joint].name,
            joint_of(drive.link)
        );
    }
    let drives = parts.tree.drives.len();
    for (k, coupling) in scene.couplings.iter().enumerate() {
        let note = match redundant.get(drives + k) {
            Some(true) => "; redundant (zero multiplier)",
            _ => "",
        };
        let c = coupling.value;
        println!(
            "  coupling \"{}\": joint \"{}\" = {} × joint \"{}\" + {} (1 row on the tree's coordinates){note}",
            coupling.name, scene.joints[c.joint].name, c.multiplier, scene.joints[c.follows].name, c.offset
        );
    }
}

/// The tendons on the tree, one line each: name, length and spring.
fn tendons_report(scene: &Scene) {
    for tendon in &scene.tendons {
        let t = &tendon.value;
        let terms: Vec<String> = t
            .terms
            .iter()
            .map(|&(joint, c)| format!("{c} × joint \"{}\"", scene.joints[joint].name))
            .collect();
        let limit = t
            .limit
            .map_or(String::new(), |l| format!(", limits [{}, {}]", l.lower, l.upper));
        println!(
            "  tendon \"{}\": length = {}; spring k = {}, rest {}…{}, damping {}{limit}",
            tendon.name,
            terms.join(" + "),
            t.stiffness,
            t.rest.0,
            t.rest.1,
            t.damping
        );
    }
}

/// What the scene needs on `core` once exported (`ferrodyn export rust`).
fn target_report(scene: &Scene, core: Core) -> Result<()> {
    if !scene.flexibles.is_empty() && scene.bodies.is_empty() {
        println!(
            "target {}: exports (flexible bodies alone) with the kernel capacities above; model and data bytes are not estimated for flexible models yet (the firmware prints them)",
            core.name()
        );
        return Ok(());
    }
    let Choice::Tree(links) = choose(scene)? else {
        println!(
            "target {}: not exportable yet (rigid scenes export in joint coordinates, flexible bodies alone; see the formulation above)",
            core.name()
        );
        return Ok(());
    };
    let parts = tree_parts(scene, &links)?;
    let contact_pairs = match contact_pair_count(scene, &parts) {
        Ok(pairs) => pairs,
        Err(e) => {
            println!("target {}: not exportable yet ({e})", core.name());
            return Ok(());
        }
    };
    if let Err(e) = refuse_tendons(scene) {
        println!("target {}: not exportable yet ({e})", core.name());
        return Ok(());
    }
    let extra = LoopsAndForces::of(&parts.model, parts.forces.elements().len(), contact_pairs);
    // The mirror symmetry that keeps a motion in a plane is not looked for with loads on it.
    let motion = match extra.forces + contact_pairs {
        0 => Motion::of(&parts.model, &parts.initial_data()?),
        _ if parts.model.is_planar() => Motion::PlanarTree,
        _ => Motion::Spatial,
    };
    let model = parts.model;
    let (n, dof, planar) = (model.slots(), model.velocity_count(), model.is_planar());
    let (fixed, _) = capacities(&model, extra.forces);
    let mut elements = String::new();
    if extra.joints > 0 {
        let rows = count(model.loop_rows(), "row", "rows");
        let joints = count(extra.joints, "loop joint", "loop joints");
        elements.push_str(&format!(", {joints} ({rows})"));
    }
    // Drives and couplings: one coordinate row each, solved with the loop rows.
    let coordinate_rows = model.coordinate_rows().len();
    if coordinate_rows > 0 {
        let rows = count(coordinate_rows, "coordinate row", "coordinate rows");
        let what = match (parts.tree.drives.len(), parts.tree.couplings.len()) {
            (_, 0) => "drives",
            (0, _) => "couplings",
            _ => "drives and couplings",
        };
        elements.push_str(&format!(", {rows} ({what})"));
    }
    if extra.forces > 0 {
        let forces = count(extra.forces, "force element", "force elements");
        elements.push_str(&format!(", {forces}"));
    }
    println!(
        "target {} at {:.0} MHz (the part's clock; QEMU's MPS2 boards run at 25 MHz): {fixed}, {}, {dof} DOF{}{elements}{}",
        core.name(),
        core.clock_hz() / 1e6,
        count(links.len(), "link", "links"),
        if planar { ", planar" } else { "" },
        match contact_pairs {
            0 => String::new(),
            pairs => format!(", {}", count(pairs, "contact pair", "contact pairs")),
        }
    );
    let integrator = &scene.simulation.integrator;
    let mix = LinkMix::of(&model);
    for (double, name) in [(false, "f32"), (true, "f64")] {
        let needs = tree_needs(core, n, dof, motion, &mix, double, integrator);
        let mut needs = with_loops_and_forces(needs, core, double, extra, integrator);
        needs.instructions = needs
            .instructions
            .map(|i| i + contact_instructions(core, double, contact_pairs, integrator).unwrap_or(0.0));
        let speed = match needs.instructions {
            Some(instructions) => {
                let micros = instructions / core.clock_hz() * 1e6;
                format!(
                    "≈ {instructions:.0} instructions/step ({}) ≈ {micros:.0} µs ({:.0} % of the {} s step at one instruction per cycle)",
                    integrator.name(),
                    100.0 * micros * 1e-6 / scene.simulation.step,
                    scene.simulation.step
                )
            }
            None => format!(
                "{} is not a firmware integrator (rk4, semi-implicit-euler, velocity-verlet: export with --integrator)",
                integrator.name()
            ),
        };
        println!(
            "  {name}: model {} B + data {} B, stack ≤ {} B (estimate), {speed}",
            needs.model_bytes, needs.data_bytes, needs.stack_bytes,
        );
    }
    Ok(())
}

/// The scene's formulation, chosen while its Cartesian mirror (`mirror_model`) and that
/// mirror's fresh data are made on another thread: they do not depend on each other, and for
/// 10⁶ bodies each takes a few tenths of a second. The formulation's error comes first.
fn choose_beside_mirror(scene: &Scene) -> Result<(Choice, (RigidModel, RigidData))> {
    let (choice, mirror) = std::thread::scope(|scope| {
        let mirror = scope.spawn(|| {
            let model = mirror_model::<Growable>(scene)?;
            let data = model.new_data();
            Ok::<_, crate::scene::SceneError>((model, data))
        });
        (choose(scene), mirror.join())
    });
    let choice = choice?;
    let mirror = mirror.unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
    Ok((choice, mirror))
}

/// The spanning tree (for a tree), DOF, redundant rows, initial violation per joint and
/// assembly of the rigid part (kinematics on the mirror model, whose stand-ins hold the bodies
/// that run in joint coordinates only), on `mirror` and its fresh data
/// ([`choose_beside_mirror`]). Returns the tree's capacity type, for a tree.
///
/// Every model is built once, and one model's data is held at a time: a check of 10⁶ bodies
/// holds gigabytes.
fn check_rigid(
    scene: &Scene,
    choice: Choice,
    (mirror, mut data): (RigidModel, RigidData),
) -> Result<Option<String>> {
    let (dof, at_t0, tree) = match &choice {
        Choice::Tree(links) => {
            // The joints at t0 first: the tree's parts assemble the mirror's state in `data`.
            let at_t0 = joint_violations(&mirror, &data);
            let (capacities, parts) = tree_report(scene, links, (mirror, data))?;
            let dof = match is_open(&parts) {
                // The Cartesian rank (a factorization of Φ_q M⁻¹ Φ_qᵀ) would only confirm it.
                true => format!(
                    "DOF: Grübler {} | open tree: {} independent joint coordinates (exact from the joint types; the rank of Φ_q is not computed)",
                    parts.mirror.gruebler_dof(),
                    parts.model.velocity_count()
                ),
                false => rank_report(&parts.mirror, &mut parts.mirror.new_data(), scene)?,
            };
            (dof, at_t0, Some((capacities, parts)))
        }
        Choice::Cartesian(_) => {
            let dof = rank_report(&mirror, &mut data, scene)?;
            (dof, joint_violations(&mirror, &data), None)
        }
    };
    // A line per joint, through one buffer (stdout flushes every line otherwise).
    let mut out = BufWriter::new(std::io::stdout().lock());
    writeln!(out, "{dof}")?;
    for (joint, v) in scene.joints.iter().zip(at_t0) {
        let flag = match v > VIOLATION_WARNING {
            true => "  WARNING: inconsistent initial position",
            false => "",
        };
        writeln!(out, "  joint \"{}\": |Φ| at t0 = {v:.3e}{flag}", joint.name)?;
    }
    out.flush()?;
    drop(out);
    let (capacities, parts) = tree.unzip();
    // Compiling assembles the initial configuration as `run` does, errors named by the scene.
    let mut sim = compile_chosen(scene, choice, parts)?;
    if let Some((model, data)) = sim.rigid_mut() {
        let after = violation(model, data).position;
        println!("assembly: max |Φ| {after:.3e}");
    }
    // Freed alongside the report's last lines (and the program's end).
    crate::release::drop_large(sim, scene.bodies.len() + scene.joints.len());
    Ok(capacities)
}

/// The DOF line from the rank of Φ_q at `data`'s state, and a line per redundant row.
fn rank_report(model: &RigidModel, data: &mut RigidData, scene: &Scene) -> Result<String> {
    let dof = dof_report(model, data)?;
    let mut report = format!(
        "DOF: Grübler {} | rank of Φ_q {} → {} independent",
        dof.gruebler, dof.rank, dof.independent
    );
    for (joint, row) in &dof.redundant {
        report += &format!(
            "\n  redundant: joint \"{}\" row {row} (zero multiplier: its reaction is carried by the other joints)",
            scene.joints[*joint].name
        );
    }
    Ok(report)
}

/// Sizes and the explicit stability limit (power iteration on M⁻¹K) of flexible body `index`
/// against the scene's step; fails when the step is above the limit of the chosen explicit
/// integrator.
fn check_flexible(scene: &Scene, index: usize) -> Result<()> {
    let spec = &scene.flexibles[index];
    let (flex, _) = flexible_model::<Growable>(scene, std::slice::from_ref(spec))?;
    println!(
        "flexible body \"{}\": {} nodes, {} tets, {} DOF, mass {:.6} kg (mesh {})",
        spec.name,
        flex.node_count(),
        flex.element_count(),
        flex.dof_count(),
        flex.mass(),
        spec.mesh_path.display()
    );
    for w in spec.mesh.report().warnings() {
        println!("  mesh warning: {w}");
    }
    let mut data = flex.new_data();
    let limit = max_frequency(&flex, &mut data, 500)?;
    let sim = &scene.simulation;
    let name = sim.integrator.name();
    println!(
        "  ω_max {:.4e} rad/s: stable step RK4 {:.3e} s, symplectic {:.3e} s",
        limit.omega_max,
        limit.rk4(),
        limit.symplectic()
    );
    let bound = match sim.integrator {
        IntegratorSpec::Explicit(Method::Rk4) => Some(limit.rk4()),
        IntegratorSpec::Explicit(Method::SemiImplicitEuler | Method::VelocityVerlet) => {
            Some(limit.symplectic())
        }
        IntegratorSpec::Explicit(_) => {
            println!("  adaptive integrator {name}: the step is chosen by error control");
            None
        }
        IntegratorSpec::Dae(_) | IntegratorSpec::Hht(_) => {
            println!(
                "  implicit integrator {name} (unconditionally stable): step {} s = {:.0}× the RK4 limit",
                sim.step,
                sim.step / limit.rk4()
            );
            None
        }
    };
    if let Some(bound) = bound {
        if sim.step > bound {
            bail!(
                "flexible body \"{}\": step {} s is above the {name} stability limit {bound:.3e} s",
                spec.name,
                sim.step,
            );
        }
        println!(
            "  step {} s = {:.2} of the {name} limit",
            sim.step,
            sim.step / bound
        );
    }
    Ok(())
}

/// Runs the scene to its end time in memory and reports the largest |Φ| of every joint over the
/// output times: the prescribed-motion check (a drive's |Φ| is its tracking error).
fn prescribed_motion(scene: &Scene) -> Result<()> {
    let mut sim = compile(scene)?;
    let joints = sim.labels.names.joints.clone();
    if joints.is_empty() {
        bail!("--motion reports the drift of joints; the scene has none");
    }
    let summary = drive(&mut sim, Vec::new(), false)?;
    println!(
        "prescribed motion over {} s ({summary}): largest |Φ| per joint",
        scene.simulation.end_time
    );
    for (name, w) in joints.iter().zip(&summary.joint_drift) {
        let flag = if *w > DRIFT_TOLERANCE {
            "  WARNING: drift"
        } else {
            ""
        };
        println!("  joint \"{name}\": {w:.3e}{flag}");
    }
    Ok(())
}

/// Settles the rigid scene to static equilibrium and reports the joint reactions.
fn settle_report(scene: &Scene) -> Result<()> {
    let mut sim = compile(scene)?;
    let Some(mut method) = HostMethod::new(&scene.simulation.integrator) else {
        bail!("--settle runs rigid scenes with their integrator; hht and newmark integrate flexible bodies");
    };
    let driving = |j: &&Named<Joint<f64>>| matches!(j.value.kind, JointKind::Driving { .. });
    if let Some(drive) = scene.joints.iter().find(driving) {
        bail!(
            "--settle looks for a state at rest; drive \"{}\" prescribes motion in time",
            drive.name
        );
    }
    let names = sim.labels.names.joints.clone();
    let Some((model, data)) = sim.rigid_mut() else {
        bail!("--settle settles rigid scenes; this scene's rigid bodies are coupled to a flexible body or absent");
    };
    let gravity = model.gravity().norm().max(1.0);
    let tolerance = SETTLE_TOLERANCE * gravity;
    let rest =
        settle(model, data, &mut method, scene.simulation.step, tolerance, 120.0).context("settling")?;
    println!(
        "settled in {:.2} s ({} velocity resets): RMS acceleration from rest {:.2e} m/s² (≤ {tolerance:.1e}); joint reactions on body j:",
        rest.time, rest.resets, rest.acceleration
    );
    for (name, r) in names.iter().zip(joint_reactions(model, data)?) {
        println!(
            "  {name}: force [{:.6}, {:.6}, {:.6}] N, torque [{:.6}, {:.6}, {:.6}] N·m",
            r.force.x, r.force.y, r.force.z, r.torque.x, r.torque.y, r.torque.z
        );
    }
    // The reactions' dynamics evaluation factorized the constraint matrix at the rest state.
    if let Some(note) = redundant_note(&names, &redundant_rows(model, data)) {
        println!("  {note}");
    }
    Ok(())
}

/// Warnings about the size of a run of the scene (many steps, much output).
fn size_warnings(scene: &Scene) -> Vec<String> {
    let s = &scene.simulation;
    let timing = crate::simulation::Timing {
        step: s.step,
        end_time: s.end_time,
        output_interval: s.output_interval,
    };
    let sensors: usize = scene.sensors.iter().map(|s| s.columns().len()).sum();
    let nodes = scene.flexibles.iter().map(|f| f.mesh.nodes().len()).sum();
    let tets = scene.flexibles.iter().map(|f| f.mesh.tets().len()).sum();
    let per_output = output_bytes_per_time(scene.bodies.len(), scene.joints.len(), sensors, nodes, tets);
    let (steps, every) = (timing.steps(), timing.output_every());
    run_size_warnings(steps, steps / every + 1, per_output)
}
