//! `ferrodyn run` for a scene whose `integrator` is "hht" or "newmark": one flexible body
//! integrated by [`HhtFlex`], with the outputs of the explicit flexible run (a VTU file per
//! output time, the PVD collection, energy.csv and energy.png).

use super::{FlexBody, HhtFlex, HhtOptions};
use crate::output::{energy_plot, progress_bar, OutputDir};
use crate::scene::Scene;
use crate::vtu::{write_pvd, write_vtu, Field, VtuMesh};
use anyhow::{bail, Context, Result};
use ferrodyn_kernel::flex::FlexMeshBuilder;
use ferrodyn_kernel::math::Vec3;
use std::path::Path;

/// Builds the host flexible body `index` of a scene (nodes, tets, supports, loads, gravity).
pub fn flex_body_from_scene(scene: &Scene, index: usize) -> Result<FlexBody> {
    let spec = scene
        .flexibles
        .get(index)
        .with_context(|| format!("{}: no flexible body {index}", scene.path().display()))?;
    let at = |e: ferrodyn_kernel::BuildError| -> anyhow::Error {
        anyhow::anyhow!(
            "{}:{}: flexible \"{}\": {e}",
            scene.path().display(),
            spec.line,
            spec.name
        )
    };
    let mut body = FlexBody::new(spec.material, scene.simulation.gravity);
    for p in spec.mesh.nodes() {
        body.add_node(Vec3::from_array(*p)).map_err(at)?;
    }
    for t in spec.mesh.tets() {
        body.add_element(t.nodes).map_err(at)?;
    }
    for &(node, fixity) in &spec.fixities {
        body.fix(node, fixity).map_err(at)?;
    }
    for &(node, force) in &spec.loads {
        body.add_nodal_force(node, force).map_err(at)?;
    }
    body.finish().map_err(at)?;
    Ok(body)
}

/// Runs the scene's flexible body with its implicit integrator, writing into `out`.
pub fn simulate_implicit(scene: &Scene, options: HhtOptions, out: &Path, force: bool) -> Result<()> {
    if scene.flexibles.len() != 1 || !scene.bodies.is_empty() {
        bail!(
            "{}: the implicit integrators run one flexible body without rigid bodies",
            scene.path().display()
        );
    }
    let body = flex_body_from_scene(scene, 0)?;
    let sim = &scene.simulation;
    let spec = &scene.flexibles[0];
    let name = &spec.name;
    let steps = (sim.end_time / sim.step).round().max(0.0) as u64;
    let every = ((sim.output_interval / sim.step).round() as u64).max(1);
    let kind = if options.alpha != 0.0 {
        format!("HHT-α (α = {})", options.alpha)
    } else {
        format!("Newmark (β = {}, γ = {})", options.beta, options.gamma)
    };
    println!(
        "ferrodyn: {} — flexible body \"{name}\" ({} nodes, {} tets, {} DOF), {kind}, dt = {} s, t = 0 … {} s",
        scene.path().display(),
        body.node_count(),
        body.element_count(),
        body.dof_count(),
        sim.step,
        sim.end_time
    );
    let tets: Vec<[usize; 4]> = body.connectivity().to_vec();
    let reference: Vec<[f64; 3]> = body.reference().iter().map(|p| p.to_array()).collect();
    let mut hht = HhtFlex::new(body, options).map_err(|e| scene_error(scene, spec.line, name, e))?;
    let (nnz, factor) = hht.sparsity();
    println!("  sparse: {nnz} stored matrix entries (upper), {factor} in the LDLᵀ factor");
    let dir = OutputDir::create(out, force)?;
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
                .map_err(|e| scene_error(scene, spec.line, name, e))?;
            let t = hht.time();
            energies.row(&[t, e.kinetic, e.strain, e.gravity, e.total()])?;
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
                .map_err(|e| scene_error(scene, spec.line, name, e))
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
    for f in [pvd, energies.finish()?, plot] {
        println!("wrote {}", f.display());
    }
    Ok(())
}

/// An implicit-solver error named by the scene file, line and flexible body.
fn scene_error(scene: &Scene, line: usize, name: &str, e: super::ImplicitError) -> anyhow::Error {
    anyhow::anyhow!("{}:{line}: flexible \"{name}\": {e}", scene.path().display())
}
