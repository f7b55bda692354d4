//! One stepper over the kinds of model a scene compiles into (rigid with or without contact, a
//! lone flexible body, explicit or implicit, rigid bodies coupled with a flexible body):
//! advances by the scene's step and exposes the current state for drawing. The viewer and the
//! `render` command use it; it calls the same step functions as `ferrodyn run`.
//!
//! Flexible models are large fixed-size values: build and use a stepper of a scene with a
//! flexible body on a thread with a large stack ([`on_large_stack`]).

use crate::contact::ContactWorld;
use crate::dae::HostMethod;
use crate::flex_run::{FlexScene, HostCoupled, HostFlexible};
use crate::implicit::{hht_from_scene, HhtFlex};
use crate::model::{HostData, HostModel};
use crate::scene::Scene;
use crate::scenes::CoupledRigid;
use anyhow::{anyhow, bail, Context, Result};
use ferrodyn_kernel::analysis;
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::coupled::{step_coupled, Attachment, CoupledData};
use ferrodyn_kernel::flex::flex_energy;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::{assemble, step, step_with, JointKind, TimeFunction};

pub use crate::flex_run::HostFlexData;

/// Runs `f` on a thread with a 1 GiB stack (the kernel's flexible models are fixed-size values
/// far larger than a default stack) and returns its result.
pub fn on_large_stack<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .context("starting the simulation thread")?
        .join()
        .map_err(|_| anyhow!("the simulation thread panicked"))?
}

/// The compiled models of a scene with their state.
enum Models {
    Rigid {
        model: Box<HostModel>,
        data: Box<HostData>,
        contact: Option<Box<ContactWorld>>,
    },
    /// Flexible bodies without rigid ones (in contact or not).
    Flexible(Box<FlexScene>),
    Coupled {
        rigid: Box<CoupledRigid>,
        flex: Box<HostFlexible>,
        attachments: Vec<Attachment<f64>>,
        data: Box<HostCoupled>,
    },
    Implicit {
        hht: Box<HhtFlex>,
    },
}

/// A flexible body as drawn: its mesh, material and current nodal coordinates.
#[derive(Clone, Copy)]
pub enum FlexView<'a> {
    /// The kernel's explicit model and state.
    Kernel(&'a HostFlexible, &'a HostFlexData),
    /// The host's implicit integrator with its body.
    Implicit(&'a HhtFlex),
}

impl FlexView<'_> {
    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        match self {
            Self::Kernel(flex, _) => flex.node_count(),
            Self::Implicit(hht) => hht.body().node_count(),
        }
    }
    /// Tets as node indices.
    pub fn connectivity(&self) -> &[[usize; 4]] {
        match self {
            Self::Kernel(flex, _) => flex.connectivity(),
            Self::Implicit(hht) => hht.body().connectivity(),
        }
    }
    /// The material.
    pub fn material(&self) -> &Material<f64> {
        match self {
            Self::Kernel(flex, _) => flex.material(),
            Self::Implicit(hht) => hht.body().material(),
        }
    }
    /// Current position of a node.
    pub fn position(&self, node: usize) -> Vec3<f64> {
        match self {
            Self::Kernel(_, data) => data.position(node),
            Self::Implicit(hht) => Vec3::from_array(hht.position(node)),
        }
    }
    /// Reference (undeformed) position of a node; zero for an unknown node.
    pub fn reference(&self, node: usize) -> Vec3<f64> {
        match self {
            Self::Kernel(flex, _) => flex.reference(node).unwrap_or_default(),
            Self::Implicit(hht) => hht.body().reference().get(node).copied().unwrap_or_default(),
        }
    }
    /// The node's 12 coordinates (r, ∂r/∂X, ∂r/∂Y, ∂r/∂Z); empty for an unknown node.
    pub fn coordinates(&self, node: usize) -> &[f64] {
        match self {
            Self::Kernel(_, data) => data.coordinates(node),
            Self::Implicit(hht) => hht.coordinates().get(12 * node..12 * node + 12).unwrap_or(&[]),
        }
    }
}

/// A scene's simulation advanced step by step.
pub struct Stepper {
    /// The scene as first loaded (for reset).
    initial: Scene,
    /// The scene as currently modified (gravity, drive rate).
    scene: Scene,
    models: Models,
    method: HostMethod,
}

