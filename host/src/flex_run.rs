//! `ferrodyn run` for scenes with a flexible body: alone, or attached to rigid bodies (coupled).
//! Explicit stepping with the scene's integrator, an energy CSV and plot, and a VTU file of the
//! flexible body per output time with a PVD collection for ParaView.

use crate::output::{energy_plot, progress_bar, CsvWriter, OutputDir};
use crate::scene::Scene;
use crate::scenes::CoupledRigid;
use crate::vtu::{write_pvd, write_vtu, Field, VtuMesh};
use anyhow::{bail, Context, Result};
use ferrodyn_kernel::analysis;
use ferrodyn_kernel::coupled::{step_coupled, CoupledData};
use ferrodyn_kernel::flex::{flex_energy, max_frequency, step_flex, FlexData, FlexModel};
use std::path::{Path, PathBuf};

/// Capacities of flexible bodies run by the CLI (the kernel's models are fixed size: a mesh
/// that needs more is refused naming the capacity).
pub type HostFlexible = FlexModel<f64, 400, 1000, 2_000_000>;
/// Coupled state for [`CoupledRigid`] + [`HostFlexible`] (13 reals a body, 24 a node).
pub type HostCoupled = CoupledData<f64, 256, 2048, 131_072, 400, 2_000_000, { 13 * 256 + 24 * 400 }>;

/// Runs a scene with one flexible body (and possibly rigid bodies it is attached to) on a
/// thread with a large stack (kernel models are fixed-size values).
pub fn run_flexible(scene: Scene, out: &Path, force: bool) -> Result<()> {
    if scene.flexibles.len() != 1 {
        bail!(
            "{}: the CLI runs scenes with one flexible body (this one has {})",
            scene.path().display(),
            scene.flexibles.len()
        );
    }
    let out = out.to_path_buf();
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || simulate(&scene, &out, force))
        .context("starting the simulation thread")?
        .join()
        .map_err(|_| anyhow::anyhow!("the simulation thread panicked"))?
}

/// `ferrodyn check` for a scene with flexible bodies: mesh warnings, sizes, and the explicit
/// stability limit (power iteration on M⁻¹K) against the scene's step; fails when the step is
/// above the limit of the chosen integrator.
pub fn check_flexible(scene: Scene) -> Result<()> {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || check(&scene))
        .context("starting the check thread")?
        .join()
        .map_err(|_| anyhow::anyhow!("the check thread panicked"))?
}

fn check(scene: &Scene) -> Result<()> {
    let sim = &scene.simulation;
    for (index, spec) in scene.flexibles.iter().enumerate() {
        let flex: Box<HostFlexible> = Box::new(scene.build_flexible(index)?);
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
        let mut data = Box::new(FlexData::new(&*flex));
        let limit = max_frequency(&*flex, &mut data, 500)?;
        let implicit = sim.implicit.is_some() || sim.rigid_implicit.is_some();
        let bound = match if implicit {
            "implicit"
        } else {
            sim.integrator_name()
        } {
            "rk4" => Some(limit.rk4()),
            "semi-implicit-euler" | "velocity-verlet" => Some(limit.symplectic()),
            _ => None,
        };
        println!(
            "  ω_max {:.4e} rad/s: stable step RK4 {:.3e} s, symplectic {:.3e} s",
            limit.omega_max,
            limit.rk4(),
            limit.symplectic()
        );
        match bound {
            Some(b) if sim.step > b => bail!(
                "flexible body \"{}\": step {} s is above the {} stability limit {:.3e} s",
                spec.name,
                sim.step,
                sim.integrator_name(),
                b
            ),
            Some(b) => println!(
                "  step {} s = {:.2} of the {} limit",
                sim.step,
                sim.step / b,
                sim.integrator_name()
            ),
            None if implicit => println!(
                "  implicit integrator (unconditionally stable): step {} s = {:.0}× the RK4 limit",
                sim.step,
                sim.step / limit.rk4()
            ),
            None => println!(
                "  adaptive integrator {}: the step is chosen by error control",
                sim.integrator_name()
            ),
        }
    }
    Ok(())
}

/// Energies of one output time: kinetic, strain, potential (gravity and springs), total.
type EnergyRow = [f64; 4];

/// Writes the per-output-time results shared by both kinds of run.
struct Recorder {
    dir: OutputDir,
    name: String,
    reference: Vec<[f64; 3]>,
    energies: CsvWriter,
    history: [Vec<(f64, f64)>; 3],
    frames: Vec<(f64, String)>,
}

impl Recorder {
    fn new(dir: OutputDir, name: &str, reference: Vec<[f64; 3]>) -> Result<Self> {
        let mut energies = dir.file("energy.csv")?;
        energies.header(&["time", "kinetic", "strain", "potential", "total"])?;
        Ok(Self {
            dir,
            name: name.to_string(),
            reference,
            energies,
            history: Default::default(),
            frames: Vec::new(),
        })
    }

