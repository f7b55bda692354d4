//! The validated scene: plain data, kernel item values with names resolved to indices, ready
//! to be compiled ([`crate::compile`]) into any target.

use std::path::{Path, PathBuf};

use super::error::{ItemName, Source};
use crate::gmsh::Mesh;
use crate::sensor::Sensor;
use crate::spec::{ContactMaterial, Formulation, IntegratorSpec, Proximity, Shape};
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::flex::Fixity;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::{Body, Force, Joint, JointKind};
use ferrodyn_kernel::tree::Servo;
use ferrodyn_kernel::{JointLimit, TimeFunction};

/// A validated item with its name and the line it was declared on.
#[derive(Debug, Clone)]
pub struct Named<T> {
    /// The item's name in the file.
    pub name: String,
    /// The table it came from (body, joint, drive, force).
    pub kind: &'static str,
    /// Line of its table header.
    pub line: usize,
    /// The kernel value.
    pub value: T,
}

impl<T> Named<T> {
    /// The name for error messages.
    pub fn item(&self) -> ItemName {
        ItemName::new(self.kind, &self.name)
    }
}

/// A coupling (`[[coupling]]`): the coordinate of joint `joint` (the scene's angle of frame j
/// about z_i, or slide along z_i) = `multiplier` × that of joint `follows` + `offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CouplingSpec {
    /// The joint held (index).
    pub joint: usize,
    /// The joint it follows (index).
    pub follows: usize,
    /// m.
    pub multiplier: f64,
    /// c (rad or m).
    pub offset: f64,
}

/// A fixed tendon (`[[tendon]]`): length L = Σ cᵢ θᵢ over the scene coordinates θᵢ of
/// revolute and prismatic joints (as `limits` measures them), a spring slack in the band
/// `rest` = [l₀, l₁], a damper on L̇ and end stops on L.
#[derive(Debug, Clone, PartialEq)]
pub struct TendonSpec {
    /// The joints (index) and their coefficients cᵢ.
    pub terms: Vec<(usize, f64)>,
    /// Spring stiffness (N/m of tendon length, ≥ 0).
    pub stiffness: f64,
    /// The band of lengths the spring is slack in (l₀ = l₁: a rest length).
    pub rest: (f64, f64),
    /// Damping (N·s/m, ≥ 0).
    pub damping: f64,
    /// The range of L with its end stops.
    pub limit: Option<JointLimit<f64>>,
}

/// An actuator input on a joint (`[[input]]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputSpec {
    /// The joint (index): a revolute (torque, N·m; set-point rad, rad/s) or prismatic
    /// (force, N; set-point m, m/s) joint.
    pub joint: usize,
    /// SI units per port unit.
    pub scale: f64,
    /// The port value `ferrodyn run` holds.
    pub value: f64,
    /// What the port commands: the joint force, or a servo's set-point (with its gains).
    pub servo: Servo<f64>,
}

impl InputSpec {
    /// What the physical value (port value × scale) is on a joint of `kind`, and its SI unit:
    /// the joint's torque or force, or the servo's set-point.
    pub fn quantity(&self, kind: JointKind<f64>) -> (&'static str, &'static str) {
        let prismatic = matches!(kind, JointKind::Prismatic);
        match (self.servo, prismatic) {
            (Servo::Force, false) => ("torque", "N·m"),
            (Servo::Force, true) => ("force", "N"),
            (Servo::Position { .. }, false) => ("position set-point", "rad"),
            (Servo::Position { .. }, true) => ("position set-point", "m"),
            (Servo::Velocity { .. }, false) => ("velocity set-point", "rad/s"),
            (Servo::Velocity { .. }, true) => ("velocity set-point", "m/s"),
        }
    }
}

/// A rigid body with its user id.
#[derive(Debug, Clone)]
pub struct BodySpec {
    /// The `id` key (unique).
    pub id: i64,
    /// The body.
    pub body: Body<f64>,
}

/// `[simulation]`, validated.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// End time (s), > 0.
    pub end_time: f64,
    /// Step (s), in (0, end_time].
    pub step: f64,
    /// The integrator and its settings.
    pub integrator: IntegratorSpec,
    /// Joint or Cartesian coordinates for the rigid bodies.
    pub formulation: Formulation,
    /// Interval between output samples (s), ≥ step.
    pub output_interval: f64,
    /// Gravity (m/s²).
    pub gravity: Vec3<f64>,
}

/// `[output]`: which series to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputSpec {
    /// Body states.
    pub states: bool,
    /// Energies and constraint violation.
    pub energy: bool,
    /// Joint reactions.
    pub reactions: bool,
    /// Plots.
    pub plots: bool,
}

/// A flexible body, validated: its mesh, material, held nodes and loads.
#[derive(Debug, Clone)]
pub struct FlexibleSpec {
    /// Its name.
    pub name: String,
    /// Line of its table header.
    pub line: usize,
    /// The mesh file (resolved against the scene's folder; `box` for a `box` table).
    pub mesh_path: PathBuf,
    /// The mesh (tets oriented positively); flexible node k is mesh node k.
    pub mesh: Mesh,
    /// The material.
    pub material: Material<f64>,
    /// Held nodes, in application order (a later entry overrides an earlier one).
    pub fixities: Vec<(usize, Fixity)>,
    /// Nodal forces (global).
    pub loads: Vec<(usize, Vec3<f64>)>,
    /// Nodes attached to a rigid body: (body index, nodes).
    pub attach: Option<(usize, Vec<usize>)>,
    /// Initial velocity of every node (global, m/s).
    pub velocity: Vec3<f64>,
    /// Contact with ground planes and other flexible bodies (`None`: no contact).
    pub contact: Option<FlexContactSpec>,
}

