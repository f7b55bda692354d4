//! `ferrodyn run` for a scene of one flexible body: explicit stepping with the scene's
//! integrator, energy CSV and plot, and a VTU file per output time with a PVD collection for
//! ParaView.

use crate::output::OutputDir;
use crate::plot::{line_plot, Series};
use crate::scene::Scene;
use crate::vtu::{write_pvd, write_vtu, Field, VtuMesh};
use anyhow::{Context, Result};
use ferrodyn_kernel::flex::{flex_energy, step_flex, FlexData, FlexModel};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;

/// Capacities of flexible bodies run by the CLI (the kernel's models are fixed size: a mesh
/// that needs more is refused naming the capacity).
pub type HostFlexible = FlexModel<f64, 400, 1000, 2_000_000>;

/// Runs the scene's flexible body on a thread with a large stack (fixed-size kernel values).
pub fn run_flexible(scene: Scene, out: &Path, force: bool) -> Result<()> {
    let out = out.to_path_buf();
    std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || simulate_flexible(&scene, &out, force))
        .context("starting the simulation thread")?
        .join()
        .map_err(|_| anyhow::anyhow!("the simulation thread panicked"))?
}

fn simulate_flexible(scene: &Scene, out: &Path, force: bool) -> Result<()> {
    let model: Box<HostFlexible> = Box::new(scene.build_flexible(0)?);
    let name = &scene.flexibles[0].name;
    let sim = &scene.simulation;
    let dir = OutputDir::create(out, force)?;
    let mut data = Box::new(FlexData::new(&*model));
    let reference: Vec<[f64; 3]> = (0..model.node_count())
        .map(|i| data.position(i).to_array())
        .collect();
    println!(
        "ferrodyn: {} — flexible body \"{name}\" ({} nodes, {} tets, {} DOF), {}, dt = {} s, t = 0 … {} s",
        scene.path().display(),
        model.node_count(),
        model.element_count(),
        model.dof_count(),
        sim.method.name(),
        sim.step,
        sim.end_time
    );
    let mut energies = dir.file("energy.csv")?;
    energies.header(&["time", "kinetic", "strain", "gravity", "total"])?;
    let steps = (sim.end_time / sim.step).round().max(0.0) as u64;
    let every = ((sim.output_interval / sim.step).round() as u64).max(1);
    let progress = ProgressBar::new(steps).with_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:40}] {pos}/{len} steps")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut method = scene.integrator();
    let mut history: [Vec<(f64, f64)>; 3] = Default::default();
    let mut frames = Vec::new();
    for k in 0..=steps {
        if k % every == 0 || k == steps {
            let e = flex_energy(&*model, &data)?;
            energies.row(&[data.time(), e.kinetic, e.strain, e.gravity, e.total()])?;
            for (h, v) in history.iter_mut().zip([e.kinetic, e.strain, e.total()]) {
                h.push((data.time(), v));
            }
            let points: Vec<[f64; 3]> = (0..model.node_count())
                .map(|i| data.position(i).to_array())
                .collect();
            let displacement: Vec<[f64; 3]> = points
                .iter()
                .zip(&reference)
                .map(|(p, r)| [p[0] - r[0], p[1] - r[1], p[2] - r[2]])
                .collect();
            let velocity: Vec<[f64; 3]> = (0..model.node_count())
                .map(|i| data.velocity(i).to_array())
                .collect();
            let file = format!("{name}_{:05}.vtu", frames.len());
            let path = dir.path().join(&file);
            if path.exists() && !dir.overwrites() {
                anyhow::bail!("{} already exists; pass --force to overwrite it", path.display());
            }
            let mesh = VtuMesh {
                points: &points,
                tets: model.connectivity(),
            };
            let fields = [
                Field::vector("displacement", &displacement),
                Field::vector("velocity", &velocity),
            ];
            write_vtu(&path, &mesh, &fields, &[])?;
            frames.push((data.time(), file));
            progress.set_position(k);
        }
        if k < steps {
            step_flex(&*model, &mut data, &mut method, sim.step)
                .with_context(|| format!("step {} at t = {} s failed", k + 1, data.time()))?;
        }
    }
    progress.finish_and_clear();
    let pvd = dir.path().join(format!("{name}.pvd"));
    write_pvd(&pvd, &frames)?;
    let series: Vec<Series> = ["kinetic", "strain", "total"]
        .iter()
        .zip(history.iter())
        .map(|(label, points)| Series { label, points })
        .collect();
    let plot = dir.path().join("energy.png");
    line_plot(&plot, "Energy", "time [s]", "energy [J]", &series).context("writing energy.png")?;
    println!(
        "wrote {} ({} VTU frames), {}, {}",
        pvd.display(),
        frames.len(),
        energies.finish()?.display(),
        plot.display()
    );
    Ok(())
}