    fn record<const N: usize, const S: usize>(
        &mut self,
        time: f64,
        energy: EnergyRow,
        flex: &FlexData<f64, N, S>,
        tets: &[[usize; 4]],
    ) -> Result<()> {
        self.energies
            .row(&[time, energy[0], energy[1], energy[2], energy[3]])?;
        for (h, v) in self.history.iter_mut().zip([energy[0], energy[1], energy[3]]) {
            h.push((time, v));
        }
        let n = self.reference.len();
        let points: Vec<[f64; 3]> = (0..n).map(|i| flex.position(i).to_array()).collect();
        let displacement: Vec<[f64; 3]> = points
            .iter()
            .zip(&self.reference)
            .map(|(p, r)| [p[0] - r[0], p[1] - r[1], p[2] - r[2]])
            .collect();
        let velocity: Vec<[f64; 3]> = (0..n).map(|i| flex.velocity(i).to_array()).collect();
        let file = format!("{}_{:05}.vtu", self.name, self.frames.len());
        let path = self.dir.claim(&file)?;
        let fields = [
            Field::vector("displacement", &displacement),
            Field::vector("velocity", &velocity),
        ];
        write_vtu(
            &path,
            &VtuMesh {
                points: &points,
                tets,
            },
            &fields,
            &[],
        )?;
        self.frames.push((time, file));
        Ok(())
    }

    fn finish(self) -> Result<Vec<PathBuf>> {
        let pvd = self.dir.claim(&format!("{}.pvd", self.name))?;
        write_pvd(&pvd, &self.frames)?;
        let plot = energy_plot(&self.dir, ["kinetic", "strain", "total"], &self.history)?;
        Ok(vec![pvd, self.energies.finish()?, plot])
    }
}

fn simulate(scene: &Scene, out: &Path, force: bool) -> Result<()> {
    if let Some(options) = scene.simulation.implicit {
        return crate::implicit::simulate_implicit(scene, options, out, force);
    }
    let flex: Box<HostFlexible> = Box::new(scene.build_flexible(0)?);
    let sim = &scene.simulation;
    let name = &scene.flexibles[0].name;
    let steps = (sim.end_time / sim.step).round().max(0.0) as u64;
    let every = ((sim.output_interval / sim.step).round() as u64).max(1);
    println!(
        "ferrodyn: {} — flexible body \"{name}\" ({} nodes, {} tets, {} DOF), {} rigid bodies, {}, dt = {} s, t = 0 … {} s",
        scene.path().display(),
        flex.node_count(),
        flex.element_count(),
        flex.dof_count(),
        scene.bodies.len(),
        sim.integrator_name(),
        sim.step,
        sim.end_time
    );
    let reference = (0..flex.node_count())
        .map(|i| flex.reference(i).unwrap_or_default().to_array())
        .collect();
    let mut recorder = Recorder::new(OutputDir::create(out, force)?, name, reference)?;
    let progress = progress_bar(steps);
    let mut method = scene.integrator();
    let flex_row = |data: &FlexData<f64, 400, 2_000_000>| -> Result<EnergyRow> {
        let e = flex_energy(&*flex, data)?;
        Ok([e.kinetic, e.strain, e.gravity, e.total()])
    };
    if scene.bodies.is_empty() {
        let mut data = Box::new(FlexData::new(&*flex));
        for k in 0..=steps {
            if k % every == 0 || k == steps {
                recorder.record(data.time(), flex_row(&data)?, &data, flex.connectivity())?;
                progress.set_position(k);
                progress.set_message(format!("{:.6}", data.time()));
            }
            if k < steps {
                step_flex(&*flex, &mut data, &mut method, sim.step)
                    .with_context(|| format!("step {} at t = {} s", k + 1, data.time()))?;
            }
        }
    } else {
        let (rigid, _) = scene.build_rigid()?;
        let rigid: Box<CoupledRigid> = Box::new(rigid);
        let attachments = scene.attachments(0, &*rigid, &*flex)?;
        let mut data: Box<HostCoupled> =
            Box::new(CoupledData::new(&*rigid, &*flex, &attachments).map_err(|e| anyhow::anyhow!("{e}"))?);
        for k in 0..=steps {
            if k % every == 0 || k == steps {
                let [kinetic, strain, gravity, _] = flex_row(&data.flex)?;
                let r = analysis::energy(&*rigid, &data.rigid);
                let row = [
                    kinetic + r.kinetic,
                    strain,
                    gravity + r.potential,
                    kinetic + strain + gravity + r.total(),
                ];
                recorder.record(data.time(), row, &data.flex, flex.connectivity())?;
                progress.set_position(k);
                progress.set_message(format!("{:.6}", data.time()));
            }
            if k < steps {
                step_coupled(&*rigid, &*flex, &attachments, &mut data, &mut method, sim.step)
                    .with_context(|| format!("step {} at t = {} s", k + 1, data.time()))?;
            }
        }
    }
    progress.finish_and_clear();
    for f in recorder.finish()? {
        println!("wrote {}", f.display());
    }
    Ok(())
}
