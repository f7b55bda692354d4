//! Helpers shared by the host's integration tests (each test uses some of them).
#![allow(dead_code)]

pub mod tet_collision;

use ferrodyn_host::dae::HostMethod;
use ferrodyn_host::output::OutputDir;
use ferrodyn_host::record::recorders;
use ferrodyn_host::scene::{NameMaps, OutputSpec};
use ferrodyn_host::simulation::{drive, KernelSystem, Labels, Simulation, Summary, Timing};
use ferrodyn_host::storage::RigidModel;
use ferrodyn_host::watch::conservative;
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::rigid::assemble;
use ferrodyn_kernel::Dynamics;

/// Runs a rigid `model` built in code from its assembled initial state, as `ferrodyn run`
/// runs a scene: every output (trajectory, energy, reactions, plots) written into `out`,
/// bodies named `body0…` and joints `joint0…`, the energy watched when nothing does work on
/// the model (no driving joint, no applied point force or torque).
pub fn run_rigid(
    model: RigidModel,
    method: Method<f64>,
    step: f64,
    end_time: f64,
    output_interval: f64,
    out: &OutputDir,
) -> anyhow::Result<Summary> {
    let labels = Labels {
        names: NameMaps {
            bodies: (0..model.bodies().len()).map(|b| format!("body{b}")).collect(),
            joints: (0..model.joints().len()).map(|j| format!("joint{j}")).collect(),
            ..NameMaps::default()
        },
        conservative: conservative(model.joints(), model.forces()),
        description: format!("{} rigid bodies, {}", model.bodies().len(), method.name()),
        ..Labels::default()
    };
    let mut data = model.new_data();
    assemble(&model, &mut data)?;
    let system = KernelSystem::with_data(model, data, HostMethod::from(method), None)?;
    let timing = Timing {
        step,
        end_time,
        output_interval,
    };
    let mut sim = Simulation::new(Box::new(system), timing, labels);
    let everything = OutputSpec {
        states: true,
        energy: true,
        reactions: true,
        plots: true,
    };
    let recorders = recorders(&mut sim, out, &everything, "flexible")?;
    drive(&mut sim, recorders, false)
}

/// An empty directory `ferrodyn-PREFIX-NAME-PID` under the system's temporary directory (its
/// earlier contents removed).
pub fn scratch_dir(prefix: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrodyn-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The largest difference of body positions, orientations (as rotation matrices) and
/// velocities between two simulations of the same bodies.
pub fn body_difference(a: &Simulation, b: &Simulation) -> f64 {
    let ((_, da), (_, db)) = (a.rigid().unwrap(), b.rigid().unwrap());
    let n = a.labels.names.bodies.len();
    (0..n)
        .map(|k| {
            let rotation = (da.orientation(k).to_matrix().m.as_flattened().iter())
                .zip(db.orientation(k).to_matrix().m.as_flattened())
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            [
                (da.position(k) - db.position(k)).norm(),
                (da.velocity(k) - db.velocity(k)).norm(),
                (da.angular_velocity(k) - db.angular_velocity(k)).norm(),
                rotation,
            ]
            .into_iter()
            .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// `text` parsed as a scene file called inline.toml (a parse error panics with its message).
pub fn parse_inline(text: &str) -> ferrodyn_host::scene::Scene {
    ferrodyn_host::scene::Scene::parse(std::path::Path::new("inline.toml"), text)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// `scene` compiled in joint coordinates (asserting `auto` chose them) and in Cartesian
/// coordinates.
pub fn tree_and_cartesian(scene: &ferrodyn_host::scene::Scene) -> (Simulation, Simulation) {
    use ferrodyn_host::compile::{choose, compile, Choice};
    assert!(
        matches!(choose(scene).unwrap(), Choice::Tree(_)),
        "{}",
        choose(scene).unwrap().describe()
    );
    let mut cartesian = scene.clone();
    cartesian.simulation.formulation = ferrodyn_host::spec::Formulation::Cartesian;
    (compile(scene).unwrap(), compile(&cartesian).unwrap())
}
