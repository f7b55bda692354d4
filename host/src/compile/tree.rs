//! A scene's rigid part in joint coordinates: the kernel tree whose links are the scene's
//! bodies at their assembled initial state, and where each body sits on its link.
//!
//! Zero joint coordinates are the initial configuration, so every link frame has the world
//! axes there and its origin on its joint's anchor: a link's origin in its parent's frame is
//! the difference of the two anchors, its axis the joint axis, its CG and inertia the body's
//! expressed in world axes. The initial joint rates are the bodies' relative velocities along
//! the axes.

use super::formulation::TreeLink;
use crate::scene::{Scene, SceneError};
use crate::storage::{RigidData, RigidModel};
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::{BodyRef, Frame, JointKind};
use ferrodyn_kernel::tree::{Link, Model};
use ferrodyn_kernel::Storage;

/// Where a scene body sits on its tree link: its frame's origin in the link frame and its
/// orientation relative to the link (both constant).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkBody {
    /// The scene body (index).
    pub body: usize,
    /// Body frame origin in link coordinates.
    pub offset: Vec3<f64>,
    /// Body axes → link axes.
    pub orientation: Quat<f64>,
}

/// A scene's rigid part as a tree.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneTree {
    /// Gravity (world axes).
    pub gravity: Vec3<f64>,
    /// The links as handed to the kernel's builder (zero coordinates: the initial
    /// configuration); [`SceneTree::model`] builds them, and an export writes them out, so
    /// both make the same model.
    pub links: Vec<Link<f64>>,
    /// The body on each link.
    pub bodies: Vec<LinkBody>,
    /// The initial joint rates.
    pub rates: Vec<f64>,
}

impl SceneTree {
    /// The kernel model of these links on storage `St`; errors name the scene's body or joint.
    pub fn model<St: Storage>(
        &self,
        scene: &Scene,
        links: &[TreeLink],
    ) -> Result<Model<f64, St>, SceneError> {
        let mut builder = Model::<f64, St>::builder(self.gravity);
        for (link, of) in self.links.iter().zip(links) {
            builder
                .add_link(*link)
                .map_err(|e| super::kernel_error(scene, rename(e, of)))?;
        }
        builder.build().map_err(|e| super::kernel_error(scene, e))
    }
}

/// The tree of `links` for the rigid `model` at its assembled state `data`.
pub fn tree_model(
    scene: &Scene,
    links: &[TreeLink],
    model: &RigidModel,
    data: &RigidData,
) -> Result<SceneTree, SceneError> {
    let mut tree_links = Vec::with_capacity(links.len());
    let mut anchors: Vec<Vec3<f64>> = Vec::with_capacity(links.len());
    let mut bodies = Vec::with_capacity(links.len());
    let mut rates = Vec::with_capacity(links.len());
    for link in links {
        let joint = &model.joints()[link.joint];
        let (parent, parent_frame) = match joint.body_j {
            BodyRef::Body(b) if b == link.body => (joint.body_i, &joint.frame_i),
            _ => (joint.body_j, &joint.frame_j),
        };
        let anchor = data.point_position(parent, parent_frame.origin);
        // Revolute and prismatic joints turn about / slide along z of frame i.
        let axis = world_z(data, joint.body_i, &joint.frame_i);
        let parent_anchor = link.parent.map_or(Vec3::ZERO, |p| anchors[p]);
        let body = &model.bodies()[link.body];
        let (position, orientation) = (data.position(link.body), data.orientation(link.body));
        let rotation = orientation.to_matrix();
        let cg = position + rotation.mul_vec(body.cg) - anchor;
        let inertia = rotation.mul_mat(&body.inertia).mul_mat(&rotation.transpose());
        let origin = anchor - parent_anchor;
        let tree_link = match joint.kind {
            JointKind::Prismatic => Link::prismatic(link.parent, origin, axis),
            _ => Link::revolute(link.parent, origin, axis),
        };
        tree_links.push(tree_link.with_mass(body.mass, cg, inertia));
        rates.push(initial_rate(
            data,
            &joint.kind,
            axis,
            parent,
            BodyRef::Body(link.body),
            anchor,
        ));
        anchors.push(anchor);
        bodies.push(LinkBody {
            body: link.body,
            offset: position - anchor,
            orientation,
        });
    }
    let tree = SceneTree {
        gravity: model.gravity(),
        links: tree_links,
        bodies,
        rates,
    };
    tree.model::<crate::storage::Growable>(scene, links)?; // checks the links now, naming them
    Ok(tree)
}

/// The z axis of `frame` on `body`, in world axes.
fn world_z(data: &RigidData, body: BodyRef, frame: &Frame<f64>) -> Vec3<f64> {
    let z = frame.axes.column(2);
    match body {
        BodyRef::Ground => z,
        BodyRef::Body(b) => data.orientation(b).rotate(z),
    }
}

/// The joint rate of the initial velocities: relative angular velocity (revolute) or relative
/// velocity of the anchor (prismatic) along the axis.
fn initial_rate(
    data: &RigidData,
    kind: &JointKind<f64>,
    axis: Vec3<f64>,
    parent: BodyRef,
    child: BodyRef,
    anchor: Vec3<f64>,
) -> f64 {
    let relative = match kind {
        JointKind::Prismatic => anchor_velocity(data, child, anchor) - anchor_velocity(data, parent, anchor),
        _ => angular_velocity(data, child) - angular_velocity(data, parent),
    };
    axis.dot(relative)
}

/// World angular velocity of a body (zero for the ground).
fn angular_velocity(data: &RigidData, body: BodyRef) -> Vec3<f64> {
    match body {
        BodyRef::Ground => Vec3::ZERO,
        BodyRef::Body(b) => data.orientation(b).rotate(data.angular_velocity(b)),
    }
}

/// World velocity of the point of `body` at `point` (world).
fn anchor_velocity(data: &RigidData, body: BodyRef, point: Vec3<f64>) -> Vec3<f64> {
    match body {
        BodyRef::Ground => Vec3::ZERO,
        BodyRef::Body(b) => {
            let local = data.orientation(b).conjugate().rotate(point - data.position(b));
            data.point_velocity(body, local)
        }
    }
}

/// A tree build error names link k; the scene knows that link as its body and joint.
fn rename(e: ferrodyn_kernel::BuildError, link: &TreeLink) -> ferrodyn_kernel::BuildError {
    use ferrodyn_kernel::{BuildError, Item};
    let item = |item: Item| match item {
        Item::Body(_) => Item::Body(link.body),
        Item::Joint(_) => Item::Joint(link.joint),
        other => other,
    };
    match e {
        BuildError::InvalidMass { mass, .. } => BuildError::InvalidMass {
            body: link.body,
            mass,
        },
        BuildError::InertiaNotPositiveDefinite { .. } => {
            BuildError::InertiaNotPositiveDefinite { body: link.body }
        }
        BuildError::InertiaTriangleInequality { .. } => {
            BuildError::InertiaTriangleInequality { body: link.body }
        }
        BuildError::ZeroLengthAxis { item: i } => BuildError::ZeroLengthAxis { item: item(i) },
        BuildError::NonFinite { item: i } => BuildError::NonFinite { item: item(i) },
        BuildError::InvalidParameter { item: i, reason } => BuildError::InvalidParameter {
            item: item(i),
            reason,
        },
        other => other,
    }
}
