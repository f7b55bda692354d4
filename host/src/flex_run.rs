//! `ferrodyn run` for scenes with flexible bodies: alone or several (in contact with the
//! ground and each other), or one attached to rigid bodies (coupled). Explicit stepping with
//! the scene's integrator, an energy CSV and plot, a VTU file of the flexible bodies per output
//! time with a PVD collection for ParaView, and flex_contacts.csv when they are in contact.

use crate::contact::flex_pair::FlexContacts;
use crate::contact::output::FlexContactCsv;
use crate::output::{energy_plot, progress_bar, CsvWriter, OutputDir};
use crate::scene::Scene;
use crate::scenes::CoupledRigid;
use crate::vtu::{write_pvd, write_vtu, Field, VtuMesh};
use anyhow::{bail, Context, Result};
use ferrodyn_kernel::analysis;
use ferrodyn_kernel::coupled::{step_coupled, CoupledData};
use ferrodyn_kernel::flex::{flex_energy, max_frequency, step_flex, step_flex_with, FlexData, FlexModel};
use ferrodyn_kernel::{Integrator, KernelError};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// Capacities of flexible bodies run by the CLI (the kernel's models are fixed size: a mesh
/// that needs more is refused naming the capacity).
pub type HostFlexible = FlexModel<f64, 400, 1000, 2_000_000>;
/// State of a [`HostFlexible`].
pub type HostFlexData = FlexData<f64, 400, 2_000_000>;
/// Coupled state for [`CoupledRigid`] + [`HostFlexible`] (13 reals a body, 24 a node).
pub type HostCoupled = CoupledData<f64, 256, 2048, 131_072, 400, 2_000_000, { 13 * 256 + 24 * 400 }>;

/// The flexible bodies of a scene without rigid bodies, merged into one kernel model, with
/// their state and contacts: what `ferrodyn run` and the viewer step.
pub struct FlexScene {
    /// The model (bodies in file order).
    pub model: Box<HostFlexible>,
    /// Its state.
    pub data: Box<HostFlexData>,
    /// Node range of each body.
    pub bodies: Vec<Range<usize>>,
    /// Contacts, when a body has `contact`.
    pub contacts: Option<FlexContacts>,
}

impl FlexScene {
    /// Compiles the flexible bodies of `scene` at their initial state (call on a large stack).
    pub fn new(scene: &Scene) -> Result<Self> {
        let (model, bodies) = scene.build_flexibles()?;
        let model: Box<HostFlexible> = Box::new(model);
        let data = Box::new(scene.initial_flex_state(&*model, &bodies));
        let reference: Vec<[f64; 3]> = (0..model.node_count())
            .map(|n| model.reference(n).unwrap_or_default().to_array())
            .collect();
        let mut contacts = scene.flex_contacts(&reference, model.connectivity(), &bodies)?;
        if let Some(c) = contacts.as_mut() {
            c.commit(data.state());
        }
        Ok(Self {
            model,
            data,
            bodies,
            contacts,
        })
    }

    /// One step of `dt`, with contact forces at every stage and a commit after the step.
    pub fn step(&mut self, method: &mut impl Integrator<f64>, dt: f64) -> Result<(), KernelError> {
        match self.contacts.as_mut() {
            Some(c) => {
                step_flex_with(&*self.model, &mut self.data, method, dt, c)?;
                c.commit(self.data.state());
            }
            None => {
                step_flex(&*self.model, &mut self.data, method, dt)?;
            }
        }
        Ok(())
    }

    /// The body of every node.
    pub fn body_of_node(&self) -> Vec<usize> {
        let mut out = vec![0; self.model.node_count()];
        for (b, nodes) in self.bodies.iter().enumerate() {
            for n in nodes.clone() {
                out[n] = b;
            }
        }
        out
    }
}