/// How a flexible body's surface meets others (node-to-plane and node-to-surface).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlexContactSpec {
    /// Radius of curvature at a node in Hertz's law (m).
    pub node_radius: f64,
    /// Deepest penetration into this body's faces searched (m).
    pub max_depth: f64,
    /// Which of this body's surface points are tested against the other bodies' faces.
    pub proximity: Proximity,
}

/// A validated scene file.
#[derive(Debug, Clone)]
pub struct Scene {
    /// The file (for error messages).
    pub source: Source,
    /// Time span, step, integrator, gravity.
    pub simulation: Simulation,
    /// Rigid bodies in file order (body k of the model).
    pub bodies: Vec<Named<BodySpec>>,
    /// Joints and drives, in file order (drives are driving joints).
    pub joints: Vec<Named<Joint<f64>>>,
    /// The drives' time functions, in file order: a driving joint's
    /// [`FunctionId`](ferrodyn_kernel::rigid::FunctionId) is its index here (kept out of the
    /// joints, which stay small: a time function is about half a kilobyte, drives are rare).
    /// The kernel models built from the scene add them first, so the ids are theirs too.
    pub drive_functions: Vec<TimeFunction<f64>>,
    /// Each joint's armature (rotor inertia per coordinate), by joint index: 0 for none and
    /// for drives.
    pub armature: Vec<f64>,
    /// Each joint's friction (smoothed Coulomb), by joint index: zero force for none and for
    /// drives.
    pub friction: Vec<ferrodyn_kernel::tree::JointFriction<f64>>,
    /// Force elements in file order.
    pub forces: Vec<Named<Force<f64>>>,
    /// Flexible bodies in file order.
    pub flexibles: Vec<FlexibleSpec>,
    /// Sensors in file order.
    pub sensors: Vec<Sensor>,
    /// Actuator inputs in file order.
    pub inputs: Vec<Named<InputSpec>>,
    /// Couplings between joints in file order.
    pub couplings: Vec<Named<CouplingSpec>>,
    /// Fixed tendons in file order.
    pub tendons: Vec<Named<TendonSpec>>,
    /// Contact shapes and materials (`None`: no `[[shape]]`).
    pub contact: Option<ContactSpec>,
    /// What the checks noted about values taken other than as a rigid body's or as written
    /// (inertias violating the triangle inequality, rounding noise read as zero), one a line.
    pub notes: Vec<String>,
    /// Output selection.
    pub output: OutputSpec,
}

/// The contact shapes and materials of a scene.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactSpec {
    /// Shapes in file order.
    pub shapes: Vec<Shape>,
    /// Material of pairs without their own (elastic preset unless given).
    pub default_material: Option<ContactMaterial>,
    /// Materials of rigid body pairs (`None`: ground).
    pub pairs: Vec<(Option<usize>, Option<usize>, ContactMaterial)>,
    /// Materials of flexible body pairs, by flexible index (`None`: ground).
    pub flex_pairs: Vec<(Option<usize>, Option<usize>, ContactMaterial)>,
    /// Materials of a rigid body (index) with a flexible body (flexible index).
    pub rigid_flex_pairs: Vec<(usize, usize, ContactMaterial)>,
}

impl ContactSpec {
    /// The material of flexible bodies `a` and `b` (`None`: ground).
    pub fn flex_material(&self, a: Option<usize>, b: Option<usize>) -> ContactMaterial {
        self.flex_pairs
            .iter()
            .find(|&&(x, y, _)| (x, y) == (a, b) || (x, y) == (b, a))
            .map_or(self.default_material(), |m| m.2)
    }

    /// The material of flexible body `flexible` against the shapes of rigid body `body`
    /// (`None`: the ground's shapes).
    pub fn shape_material(&self, flexible: usize, body: Option<usize>) -> ContactMaterial {
        let Some(body) = body else {
            return self.flex_material(Some(flexible), None);
        };
        self.rigid_flex_pairs
            .iter()
            .find(|&&(r, f, _)| (r, f) == (body, flexible))
            .map_or(self.default_material(), |m| m.2)
    }

    /// The material of pairs without their own.
    pub fn default_material(&self) -> ContactMaterial {
        self.default_material.unwrap_or_else(ContactMaterial::elastic)
    }
}
/// Index → name maps of a compiled model: kernel indices back to scene names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameMaps {
    /// Body names by body index.
    pub bodies: Vec<String>,
    /// Body ids by body index.
    pub body_ids: Vec<i64>,
    /// Joint and drive names by joint index.
    pub joints: Vec<String>,
    /// Force names by force index.
    pub forces: Vec<String>,
}

impl NameMaps {
    /// Index of the body called `name`.
    pub fn body(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|n| n == name)
    }
    /// Index of the joint or drive called `name`.
    pub fn joint(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|n| n == name)
    }
    /// Index of the force called `name`.
    pub fn force(&self, name: &str) -> Option<usize> {
        self.forces.iter().position(|n| n == name)
    }
}

impl Scene {
    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.source.path
    }

    /// The index → name maps of the rigid model.
    pub fn name_maps(&self) -> NameMaps {
        NameMaps {
            bodies: self.bodies.iter().map(|b| b.name.clone()).collect(),
            body_ids: self.bodies.iter().map(|b| b.value.id).collect(),
            joints: self.joints.iter().map(|j| j.name.clone()).collect(),
            forces: self.forces.iter().map(|f| f.name.clone()).collect(),
        }
    }
}
