//! The rigid part of a scene: its kernel model on any storage, the capacities a
//! fixed-capacity build of the whole scene needs, and kernel build errors mapped back to the
//! scene items that caused them.

use super::capacities::Capacities;
use crate::scene::{body_or_stand_in, first_tree_only, ErrorKind, ItemName, Scene, SceneError};
use ferrodyn_kernel::rigid;
use ferrodyn_kernel::{BuildError, Capacity, Item, Storage};

/// The rigid model of `scene` (bodies, then joints and drives, then forces, in file order).
/// Kernel errors are reported against the scene item that caused them.
/// A body that runs in joint coordinates only (massless, or with a singular inertia) is
/// refused by name: the Cartesian model's mass matrix needs every body's mass and inertia.
pub fn rigid_model<St: Storage>(scene: &Scene) -> Result<rigid::Model<f64, St>, SceneError> {
    if let Some((body, why)) = first_tree_only(&scene.bodies) {
        let kind = ErrorKind::Invalid {
            field: "mass",
            reason: format!("{why} runs in joint coordinates only (on the tree), and this scene runs in Cartesian coordinates"),
        };
        return Err(scene.source.error(Some(body.line), Some(body.item()), kind));
    }
    model_of(scene, |body| *body)
}

/// The Cartesian mirror of a scene that runs on the tree: its rigid model with every body that
/// runs in joint coordinates only held by a stand-in of unit mass and inertia (the mirror places bodies and carries the outputs; it
/// is never stepped, and the tree takes its masses from the scene).
pub fn mirror_model<St: Storage>(scene: &Scene) -> Result<rigid::Model<f64, St>, SceneError> {
    model_of(scene, body_or_stand_in)
}

fn model_of<St: Storage>(
    scene: &Scene,
    body: impl Fn(&rigid::Body<f64>) -> rigid::Body<f64>,
) -> Result<rigid::Model<f64, St>, SceneError> {
    let mut b = rigid::Model::<f64, St>::builder(scene.simulation.gravity);
    b.reserve(scene.bodies.len(), scene.joints.len(), scene.forces.len());
    // First, so that the model's function ids are the scene's (their indices).
    for &function in &scene.drive_functions {
        b.add_function(function).map_err(|e| kernel_error(scene, e))?;
    }
    for spec in &scene.bodies {
        b.add_body(body(&spec.value.body))
            .map_err(|e| kernel_error(scene, e))?;
    }
    for joint in &scene.joints {
        b.add_joint(joint.value).map_err(|e| kernel_error(scene, e))?;
    }
    for force in &scene.forces {
        b.add_force(force.value).map_err(|e| kernel_error(scene, e))?;
    }
    b.build().map_err(|e| kernel_error(scene, e))
}

/// The scene's rigid body, joint or force a kernel item (named by index) is, and its line.
pub fn scene_place(scene: &Scene, item: Item) -> Option<(ItemName, usize)> {
    match item {
        Item::Body(i) => scene.bodies.get(i).map(|b| (b.item(), b.line)),
        Item::Joint(i) => scene.joints.get(i).map(|j| (j.item(), j.line)),
        Item::Force(i) => scene.forces.get(i).map(|f| (f.item(), f.line)),
        Item::Tendon(i) => scene.tendons.get(i).map(|t| (t.item(), t.line)),
        _ => None,
    }
}

/// Maps a kernel build error (which names items by index) to the scene item and its line.
pub fn kernel_error(scene: &Scene, e: BuildError) -> SceneError {
    let place = |item: Item| scene_place(scene, item);
    let (item, kind) = match e {
        BuildError::CapacityExceeded {
            capacity,
            needed,
            available,
        } => {
            // The kernel stops at the first item that does not fit: that item is needed - 1.
            let at = match capacity {
                Capacity::Bodies => place(Item::Body(needed - 1)),
                Capacity::Joints => place(Item::Joint(needed - 1)),
                Capacity::Forces => place(Item::Force(needed - 1)),
                Capacity::ConstraintRows => joint_at_row(scene, needed).and_then(place),
                _ => None,
            };
            let scene_needs = Capacities::of_scene(scene).of(capacity).unwrap_or(needed);
            let kind = ErrorKind::Capacity {
                capacity,
                needed: scene_needs,
                available,
            };
            (at, kind)
        }
        BuildError::InvalidMass { body, .. }
        | BuildError::InertiaNotPositiveDefinite { body }
        | BuildError::InertiaTriangleInequality { body } => (place(Item::Body(body)), ErrorKind::Kernel(e)),
        BuildError::ZeroLengthAxis { item }
        | BuildError::UnknownBody { item, .. }
        | BuildError::UnknownNode { item, .. }
        | BuildError::SameBody { item }
        | BuildError::NonFinite { item }
        | BuildError::InvalidParameter { item, .. } => (place(item), ErrorKind::Kernel(e)),
    };
    let (item, line) = item.map_or((None, None), |(i, l)| (Some(i), Some(l)));
    scene.source.error(line, item, kind)
}

/// The joint whose rows first reach `rows` rows in total.
fn joint_at_row(scene: &Scene, rows: usize) -> Option<Item> {
    let mut total = 0;
    scene
        .joints
        .iter()
        .position(|j| {
            total += j.value.kind.rows();
            total >= rows
        })
        .map(Item::Joint)
}
