//! Scene files: a TOML description of a multibody system (rigid bodies, joints, drives, forces,
//! flexible bodies, contact, sensors, integrator, outputs), parsed and checked into a [`Scene`]
//! of plain data.
//!
//! Loading ([`Scene::load`]) checks everything a file can get wrong by itself (unknown keys,
//! references, duplicates, ranges, meshes and their physical groups) and resolves names to
//! indices; the [`Scene`] holds kernel item values (`Body`, `Joint`, `Force`, `Material`) and
//! the descriptions of [`crate::spec`]. It knows nothing of solvers: [`crate::compile`] turns it
//! into a simulation. Errors ([`SceneError`]) read `file:line: item "name": what`. The format
//! is documented in `scenes/README.md`.
//!
//! Modules, each depending only on those before it: `error`, the raw tables and the file parsed
//! into them (`format` and `items`, from the `ferrodyn-scene-file` crate: large files item by
//! item, flat item tables by a fast reader), `convert` (raw values into kernel values), `types`
//! (the validated scene), `checker` (the validation context), one module per kind of table,
//! and `validate`, which puts them together.

mod armature;
mod checker;
mod contact;
mod convert;
mod coupling;
mod error;
mod flexible;
mod force;
mod friction;
mod inertia;
mod input;
mod integrator;
mod limit;
mod parallel;
mod tendon;
mod types;
mod validate;

// The raw tables and the file's parsing live in their own crate (build time: issue 38).
use ferrodyn_scene_file::{format, items};
use std::path::Path;

pub use checker::{check_name, NAME_LENGTH_LIMIT, NAME_RULE};
pub use convert::reason as build_error_reason;
pub use error::{Details, ErrorKind, ItemName, SceneError, Source};
pub use friction::DEFAULT_FRICTION_VELOCITY;
pub use inertia::principal_moments;
pub use limit::{DEFAULT_LIMIT_DAMPING, DEFAULT_LIMIT_STIFFNESS};
pub use types::{
    BodySpec, ContactSpec, CouplingSpec, FlexContactSpec, FlexibleSpec, InputSpec, NameMaps, Named,
    OutputSpec, Scene, Simulation, TendonSpec,
};
pub(crate) use validate::body_or_stand_in;
pub use validate::{first_tree_only, joint_coordinates_only};

impl Scene {
    /// Reads, parses and validates the scene file at `path` (meshes are read too).
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        let text = crate::limits::read_scene_file(path)
            .map_err(|e| Source::new(path, "").error(None, None, ErrorKind::Io(e)))?;
        Self::parse(path, &text)
    }

    /// Parses and validates `text` as if read from `path` (meshes are resolved against its folder).
    pub fn parse(path: &Path, text: &str) -> Result<Self, SceneError> {
        validate::validate(Source::new(path, text), text)
    }
}

#[cfg(test)]
mod tests;
