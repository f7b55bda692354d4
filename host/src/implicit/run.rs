//! `ferrodyn run` for a scene whose `integrator` is "hht" or "newmark": its flexible bodies
//! (with their contacts) integrated as one body by [`HhtFlex`], with the outputs of the
//! explicit flexible run (a VTU file per output time, the PVD collection, energy.csv and
//! energy.png, flex_contacts.csv with contact).

use super::{FlexBody, HhtFlex, HhtOptions};
use crate::contact::output::FlexContactCsv;
use crate::flex_run::series_name;
use crate::output::{energy_plot, progress_bar, OutputDir};
use crate::scene::{FlexibleSpec, Scene};
use crate::vtu::{write_pvd, write_vtu, Field, VtuMesh};
use anyhow::{bail, Context, Result};
use ferrodyn_kernel::flex::FlexMeshBuilder;
use ferrodyn_kernel::math::Vec3;
use std::ops::Range;
use std::path::Path;

/// The HHT integrator of all flexible bodies of a scene as one host body (nodes numbered in
/// file order, as in the kernel model of [`Scene::build_flexibles`]), each at its initial
/// velocity, with their contacts (ground planes, node-to-surface or surface-to-surface between
/// them); and the node range of each body.
pub fn hht_from_scene(scene: &Scene, options: HhtOptions) -> Result<(HhtFlex, Vec<Range<usize>>)> {
    let path = scene.path().display();
    if !scene.bodies.is_empty() {
        bail!("{path}: the implicit integrators run flexible bodies without rigid bodies");
    }
    let Some(first) = scene.flexibles.first() else {
        bail!("{path}: no flexible body");
    };
    // Checks that the bodies share one material (the host body has one).
    let ranges = scene.flexible_node_ranges()?;
    let mut body = FlexBody::new(first.material, scene.simulation.gravity);
    for (spec, range) in scene.flexibles.iter().zip(&ranges) {
        add_flexible(scene, spec, range.start, &mut body)?;
    }
    body.finish().map_err(|e| build_error(scene, first, e))?;
    let reference: Vec<[f64; 3]> = body.reference().iter().map(|p| p.to_array()).collect();
    let contacts = scene.flex_contacts(&reference, body.connectivity(), &ranges)?;
    let mut hht = HhtFlex::new(body, options).map_err(|e| scene_error(scene, first.line, &first.name, e))?;
    if scene.flexibles.iter().any(|f| f.velocity != Vec3::ZERO) {
        let mut v = vec![0.0; 12 * ranges.last().map_or(0, |r| r.end)];
        for (spec, range) in scene.flexibles.iter().zip(&ranges) {
            for node in range.clone() {
                v[12 * node..12 * node + 3].copy_from_slice(&spec.velocity.to_array());
            }
        }
        hht.set_state(0.0, None, Some(&v))
            .map_err(|e| scene_error(scene, first.line, &first.name, e))?;
    }
    if let Some(contacts) = contacts {
        hht.set_contacts(contacts)
            .map_err(|e| scene_error(scene, first.line, &first.name, e))?;
    }
    Ok((hht, ranges))
}

/// Adds flexible body `spec` to `body` with its nodes numbered from `offset`.
fn add_flexible(scene: &Scene, spec: &FlexibleSpec, offset: usize, body: &mut FlexBody) -> Result<()> {
    let at = |e| build_error(scene, spec, e);
    for p in spec.mesh.nodes() {
        body.add_node(Vec3::from_array(*p)).map_err(at)?;
    }
    for t in spec.mesh.tets() {
        body.add_element(t.nodes.map(|n| n + offset)).map_err(at)?;
    }
    for &(node, fixity) in &spec.fixities {
        body.fix(node + offset, fixity).map_err(at)?;
    }
    for &(node, force) in &spec.loads {
        body.add_nodal_force(node + offset, force).map_err(at)?;
    }
    Ok(())
}

/// A build error named by the scene file, line and flexible body.
fn build_error(scene: &Scene, spec: &FlexibleSpec, e: ferrodyn_kernel::BuildError) -> anyhow::Error {
    anyhow::anyhow!(
        "{}:{}: flexible \"{}\": {e}",
        scene.path().display(),
        spec.line,
        spec.name
    )
}

