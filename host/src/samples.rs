//! Sample scenes that need no file: the default job of `ferrodyn run`, a chain of unit rods;
//! and the scene of any rigid model built in code.

use crate::scene::{BodySpec, Named, OutputSpec, Scene, Simulation, Source};
use crate::spec::{Formulation, IntegratorSpec};
use crate::storage::RigidModel;
use ferrodyn_kernel::samples::{revolute_chain, ChainSpec};
use ferrodyn_kernel::BuildError;
use std::path::Path;

/// The default scene: a chain of `links` unit rods (1 m, 1 kg) hinged about y, released
/// horizontally under gravity −z (the kernel's sample chain), bodies `body0…`, joints
/// `joint0…`, every output on.
pub fn chain_scene(links: usize, simulation: Simulation) -> Result<Scene, BuildError> {
    let model: RigidModel = revolute_chain(&ChainSpec::standard(links))?;
    Ok(rigid_scene(
        &model,
        simulation,
        &format!("built-in {links}-link chain"),
    ))
}

/// A scene of the rigid `model` built in code, called `name`: its bodies `body0…`, joints
/// `joint0…` and forces `force0…` in model order, gravity from the model, every output on.
pub fn rigid_scene(model: &RigidModel, simulation: Simulation, name: &str) -> Scene {
    Scene {
        source: Source::new(Path::new(name), ""),
        simulation: Simulation {
            gravity: model.gravity(),
            ..simulation
        },
        bodies: (model.bodies().iter().enumerate())
            .map(|(i, &body)| {
                let spec = BodySpec {
                    id: i as i64 + 1,
                    body,
                };
                named("body", format!("body{i}"), spec)
            })
            .collect(),
        joints: (model.joints().iter().enumerate())
            .map(|(i, &joint)| named("joint", format!("joint{i}"), joint))
            .collect(),
        drive_functions: model.functions().to_vec(),
        armature: vec![0.0; model.joints().len()],
        friction: vec![Default::default(); model.joints().len()],
        forces: (model.forces().iter().enumerate())
            .map(|(i, &force)| named("force", format!("force{i}"), force))
            .collect(),
        flexibles: Vec::new(),
        sensors: Vec::new(),
        inputs: Vec::new(),
        couplings: Vec::new(),
        tendons: Vec::new(),
        contact: None,
        notes: Vec::new(),
        output: OutputSpec {
            states: true,
            energy: true,
            reactions: true,
            plots: true,
        },
    }
}

/// A scene item built in code (no line).
fn named<T>(kind: &'static str, name: String, value: T) -> Named<T> {
    Named {
        name,
        kind,
        line: 0,
        value,
    }
}

/// Links of the built-in chain of `ferrodyn run` without a scene file.
pub const CHAIN_LINKS: usize = 20;

/// The default settings of the built-in chain: 10 s at 1 ms with RK4, outputs every 10 ms.
pub fn chain_simulation() -> Simulation {
    Simulation {
        end_time: 10.0,
        step: 1e-3,
        integrator: IntegratorSpec::Explicit(ferrodyn_kernel::integrators::Method::Rk4),
        formulation: Formulation::Auto,
        output_interval: 0.01,
        gravity: ferrodyn_kernel::math::Vec3::ZERO,
    }
}
