//! Scene files: a TOML description of a rigid multibody system with flexible bodies, checked
//! and then compiled into kernel models.
//!
//! Loading ([`Scene::load`]) parses and validates everything a file can get wrong by itself
//! (unknown keys, references, duplicates, ranges, meshes and their physical groups); the
//! validated [`Scene`] holds kernel item values (`Body`, `Joint`, `Force`, `Material`) with
//! names resolved to indices, so it compiles into any target: the fixed-capacity kernel
//! [`Model`](ferrodyn_kernel::Model) here ([`Scene::build_rigid`], [`Scene::build_flexible`]),
//! a dynamic host model later. Errors ([`SceneError`]) read `file:line: item "name": what`.
//! The format is documented in `scenes/README.md`.

mod compile;
pub mod contact;
mod convert;
mod error;
mod flexible;
mod force;
mod format;
mod implicit;
mod validate;

use std::path::{Path, PathBuf};

use crate::contact::flex_pair::Proximity;
use crate::dae::HostMethod;
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::flex::Fixity;
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::{Body, Force, Joint};

pub use compile::{Capacities, NameMaps};
pub use error::{Details, ErrorKind, ItemName, SceneError, Source};
pub use implicit::IMPLICIT_NAMES;

use crate::gmsh::Mesh;

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
    /// The integrator.
    pub method: Method<f64>,
    /// Interval between output samples (s), ≥ step.
    pub output_interval: f64,
    /// Gravity (m/s²).
    pub gravity: Vec3<f64>,
    /// Settings of the implicit integrator when `integrator` is "hht" or "newmark" (flexible
    /// bodies; `method` is then unused).
    pub implicit: Option<crate::implicit::HhtOptions>,
    /// The implicit integrator when `integrator` is "bdf1", "bdf2" or "generalized-alpha"
    /// (rigid and coupled systems; `method` is then unused).
    pub rigid_implicit: Option<crate::dae::ImplicitSpec>,
}

impl Simulation {
    /// The name of the rigid/coupled integrator, as written in the scene.
    pub fn integrator_name(&self) -> &'static str {
        self.rigid_implicit.map_or(self.method.name(), |s| s.name)
    }
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
    /// Force elements in file order.
    pub forces: Vec<Named<Force<f64>>>,
    /// Flexible bodies in file order.
    pub flexibles: Vec<FlexibleSpec>,
    /// Sensors in file order.
    pub sensors: Vec<crate::sensor::Sensor>,
    /// Contact shapes and materials (`None`: no `[[shape]]`).
    pub contact: Option<contact::ContactSpec>,
    /// Output selection.
    pub output: OutputSpec,
}

impl Scene {
    /// Reads, parses and validates the scene file at `path` (meshes are read too).
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Source::new(path, "").error(None, None, ErrorKind::Io(e)))?;
        Self::parse(path, &text)
    }

    /// Parses and validates `text` as if read from `path` (meshes are resolved against its folder).
    pub fn parse(path: &Path, text: &str) -> Result<Self, SceneError> {
        validate::validate(Source::new(path, text), text)
    }

    /// The integrator chosen in `[simulation]`.
    pub fn integrator(&self) -> HostMethod {
        match self.simulation.rigid_implicit {
            Some(spec) => spec.build(),
            None => HostMethod::Explicit(self.simulation.method),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.source.path
    }
}

#[cfg(test)]
mod tests;
