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

/// What [`contact_side_by_side`] saw.
pub struct ContactRun {
    /// Largest body difference before the first contact.
    pub before: f64,
    /// Largest body difference from the first contact on.
    pub after: f64,
    /// Largest rise of the tree's energy between instants without an active contact (within a
    /// contact the Hertz spring's energy, which the total leaves out, comes back as the bodies
    /// separate).
    pub rise: f64,
    /// Largest difference of the two energies.
    pub apart: f64,
    /// Whether a contact was active at some step.
    pub touched: bool,
}

/// Steps `tree` and `cartesian` (one scene in joint and in Cartesian coordinates) side by side
/// to `end`, asserting the same number of active contacts after every step.
pub fn contact_side_by_side(tree: &mut Simulation, cartesian: &mut Simulation, end: f64) -> ContactRun {
    let energy = |s: &Simulation| s.energy().unwrap().total();
    let active = |s: &Simulation| s.contacts().map_or(0, |c| c.active_count());
    let mut run = ContactRun {
        before: body_difference(tree, cartesian),
        after: 0.0,
        rise: 0.0,
        apart: 0.0,
        touched: false,
    };
    let mut free_lowest = energy(tree);
    while tree.time() < end - 1e-9 {
        tree.step().unwrap();
        cartesian.step().unwrap();
        assert_eq!(active(tree), active(cartesian), "at {} s", tree.time());
        run.touched |= active(tree) > 0;
        let difference = body_difference(tree, cartesian);
        if run.touched {
            run.after = run.after.max(difference);
        } else {
            run.before = run.before.max(difference);
        }
        if active(tree) == 0 {
            run.rise = run.rise.max(energy(tree) - free_lowest);
            free_lowest = free_lowest.min(energy(tree));
        }
        run.apart = run.apart.max((energy(tree) - energy(cartesian)).abs());
    }
    run
}

/// Contact shapes with the materials of sphere_drop.toml: `shape` on body "b" and a ground plane.
pub fn on_a_plane(body: &str, shape: &str) -> String {
    format!(
        r#"
[simulation]
end_time = 1.0
step = 1e-4
integrator = "rk4"
{body}
[[shape]]
name = "floor"
body = "ground"
type = "plane"
youngs_modulus = 1e7
poisson_ratio = 0.3

[[shape]]
name = "solid"
body = "b"
{shape}
youngs_modulus = 1e7
poisson_ratio = 0.3

[[contact_material]]
bodies = ["b", "ground"]
restitution = 0.7
friction = 0.4
friction_regularization = 1e-3
"#
    )
}

/// A chain of `links` rods (1 kg, 0.5 m, along +x) on hinges about y, each hinge with a
/// rotational spring of `stiffness` (rest angle 0) and `damping`, under gravity, released at
/// rest straight: it sags and swings about the sag on its springs.
pub fn spring_chain(
    links: usize,
    (stiffness, damping): (f64, f64),
    integrator: &str,
    step: f64,
    end: f64,
) -> String {
    let mut text =
        format!("[simulation]\nend_time = {end}\nstep = {step:e}\nintegrator = \"{integrator}\"\n");
    for k in 0..links {
        text += &format!(
            "\n[[body]]\nid = {k}\nname = \"link{k}\"\nmass = 1.0\ninertia = {{ Ixx = 1e-4, Iyy = 0.0209, Izz = 0.0209 }}\npos = [{}, 0.0, 0.0]\n",
            0.5 * k as f64 + 0.25
        );
    }
    for k in 0..links {
        let parent = if k == 0 {
            "ground".to_string()
        } else {
            format!("link{}", k - 1)
        };
        let origin = if k == 0 { 0.0 } else { 0.25 };
        text += &format!(
            "\n[[joint]]\nname = \"hinge{k}\"\ntype = \"revolute\"\nbody_i = \"{parent}\"\nbody_j = \"link{k}\"\nframe_i = {{ origin = [{origin}, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}\nframe_j = {{ origin = [-0.25, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}\n\n[[force]]\nname = \"spring{k}\"\ntype = \"rotational_spring_damper\"\njoint = \"hinge{k}\"\nstiffness = {stiffness:e}\ndamping = {damping:e}\nrest_angle = 0.0\n"
        );
    }
    text
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

/// xorshift64*: reproducible numbers in [−1, 1) (the seeded states of the comparisons with
/// peers).
pub struct Rng(pub u64);

impl Rng {
    /// The next number in [−1, 1).
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11;
        2.0 * (x as f64 / (1u64 << 53) as f64) - 1.0
    }
}