impl Stepper {
    /// Compiles `scene` and sets up its initial state (rigid joints assembled).
    pub fn new(scene: Scene) -> Result<Self> {
        if scene.flexibles.len() > 1 && !scene.bodies.is_empty() {
            bail!(
                "{}: scenes with rigid bodies can be viewed with one flexible body (this one has {})",
                scene.path().display(),
                scene.flexibles.len()
            );
        }
        let models = build(&scene)?;
        Ok(Self {
            initial: scene.clone(),
            method: scene.integrator(),
            scene,
            models,
        })
    }

    /// The scene as currently simulated.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The step size (s).
    pub fn dt(&self) -> f64 {
        self.scene.simulation.step
    }

    /// Simulation time (s).
    pub fn time(&self) -> f64 {
        match &self.models {
            Models::Rigid { data, .. } => data.time(),
            Models::Flexible(system) => system.data.time(),
            Models::Coupled { data, .. } => data.time(),
            Models::Implicit { hht } => hht.time(),
        }
    }

    /// Advances by one step of the scene's size.
    pub fn step(&mut self) -> Result<()> {
        let dt = self.scene.simulation.step;
        let t = self.time();
        let method = &mut self.method;
        let result = match &mut self.models {
            Models::Rigid {
                model,
                data,
                contact: Some(world),
            } => {
                let stepped = step_with(&**model, data, method, dt, &mut **world).map(|_| ());
                // Contacts persist between steps (friction, dissipation): commit the new state.
                world.commit(data);
                stepped
            }
            Models::Rigid { model, data, .. } => step(&**model, data, method, dt).map(|_| ()),
            Models::Implicit { hht } => {
                return hht
                    .step(dt)
                    .map(|_| ())
                    .map_err(|e| anyhow!("step at t = {t} s failed: {e}"))
            }
            Models::Flexible(system) => system.step(method, dt),
            Models::Coupled {
                rigid,
                flex,
                attachments,
                data,
            } => step_coupled(&**rigid, &**flex, attachments, data, method, dt).map(|_| ()),
        };
        result.with_context(|| format!("step at t = {t} s failed"))
    }

    /// Advances until the time reaches `t` (within half a step).
    pub fn advance_to(&mut self, t: f64) -> Result<()> {
        while self.time() + 0.5 * self.dt() < t {
            self.step()?;
        }
        Ok(())
    }

    /// Total mechanical energy (kinetic + strain + potential, J); `None` when a flexible body is
    /// in a state the material cannot evaluate (inverted element).
    pub fn energy(&self) -> Option<f64> {
        match &self.models {
            Models::Rigid { model, data, .. } => Some(analysis::energy(&**model, &**data).total()),
            Models::Implicit { hht } => hht.energies().ok().map(|e| e.total()),
            Models::Flexible(system) => flex_energy(&*system.model, &*system.data).ok().map(|e| e.total()),
            Models::Coupled {
                rigid, flex, data, ..
            } => {
                let f = flex_energy(&**flex, &data.flex).ok()?;
                Some(f.total() + analysis::energy(&**rigid, &data.rigid).total())
            }
        }
    }

    /// Number of rigid bodies.
    pub fn body_count(&self) -> usize {
        self.scene.bodies.len()
    }

    /// Pose of rigid body `body`: position of its frame origin and orientation (body → global).
    pub fn body_pose(&self, body: usize) -> (Vec3<f64>, Quat<f64>) {
        match &self.models {
            Models::Rigid { data, .. } => (data.position(body), data.orientation(body)),
            Models::Coupled { data, .. } => (data.rigid.position(body), data.rigid.orientation(body)),
            Models::Flexible { .. } | Models::Implicit { .. } => (Vec3::ZERO, Quat::IDENTITY),
        }
    }