/// Runs a scene with flexible bodies (and possibly rigid bodies one is attached to) on a
/// thread with a large stack (kernel models are fixed-size values).
pub fn run_flexible(scene: Scene, out: &Path, force: bool) -> Result<()> {
    if scene.flexibles.len() != 1 && !scene.bodies.is_empty() {
        bail!(
            "{}: the CLI runs one flexible body with rigid bodies (this scene has {})",
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

/// Name of a scene's VTU series: its flexible body's, or the scene file's for several bodies
/// in one model.
pub fn series_name(scene: &Scene) -> String {
    match scene.flexibles.as_slice() {
        [one] => one.name.clone(),
        _ => scene
            .path()
            .file_stem()
            .map_or("flexible".into(), |s| s.to_string_lossy().into_owned()),
    }
}

fn simulate(scene: &Scene, out: &Path, force: bool) -> Result<()> {
    if let Some(options) = scene.simulation.implicit {
        return crate::implicit::simulate_implicit(scene, options, out, force);
    }
    let sim = &scene.simulation;
    let steps = (sim.end_time / sim.step).round().max(0.0) as u64;
    let every = ((sim.output_interval / sim.step).round() as u64).max(1);
    let mut method = scene.integrator();
    let progress = progress_bar(steps);
    let names: Vec<&str> = scene.flexibles.iter().map(|f| f.name.as_str()).collect();
    let series = series_name(scene);
    let flex_row = |flex: &HostFlexible, data: &HostFlexData| -> Result<EnergyRow> {
        let e = flex_energy(flex, data)?;
        Ok([e.kinetic, e.strain, e.gravity, e.total()])
    };
    let announce = |flex: &HostFlexible| {
        println!(
            "ferrodyn: {} — flexible {} \"{}\" ({} nodes, {} tets, {} DOF), {} rigid bodies, {}, dt = {} s, t = 0 … {} s",
            scene.path().display(),
            if names.len() == 1 { "body" } else { "bodies" },
            names.join("\", \""),
            flex.node_count(),
            flex.element_count(),
            flex.dof_count(),
            scene.bodies.len(),
            sim.integrator_name(),
            sim.step,
            sim.end_time
        )
    };
    let reference = |flex: &HostFlexible| {
        (0..flex.node_count())
            .map(|i| flex.reference(i).unwrap_or_default().to_array())
            .collect()
    };
    let dir = OutputDir::create(out, force)?;
    let mut files = Vec::new();
    if scene.bodies.is_empty() {
        let mut system = FlexScene::new(scene)?;
        announce(&system.model);
        let mut contact_csv = match system.contacts {
            Some(_) => Some(FlexContactCsv::create(&dir, system.body_of_node())?),
            None => None,
        };
        let mut recorder = Recorder::new(dir, &series, reference(&system.model))?;
        for k in 0..=steps {
            if k % every == 0 || k == steps {
                let (flex, data) = (&*system.model, &*system.data);
                recorder.record(data.time(), flex_row(flex, data)?, data, flex.connectivity())?;
                if let (Some(csv), Some(c)) = (contact_csv.as_mut(), system.contacts.as_ref()) {
                    csv.write(data.time(), c)?;
                }
                progress.set_position(k);
                progress.set_message(format!("{:.6}", data.time()));
            }
            if k < steps {
                let t = system.data.time();
                system
                    .step(&mut method, sim.step)
                    .with_context(|| format!("step {} at t = {t} s", k + 1))?;
            }
        }
        files.extend(contact_csv.map(FlexContactCsv::finish).transpose()?);
        files.extend(recorder.finish()?);
    } else {
        let flex: Box<HostFlexible> = Box::new(scene.build_flexible(0)?);
        announce(&flex);
        let mut recorder = Recorder::new(dir, &series, reference(&flex))?;
        let (rigid, _) = scene.build_rigid()?;
        let rigid: Box<CoupledRigid> = Box::new(rigid);
        let attachments = scene.attachments(0, &*rigid, &*flex)?;
        let mut data: Box<HostCoupled> =
            Box::new(CoupledData::new(&*rigid, &*flex, &attachments).map_err(|e| anyhow::anyhow!("{e}"))?);
        for k in 0..=steps {
            if k % every == 0 || k == steps {
                let [kinetic, strain, gravity, _] = flex_row(&flex, &data.flex)?;
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
        files.extend(recorder.finish()?);
    }
    progress.finish_and_clear();
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