/// Runs the scene's flexible body with its implicit integrator, writing into `out`.
pub fn simulate_implicit(scene: &Scene, options: HhtOptions, out: &Path, force: bool) -> Result<()> {
    let (mut hht, ranges) = hht_from_scene(scene, options)?;
    let body = hht.body();
    let sim = &scene.simulation;
    let spec = &scene.flexibles[0];
    let names: Vec<&str> = scene.flexibles.iter().map(|f| f.name.as_str()).collect();
    let name = series_name(scene);
    let steps = (sim.end_time / sim.step).round().max(0.0) as u64;
    let every = ((sim.output_interval / sim.step).round() as u64).max(1);
    let kind = if options.alpha != 0.0 {
        format!("HHT-α (α = {})", options.alpha)
    } else {
        format!("Newmark (β = {}, γ = {})", options.beta, options.gamma)
    };
    println!(
        "ferrodyn: {} — flexible {} \"{}\" ({} nodes, {} tets, {} DOF), {kind}, dt = {} s, t = 0 … {} s",
        scene.path().display(),
        if names.len() == 1 { "body" } else { "bodies" },
        names.join("\", \""),
        body.node_count(),
        body.element_count(),
        body.dof_count(),
        sim.step,
        sim.end_time
    );
    let tets: Vec<[usize; 4]> = body.connectivity().to_vec();
    let reference: Vec<[f64; 3]> = body.reference().iter().map(|p| p.to_array()).collect();
    let (nnz, factor) = hht.sparsity();
    println!("  sparse: {nnz} stored matrix entries (upper), {factor} in the LDLᵀ factor");
    let dir = OutputDir::create(out, force)?;
    let mut contact_csv = match hht.contacts().is_empty() {
        true => None,
        false => {
            let mut body_of = vec![0; reference.len()];
            for (b, range) in ranges.iter().enumerate() {
                body_of[range.clone()].fill(b);
            }
            Some(FlexContactCsv::create(&dir, body_of)?)
        }
    };
    let mut energies = dir.file("energy.csv")?;
    energies.header(&["time", "kinetic", "strain", "potential", "total"])?;
    let mut history: [Vec<(f64, f64)>; 3] = Default::default();
    let mut frames: Vec<(f64, String)> = Vec::new();
    let progress = progress_bar(steps);
    let (mut iterations, mut factorizations, mut halvings) = (0u64, 0u64, 0u32);
    for k in 0..=steps {
        if k % every == 0 || k == steps {
            let e = hht
                .energies()
                .map_err(|e| scene_error(scene, spec.line, &spec.name, e))?;
            let t = hht.time();
            energies.row(&[t, e.kinetic, e.strain, e.gravity, e.total()])?;
            if let Some(csv) = contact_csv.as_mut() {
                csv.write(t, hht.contacts())?;
            }
            for (h, v) in history.iter_mut().zip([e.kinetic, e.strain, e.total()]) {
                h.push((t, v));
            }
            let n = reference.len();
            let points: Vec<[f64; 3]> = (0..n).map(|i| hht.position(i)).collect();
            let displacement: Vec<[f64; 3]> = points
                .iter()
                .zip(&reference)
                .map(|(p, r)| [p[0] - r[0], p[1] - r[1], p[2] - r[2]])
                .collect();
            let velocity: Vec<[f64; 3]> = (0..n).map(|i| hht.velocity(i)).collect();
            let file = format!("{name}_{:05}.vtu", frames.len());
            let path = dir.claim(&file)?;
            let fields = [
                Field::vector("displacement", &displacement),
                Field::vector("velocity", &velocity),
            ];
            write_vtu(
                &path,
                &VtuMesh {
                    points: &points,
                    tets: &tets,
                },
                &fields,
                &[],
            )?;
            frames.push((t, file));
            progress.set_position(k);
            progress.set_message(format!("{t:.6}"));
        }
        if k < steps {
            let report = hht
                .step(sim.step)
                .map_err(|e| scene_error(scene, spec.line, &spec.name, e))
                .with_context(|| format!("step {} at t = {} s", k + 1, hht.time()))?;
            iterations += u64::from(report.newton_iterations);
            factorizations += u64::from(report.factorizations);
            halvings = halvings.max(report.halvings);
        }
    }
    progress.finish_and_clear();
    println!(
        "  {steps} steps: {iterations} Newton iterations, {factorizations} factorizations, deepest step halving {halvings}"
    );
    let pvd = dir.claim(&format!("{name}.pvd"))?;
    write_pvd(&pvd, &frames)?;
    let plot = energy_plot(&dir, ["kinetic", "strain", "total"], &history)?;
    let contacts = contact_csv.map(|c| c.finish()).transpose()?;
    for f in [pvd, energies.finish()?, plot].into_iter().chain(contacts) {
        println!("wrote {}", f.display());
    }
    Ok(())
}

/// An implicit-solver error named by the scene file, line and flexible body.
fn scene_error(scene: &Scene, line: usize, name: &str, e: super::ImplicitError) -> anyhow::Error {
    anyhow::anyhow!("{}:{line}: flexible \"{name}\": {e}", scene.path().display())
}