    /// The flexible body with its state, when the scene has one.
    pub fn flexible(&self) -> Option<FlexView<'_>> {
        match &self.models {
            Models::Rigid { .. } => None,
            Models::Flexible(system) => Some(FlexView::Kernel(&system.model, &system.data)),
            Models::Coupled { flex, data, .. } => Some(FlexView::Kernel(flex, &data.flex)),
            Models::Implicit { hht } => Some(FlexView::Implicit(hht)),
        }
    }

    /// Back to the initial state of the scene as loaded.
    pub fn reset(&mut self) -> Result<()> {
        self.scene = self.initial.clone();
        self.method = self.scene.integrator();
        self.models = build(&self.scene)?;
        Ok(())
    }

    /// Whether gravity is on.
    pub fn gravity_on(&self) -> bool {
        self.scene.simulation.gravity != Vec3::ZERO
    }

    /// Switches gravity off, or back to the scene's value; the state carries on.
    pub fn toggle_gravity(&mut self) -> Result<()> {
        self.scene.simulation.gravity = if self.gravity_on() {
            Vec3::ZERO
        } else {
            self.initial.simulation.gravity
        };
        self.rebuild()
    }

    /// Rate of the first ramp drive (rad/s or m/s), when the scene has one.
    pub fn drive_rate(&self) -> Option<f64> {
        self.ramp_drive().map(|(_, slope)| slope)
    }

    /// Sets the rate of the first ramp drive from now on, continuing from its current value
    /// (the prescribed coordinate does not jump); no-op without a ramp drive.
    pub fn set_drive_rate(&mut self, rate: f64) -> Result<()> {
        let Some((index, _)) = self.ramp_drive() else {
            return Ok(());
        };
        let t = self.time();
        if let JointKind::Driving { function, .. } = &mut self.scene.joints[index].value.kind {
            let value = function.eval(t).value;
            *function = TimeFunction::Ramp {
                start: t,
                initial: value,
                slope: rate,
            };
        }
        self.rebuild()
    }

    fn ramp_drive(&self) -> Option<(usize, f64)> {
        self.scene
            .joints
            .iter()
            .enumerate()
            .find_map(|(i, j)| match j.value.kind {
                JointKind::Driving {
                    function: TimeFunction::Ramp { slope, .. },
                    ..
                } => Some((i, slope)),
                _ => None,
            })
    }

    /// Recompiles the models from the modified scene, keeping the state (same bodies, nodes
    /// and constraint rows, so the state layout is unchanged).
    fn rebuild(&mut self) -> Result<()> {
        let mut fresh = build(&self.scene)?;
        match (&mut fresh, &mut self.models) {
            (
                Models::Rigid {
                    data: new,
                    contact: new_contact,
                    ..
                },
                Models::Rigid {
                    data: old,
                    contact: old_contact,
                    ..
                },
            ) => {
                std::mem::swap(new, old);
                std::mem::swap(new_contact, old_contact);
            }
            (Models::Implicit { hht: new }, Models::Implicit { hht: old }) => {
                let (q, v) = (old.coordinates().to_vec(), old.rates().to_vec());
                new.set_state(old.time(), Some(&q), Some(&v))
                    .map_err(|e| anyhow!("carrying the state over: {e}"))?;
            }
            (Models::Flexible(new), Models::Flexible(old)) => {
                // Contacts carry their impact speeds over with the state.
                std::mem::swap(&mut new.data, &mut old.data);
                std::mem::swap(&mut new.contacts, &mut old.contacts);
            }
            (Models::Coupled { data: new, .. }, Models::Coupled { data: old, .. }) => {
                std::mem::swap(new, old)
            }
            _ => bail!("the scene changed kind while running"),
        }
        self.models = fresh;
        Ok(())
    }
}

/// Compiles the scene into its models with their initial state.
fn build(scene: &Scene) -> Result<Models> {
    if scene.flexibles.is_empty() {
        build_rigid(scene)
    } else {
        build_flexible(scene)
    }
}

// Separate frames: the flexible path's temporaries are tens of megabytes, which a rigid scene
// on an ordinary stack must not pay for.
#[inline(never)]
fn build_rigid(scene: &Scene) -> Result<Models> {
    let (model, _) = scene.build_rigid()?;
    let model: Box<HostModel> = Box::new(model);
    let mut data = Box::new(HostData::new(&model));
    assemble(&*model, &mut data).context("assembling the initial configuration")?;
    let contact = match &scene.contact {
        Some(spec) => {
            let mut world = spec.world(model.bodies().len()).context("setting up contact")?;
            world.commit(&data);
            Some(Box::new(world))
        }
        None => None,
    };
    Ok(Models::Rigid { model, data, contact })
}

#[inline(never)]
fn build_flexible(scene: &Scene) -> Result<Models> {
    if let Some(options) = scene.simulation.implicit {
        let (hht, _) = hht_from_scene(scene, options)?;
        return Ok(Models::Implicit { hht: Box::new(hht) });
    }
    if scene.bodies.is_empty() {
        return Ok(Models::Flexible(Box::new(FlexScene::new(scene)?)));
    }
    let flex: Box<HostFlexible> = Box::new(scene.build_flexible(0)?);
    let (rigid, _) = scene.build_rigid()?;
    let rigid: Box<CoupledRigid> = Box::new(rigid);
    let attachments = scene.attachments(0, &*rigid, &*flex)?;
    let data = Box::new(CoupledData::new(&*rigid, &*flex, &attachments).map_err(|e| anyhow!("{e}"))?);
    Ok(Models::Coupled {
        rigid,
        flex,
        attachments,
        data,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn scene(text: &str) -> Scene {
        Scene::parse(Path::new("test.toml"), text).expect("test scene")
    }

    fn pendulum() -> Scene {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/pendulum.toml");
        Scene::load(&path).expect("scenes/pendulum.toml")
    }

    /// A crank turning about z on a revolute joint, driven by a ramp at 2 rad/s.
    const CRANK: &str = r#"
[simulation]
end_time = 1.0
step = 1e-3

[[body]]
id = 1
name = "crank"
mass = 1.0
inertia = { Ixx = 0.001, Iyy = 0.01, Izz = 0.01 }

[[joint]]
name = "pivot"
type = "revolute"
body_i = "ground"
body_j = "crank"

[[drive]]
name = "motor"
body_i = "ground"
body_j = "crank"
coordinate = "rotation"
function = { ramp = { start = 0.0, initial = 0.0, slope = 2.0 } }
"#;

    fn angle(s: &Stepper) -> f64 {
        let q = s.body_pose(0).1.to_array();
        2.0 * q[3].atan2(q[0])
    }

    #[test]
    fn steps_like_the_kernel_step_of_ferrodyn_run() {
        let scene = pendulum();
        let (model, _) = scene.build_rigid::<crate::model::Growable>().unwrap();
        let mut data = HostData::new(&model);
        assemble(&model, &mut data).unwrap();
        let mut method = scene.integrator();
        let mut stepper = Stepper::new(scene.clone()).unwrap();
        for _ in 0..100 {
            step(&model, &mut data, &mut method, scene.simulation.step).unwrap();
            stepper.step().unwrap();
        }
        let (p, _) = stepper.body_pose(0);
        assert_eq!(p, data.position(0), "bit for bit");
        assert!((stepper.time() - 0.1).abs() < 1e-12);
        let e = analysis::energy(&model, &data).total();
        assert_eq!(stepper.energy(), Some(e));
    }

    #[test]
    fn flexible_contact_scenes_step_every_body_with_contact_like_ferrodyn_run() {
        // scenes/tet_collision.toml: both blocks drawn as one flexible model, stepped by the
        // same FlexScene step as `ferrodyn run` (bit for bit), contacts committed.
        on_large_stack(|| {
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/tet_collision.toml");
            let scene = Scene::load(&path)?;
            let mut run = FlexScene::new(&scene)?;
            let mut method = scene.integrator();
            let mut stepper = Stepper::new(scene.clone())?;
            for _ in 0..250 {
                run.step(&mut method, scene.simulation.step)?;
                stepper.step()?;
            }
            let view = stepper.flexible().expect("flexible bodies");
            assert_eq!(view.node_count(), 20, "lower (12 nodes) and upper (8)");
            for node in 0..20 {
                assert_eq!(view.position(node), run.data.position(node), "node {node}");
            }
            let Models::Flexible(system) = &stepper.models else {
                panic!("a flexible scene")
            };
            let touching = system.contacts.as_ref().map_or(0, |c| c.ground[0].active().len());
            assert!(touching > 0, "the lower block rests on the ground at t = 0.025 s");
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn drive_rate_changes_continue_from_the_current_angle() {
        let mut s = Stepper::new(scene(CRANK)).unwrap();
        assert_eq!(s.drive_rate(), Some(2.0));
        s.advance_to(0.5).unwrap();
        assert!((angle(&s) - 1.0).abs() < 1e-6, "{}", angle(&s));
        s.set_drive_rate(4.0).unwrap();
        assert_eq!(s.drive_rate(), Some(4.0));
        s.advance_to(0.75).unwrap();
        assert!((angle(&s) - 2.0).abs() < 1e-6, "{}", angle(&s));
        s.reset().unwrap();
        assert_eq!((s.time(), s.drive_rate()), (0.0, Some(2.0)));
    }

    #[test]
    fn gravity_toggles_off_and_back_on() {
        let mut s = Stepper::new(pendulum()).unwrap();
        let start = s.body_pose(0).0;
        assert!(s.gravity_on());
        s.toggle_gravity().unwrap();
        assert!(!s.gravity_on());
        s.advance_to(0.1).unwrap();
        assert!(
            (s.body_pose(0).0 - start).norm() < 1e-12,
            "released at rest without gravity"
        );
        s.toggle_gravity().unwrap();
        s.advance_to(0.2).unwrap();
        assert!(s.body_pose(0).0.z < start.z - 1e-3, "falls again");
        assert_eq!(s.drive_rate(), None);
        s.set_drive_rate(1.0).unwrap();
    }
}
