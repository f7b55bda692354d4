//! A scene's rigid part in joint coordinates: the kernel tree whose links are the scene's
//! bodies at their assembled initial state, and where each body sits on its link.
//!
//! Zero joint coordinates are the initial configuration, so every link frame has the world
//! axes there and its origin on its joint's anchor: a link's origin in its parent's frame is
//! the difference of the two anchors, its axes the joint's axes in world axes, its CG and
//! inertia the body's expressed in world axes. The initial joint rates are the bodies' relative
//! velocities resolved on the joint's axes (world axes for a ball joint and a floating base,
//! which are the link's axes at zero coordinates).

use super::formulation::{driven_link, link_of_joints, loop_joints, TreeLink};
use crate::scene::{ContactSpec, ItemName, Scene, SceneError};
use crate::storage::{Growable, RigidData, RigidModel, TreeData, TreeForces, TreeModel};
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use ferrodyn_kernel::rigid::{
    assemble, joint_coordinate, Axes, Body, BodyRef, DrivenCoordinate, Force, Frame, Joint, JointKind,
    MassProperties, Stabilization,
};
use ferrodyn_kernel::tree::{Link, Model, Tendon};
use ferrodyn_kernel::TimeFunction;
use ferrodyn_kernel::{Dynamics, JointLimit, KernelError, Storage};

/// Where a scene body sits on its tree link: its frame's origin in the link frame and its
/// orientation relative to the link (both constant). A link carries its own body and the
/// bodies welded to it; a body welded to the ground is on no link and keeps its initial pose.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkBody {
    /// The scene body (index).
    pub body: usize,
    /// The link that carries it (index), `None` for a body welded to the ground.
    pub link: Option<usize>,
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
    /// Every scene body and where it sits (in scene order).
    pub bodies: Vec<LinkBody>,
    /// The initial rates of each link's joint (its velocity coordinates).
    pub rates: Vec<Vec<f64>>,
    /// The joints closing loops on the tree (`formulation::loop_joints`): each scene
    /// joint's index and the joint on the links (frames in link coordinates, a body welded to
    /// the ground on the ground).
    pub loops: Vec<(usize, Joint<f64>)>,
    /// The scene's drives as coordinate rows on the links they move.
    pub drives: Vec<TreeDrive>,
    /// The scene's couplings as coordinate rows (after the drives).
    pub couplings: Vec<TreeCoupling>,
    /// The scene's tendons on the links' coordinates (scene order).
    pub tendons: Vec<Tendon<f64>>,
    /// How the loops' drift is projected away (the scene's, as the Cartesian model's).
    pub stabilization: Stabilization<f64>,
}

/// A scene coupling on the tree: link `follower`'s coordinate = `multiplier` · link
/// `leader`'s + `offset` (the scene's relation carried onto the tree's coordinates).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeCoupling {
    /// The scene coupling (index).
    pub coupling: usize,
    /// The held joint's link.
    pub follower: usize,
    /// The followed joint's link.
    pub leader: usize,
    /// m on the tree's coordinates.
    pub multiplier: f64,
    /// c on the tree's coordinates.
    pub offset: f64,
}

/// A scene drive on the tree: link `link`'s coordinate q = `multiplier` · f(t) + `offset`.
/// The drive's own coordinate (the scene's angle θ of x_j from x_i about z_i, or slide along
/// z_i) is θ = θ₀ + multiplier · q (multiplier ±1: the tree's coordinate turns the child about
/// the joint's axis), so the drive's generalized force on θ is multiplier × the row's on q.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TreeDrive {
    /// The scene joint (the drive).
    pub joint: usize,
    /// The link whose joint it moves.
    pub link: usize,
    /// f.
    pub function: TimeFunction<f64>,
    /// ±1.
    pub multiplier: f64,
    /// The tree's coordinate at f = 0.
    pub offset: f64,
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
        for &(index, joint) in &self.loops {
            let closed = builder.close_loop(joint);
            closed.map_err(|e| super::kernel_error(scene, rename_loop(e, index)))?;
        }
        for d in &self.drives {
            let driven = builder.drive(d.link, d.function, d.multiplier, d.offset);
            driven.map_err(|e| super::kernel_error(scene, rename_loop(e, d.joint)))?;
        }
        for c in &self.couplings {
            let coupled = builder.couple(c.follower, c.leader, c.multiplier, c.offset);
            let joint = scene.couplings[c.coupling].value.joint;
            coupled.map_err(|e| super::kernel_error(scene, rename_loop(e, joint)))?;
        }
        for (index, tendon) in self.tendons.iter().enumerate() {
            let added = builder.add_tendon(*tendon);
            added.map_err(|e| super::kernel_error(scene, rename_tendon(e, index)))?;
        }
        builder.set_stabilization(self.stabilization);
        builder.build().map_err(|e| super::kernel_error(scene, e))
    }
}

/// A scene's rigid part in joint coordinates as `compile` and an export build it: the
/// Cartesian model at its assembled initial state (the mirror the host's outputs read), the
/// links, and the kernel tree built from them.
pub struct TreeParts {
    /// The scene's rigid bodies and joints in Cartesian coordinates.
    pub mirror: RigidModel,
    /// Their assembled initial state.
    pub mirror_data: RigidData,
    /// The links and where the bodies sit on them.
    pub tree: SceneTree,
    /// The kernel tree.
    pub model: TreeModel,
    /// The scene's force elements on its links (rotational spring-dampers are the links' own
    /// springs and damping).
    pub forces: TreeForces,
}

impl TreeParts {
    /// The tree's initial data: zero coordinates and the links' rates in v, link after link
    /// (one write: setting them joint by joint would find each joint's place from the start
    /// of the tree).
    pub fn initial_data(&self) -> Result<TreeData, KernelError> {
        initial_data(&self.model, &self.tree.rates)
    }
}

/// The data of the tree `model` at its initial configuration (zero coordinates) moving at
/// `rates` (each link's joint's, [`SceneTree::rates`]).
pub fn initial_data(model: &TreeModel, rates: &[Vec<f64>]) -> Result<TreeData, KernelError> {
    let mut data = model.new_data();
    let mut state = model.state(&data).to_vec();
    let velocities = state.get_mut(model.position_count()..).unwrap_or_default();
    for (slot, rate) in velocities.iter_mut().zip(rates.iter().flatten()) {
        *slot = *rate;
    }
    model.set_state(&mut data, &state)?;
    Ok(data)
}

/// The tree parts of `scene`, whose rigid bodies form the tree `links`.
pub fn tree_parts(scene: &Scene, links: &[TreeLink]) -> Result<TreeParts, SceneError> {
    let mirror = super::rigid::mirror_model::<Growable>(scene)?;
    let mirror_data = mirror.new_data();
    tree_parts_on(scene, links, mirror, mirror_data)
}

/// The tree parts of `scene` on its Cartesian mirror `mirror` (`mirror_model(scene)`) and that
/// mirror's fresh data (`mirror.new_data()`), both built by the caller: `ferrodyn check` reads
/// the joints' violation at t0 from them first (one data, not two: 2.7 kB a body).
pub fn tree_parts_on(
    scene: &Scene,
    links: &[TreeLink],
    mirror: RigidModel,
    mut mirror_data: RigidData,
) -> Result<TreeParts, SceneError> {
    assemble(&mirror, &mut mirror_data)
        .map_err(|e| super::initial_error(scene, "assembling the initial configuration", e))?;
    let mut tree = tree_model(scene, links, &mirror, &mirror_data);
    tree.loops = loop_joints(scene, links)
        .into_iter()
        .map(|index| (index, on_links_joint(&mirror.joints()[index], &tree.bodies)))
        .collect();
    tree.stabilization = *mirror.stabilization();
    tree.drives = (0..scene.joints.len())
        .filter_map(|index| {
            let link = driven_link(scene, links, index)?;
            tree_drive(
                &mirror,
                &mirror_data,
                index,
                link,
                &links[link],
                &tree.links[link],
            )
        })
        .collect();
    // A servo input's gains belong to its joint's link (the model); its set-point is the
    // input value (the data).
    let link_of = link_of_joints(links, scene.joints.len());
    tree.couplings = tree_couplings(scene, links, &link_of, (&mirror, &mirror_data))?;
    tree.tendons = tree_tendons(scene, links, &link_of, (&mirror, &mirror_data))?;
    for input in &scene.inputs {
        let link = link_of.get(input.value.joint).copied().flatten();
        if let Some(link) = link.and_then(|k| tree.links.get_mut(k)) {
            link.servo = input.value.servo;
        }
    }
    let model = tree.model(scene, links)?;
    let mut forces = TreeForces::new();
    // The mirror, built first, has checked every element against the scene's items.
    for force in &scene.forces {
        if let Some(on_links) = on_links(force.value, &tree.bodies) {
            let added = forces.add(&model, on_links);
            added.map_err(|e| super::kernel_error(scene, e))?;
        }
    }
    Ok(TreeParts {
        mirror,
        mirror_data,
        tree,
        model,
        forces,
    })
}

/// The tree of `links` for the rigid `model` at its assembled state `data`.
fn tree_model(scene: &Scene, links: &[TreeLink], model: &RigidModel, data: &RigidData) -> SceneTree {
    let mut tree_links = Vec::with_capacity(links.len());
    let mut anchors: Vec<Vec3<f64>> = Vec::with_capacity(links.len());
    // Bodies on no link are welded to the ground: they stay at their assembled pose.
    let mut bodies: Vec<LinkBody> = (0..model.bodies().len())
        .map(|body| LinkBody {
            body,
            link: None,
            offset: data.position(body),
            orientation: data.orientation(body),
        })
        .collect();
    let mut rates = Vec::with_capacity(links.len());
    for (index, link) in links.iter().enumerate() {
        let child = BodyRef::Body(link.body);
        let position = data.position(link.body);
        let joint = link.joint.map(|j| &model.joints()[j]);
        let (parent, anchor) = match joint {
            Some(joint) => {
                let (parent, frame) = match joint.body_j {
                    BodyRef::Body(b) if b == link.body => (joint.body_i, &joint.frame_i),
                    _ => (joint.body_j, &joint.frame_j),
                };
                (parent, data.point_position(parent, frame.origin))
            }
            None => (BodyRef::Ground, position),
        };
        let parent_anchor = link.parent.map_or(Vec3::ZERO, |p| anchors[p]);
        let origin = anchor - parent_anchor;
        let (mass, cg, inertia) = link_mass(scene, data, link, anchor);
        let (tree_link, rate) = match joint {
            Some(joint) => joint_link(joint, link.parent, origin, data, parent, child, anchor),
            None => (
                Link::free(link.parent, origin),
                free_rates(data, parent, child, anchor),
            ),
        };
        let mut tree_link = (tree_link.with_mass(mass, cg, inertia))
            .with_damping(link.damping)
            .with_armature(link.armature);
        // The friction is odd in the rate: the tree's coordinate's sign against the scene's
        // does not change it.
        tree_link.friction = link.friction;
        if let (Some(index), (stiffness, rest_angle)) = (link.joint, link.spring) {
            if stiffness != 0.0 {
                tree_link =
                    tree_link.with_spring(stiffness, joint_rest(model, data, index, link, rest_angle));
            }
        }
        if let (Some(index), Some(limit)) = (link.joint, link.limit) {
            let [lower, upper] = [limit.lower, limit.upper].map(|q| joint_rest(model, data, index, link, q));
            tree_link = tree_link.with_limit(JointLimit {
                lower: lower.min(upper),
                upper: lower.max(upper),
                ..limit
            });
        }
        tree_links.push(tree_link);
        rates.push(rate);
        anchors.push(anchor);
        for &body in std::iter::once(&link.body).chain(&link.welded) {
            bodies[body] = LinkBody {
                body,
                link: Some(index),
                offset: data.position(body) - anchor,
                orientation: data.orientation(body),
            };
        }
    }
    SceneTree {
        gravity: model.gravity(),
        links: tree_links,
        bodies,
        rates,
        loops: Vec::new(),
        drives: Vec::new(),
        couplings: Vec::new(),
        tendons: Vec::new(),
        stabilization: *model.stabilization(),
    }
}

/// Scene joint `joint`'s place on the tree: its link, the scene coordinate θ₀ at the assembled
/// state and the sign s of θ = θ₀ + s q (s = −1 where the link's body is the joint's body i:
/// the tree turns the child about z_i). A joint that closes a loop has no coordinate: an error
/// naming `item` (at `line`), which `needs` it.
fn joint_on_tree(
    scene: &Scene,
    (links, link_of): (&[TreeLink], &[Option<usize>]),
    (model, data): (&RigidModel, &RigidData),
    joint: usize,
    (item, line, needs): (ItemName, usize, &str),
) -> Result<(usize, f64, f64), SceneError> {
    let link = link_of.get(joint).copied().flatten().ok_or_else(|| {
        let kind = crate::scene::ErrorKind::Invalid {
            field: "joint",
            reason: format!(
                "joint \"{}\" closes a loop on the tree and has no coordinate of its own {needs}",
                scene.joints[joint].name
            ),
        };
        scene.source.error(Some(line), Some(item), kind)
    })?;
    let (start, _) = joint_coordinate(model, data, joint).unwrap_or((0.0, 0.0));
    let sign = if model.joints()[joint].body_i == BodyRef::Body(links[link].body) {
        -1.0
    } else {
        1.0
    };
    Ok((link, start, sign))
}

/// The scene's couplings on the tree's coordinates ([`joint_on_tree`]): θ_j = m θ_i + c
/// becomes q_j = s_j m s_i q_i + s_j (m θ₀_i + c − θ₀_j).
fn tree_couplings(
    scene: &Scene,
    links: &[TreeLink],
    link_of: &[Option<usize>],
    mirror: (&RigidModel, &RigidData),
) -> Result<Vec<TreeCoupling>, SceneError> {
    scene
        .couplings
        .iter()
        .enumerate()
        .map(|(index, coupling)| {
            let c = coupling.value;
            let place = (coupling.item(), coupling.line, "to couple");
            let (follower, start_j, s_j) =
                joint_on_tree(scene, (links, link_of), mirror, c.joint, place.clone())?;
            let (leader, start_i, s_i) = joint_on_tree(scene, (links, link_of), mirror, c.follows, place)?;
            let multiplier = s_j * c.multiplier * s_i;
            let offset = s_j * (c.multiplier * start_i + c.offset - start_j);
            Ok(TreeCoupling {
                coupling: index,
                follower,
                leader,
                multiplier,
                offset,
            })
        })
        .collect()
}

/// The scene's tendons on the tree's coordinates ([`joint_on_tree`]): L = Σ cᵢ θᵢ = Σ cᵢ θ₀ᵢ +
/// Σ (cᵢ sᵢ) qᵢ, with the spring, damper and end stops as the scene gives them.
fn tree_tendons(
    scene: &Scene,
    links: &[TreeLink],
    link_of: &[Option<usize>],
    mirror: (&RigidModel, &RigidData),
) -> Result<Vec<Tendon<f64>>, SceneError> {
    scene
        .tendons
        .iter()
        .map(|tendon| {
            let spec = &tendon.value;
            let mut on_tree = Vec::with_capacity(spec.terms.len());
            for &(joint, coefficient) in &spec.terms {
                let place = (tendon.item(), tendon.line, "for a tendon");
                let (link, start, sign) = joint_on_tree(scene, (links, link_of), mirror, joint, place)?;
                on_tree.push((link, coefficient * sign, coefficient * start));
            }
            let offset = on_tree.iter().map(|t| t.2).sum();
            let mut kernel = Tendon::new(offset)
                .with_spring(spec.stiffness, spec.rest.0, spec.rest.1)
                .with_damping(spec.damping);
            if let Some(limit) = spec.limit {
                kernel = kernel.with_limit(limit);
            }
            // The scene checked the number of joints against the kernel's capacity.
            Ok(on_tree
                .into_iter()
                .try_fold(kernel, |t, (link, c, _)| t.with_term(link, c))
                .unwrap_or(kernel))
        })
        .collect()
}

/// Scene drive `index` (of `model`, assembled in `data`) on `link`, whose tree link is `on`:
/// the sign between the drive's coordinate and the tree's, and the offset that makes the
/// tree's coordinate 0 at the assembled configuration (a rotation drive's angle read within π
/// of f(0), as its row sin(θ − f) holds it).
fn tree_drive(
    model: &RigidModel,
    data: &RigidData,
    index: usize,
    link: usize,
    tree_link: &TreeLink,
    on: &Link<f64>,
) -> Option<TreeDrive> {
    let drive = &model.joints()[index];
    let JointKind::Driving { coordinate, function } = drive.kind else {
        return None;
    };
    let function = *model.functions().get(function.index())?;
    let axis = |k: usize, body: BodyRef, frame: &Frame<f64>| world_axis(data, body, frame, k);
    let (x_i, y_i, z_i) = (
        axis(0, drive.body_i, &drive.frame_i),
        axis(1, drive.body_i, &drive.frame_i),
        axis(2, drive.body_i, &drive.frame_i),
    );
    // The tree's coordinate turns (moves) the link's body about (along) the link's axis: the
    // drive's coordinate follows when that body is the drive's body j, and goes back otherwise.
    let child = if drive.body_j == BodyRef::Body(tree_link.body) {
        1.0
    } else {
        -1.0
    };
    let multiplier = child * z_i.dot(on.axis).signum();
    let f0 = function.eval(0.0).value;
    let start = match coordinate {
        DrivenCoordinate::Rotation => {
            let x_j = axis(0, drive.body_j, &drive.frame_j);
            let theta = x_j.dot(y_i).atan2(x_j.dot(x_i));
            let turns = ((theta - f0) / std::f64::consts::TAU).round();
            theta - turns * std::f64::consts::TAU
        }
        DrivenCoordinate::Translation => {
            let (p_i, p_j) = (
                data.point_position(drive.body_i, drive.frame_i.origin),
                data.point_position(drive.body_j, drive.frame_j.origin),
            );
            (p_j - p_i).dot(z_i)
        }
    };
    Some(TreeDrive {
        joint: index,
        link,
        function,
        multiplier,
        offset: -multiplier * start,
    })
}

/// A scene `joint` on the links that carry its bodies: body frames become link frames (a body
/// welded to the ground, and the ground, are the ground).
fn on_links_joint(joint: &Joint<f64>, bodies: &[LinkBody]) -> Joint<f64> {
    let on = |body: BodyRef| match body {
        BodyRef::Body(b) => bodies.get(b),
        BodyRef::Ground => None,
    };
    let side = |body: BodyRef, frame: &Frame<f64>| match on(body) {
        Some(on) => (
            on.link.map_or(BodyRef::Ground, BodyRef::Body),
            Frame {
                origin: on.offset + on.orientation.rotate(frame.origin),
                axes: on.orientation.to_matrix().mul_mat(&frame.axes),
            },
        ),
        None => (BodyRef::Ground, *frame),
    };
    let ((body_i, frame_i), (body_j, frame_j)) = (
        side(joint.body_i, &joint.frame_i),
        side(joint.body_j, &joint.frame_j),
    );
    Joint::new(joint.kind, body_i, frame_i, body_j, frame_j)
}

/// The mass, CG and inertia about the CG of `link` in its frame (world axes, origin at
/// `anchor`): its body's, merged with those of the bodies welded to it; the scene's masses
/// (the mirror holds massless bodies by stand-ins). A link of massless bodies only is massless:
/// mass, CG and inertia all zero.
fn link_mass(
    scene: &Scene,
    data: &RigidData,
    link: &TreeLink,
    anchor: Vec3<f64>,
) -> (f64, Vec3<f64>, Mat3<f64>) {
    // A body's mass properties in the link frame.
    let placed = |b: usize| {
        let body = &scene.bodies[b].value.body;
        let rotation = data.orientation(b).to_matrix();
        let cg = data.position(b) + rotation.mul_vec(body.cg) - anchor;
        let inertia = rotation.mul_mat(&body.inertia).mul_mat(&rotation.transpose());
        (body.mass, cg, inertia)
    };
    let mut parts = std::iter::once(link.body)
        .chain(link.welded.iter().copied())
        .filter(|&b| scene.bodies[b].value.body.mass != 0.0)
        .map(placed);
    let Some(first) = parts.next() else {
        return (0.0, Vec3::ZERO, Mat3::ZERO);
    };
    // With one body, its values exactly (the bits of trees without welded bodies).
    parts.fold(first, |(mass, cg, inertia), (m, c, j)| {
        let part = |mass, cg, inertia| MassProperties::of(&Body::new(mass, inertia).with_cg(cg));
        match part(mass, cg, inertia)
            .zip(part(m, c, j))
            .and_then(|(a, b)| a.combined(&b))
        {
            Some(both) => (both.mass, both.cg, both.inertia_cg),
            // A singular inertia (a point mass, a thin rod) has no MassProperties (they hold the
            // inverse): the parallel-axis sum itself.
            None => parallel_axis_sum((mass, cg, inertia), (m, c, j)),
        }
    })
}

/// Two bodies' mass, CG and inertia about the CG as one body's: the masses add, the CG is the
/// mass-weighted mean, the inertias add about it (parallel axes, m(|d|² E − d dᵀ)).
fn parallel_axis_sum(
    (m1, c1, j1): (f64, Vec3<f64>, Mat3<f64>),
    (m2, c2, j2): (f64, Vec3<f64>, Mat3<f64>),
) -> (f64, Vec3<f64>, Mat3<f64>) {
    let mass = m1 + m2;
    let cg = (c1 * m1 + c2 * m2) * (1.0 / mass);
    let shift = |m: f64, d: Vec3<f64>| {
        (Mat3::IDENTITY.scale(d.norm_squared()) + Mat3::outer(d, d).scale(-1.0)).scale(m)
    };
    (mass, cg, j1 + j2 + shift(m1, c1 - cg) + shift(m2, c2 - cg))
}

/// The scene's contact shapes and pair materials on the links that carry their bodies (shape
/// poses in link frames; a body welded to the ground is the ground), for a contact world of
/// the tree's links. Two bodies on one link are one body for contact: their shapes do not
/// meet, and a pair material of either applies to the link.
pub fn contact_on_links(spec: &ContactSpec, bodies: &[LinkBody]) -> ContactSpec {
    let link = |body: Option<usize>| body.and_then(|b| bodies.get(b)).and_then(|on| on.link);
    let mut on_links = spec.clone();
    for shape in &mut on_links.shapes {
        if let Some(on) = shape.body.and_then(|b| bodies.get(b)) {
            shape.position = on.offset + on.orientation.rotate(shape.position);
            shape.orientation = on.orientation.mul(&shape.orientation);
            shape.body = on.link;
        }
    }
    for pair in &mut on_links.pairs {
        (pair.0, pair.1) = (link(pair.0), link(pair.1));
    }
    on_links
}

/// A scene force element on the links that carry its `bodies`: body indices become link
/// indices, body points and body-axis directions the link's. `None` for what is not a link
/// element: a rotational spring-damper (the link's own spring) or a load on a body welded to
/// the ground (it does nothing). A spring end on a body welded to the ground is on the ground.
fn on_links(force: Force<f64>, bodies: &[LinkBody]) -> Option<Force<f64>> {
    let point = |on: &LinkBody, p: Vec3<f64>| on.offset + on.orientation.rotate(p);
    let direction = |on: &LinkBody, axes: Axes, d: Vec3<f64>| match axes {
        Axes::Global => d,
        Axes::Body => on.orientation.rotate(d),
    };
    let end = |side: BodyRef, p: Vec3<f64>| match side {
        BodyRef::Ground => Some((BodyRef::Ground, p)),
        BodyRef::Body(b) => {
            let on = bodies.get(b)?;
            Some((on.link.map_or(BodyRef::Ground, BodyRef::Body), point(on, p)))
        }
    };
    match force {
        Force::Point {
            body,
            point: p,
            direction: d,
            axes,
            function,
        } => {
            let on = bodies.get(body)?;
            Some(Force::Point {
                body: on.link?,
                point: point(on, p),
                direction: direction(on, axes, d),
                axes,
                function,
            })
        }
        Force::Torque {
            body,
            direction: d,
            axes,
            function,
        } => {
            let on = bodies.get(body)?;
            Some(Force::Torque {
                body: on.link?,
                direction: direction(on, axes, d),
                axes,
                function,
            })
        }
        Force::SpringDamper {
            body_i,
            point_i,
            body_j,
            point_j,
            stiffness,
            damping,
            rest_length,
        } => {
            let ((body_i, point_i), (body_j, point_j)) = (end(body_i, point_i)?, end(body_j, point_j)?);
            Some(Force::SpringDamper {
                body_i,
                point_i,
                body_j,
                point_j,
                stiffness,
                damping,
                rest_length,
            })
        }
        Force::RotationalSpringDamper { .. }
        | Force::TranslationalSpringDamper { .. }
        | Force::JointLimit { .. } => None,
    }
}

/// The tree coordinate of revolute or prismatic `joint` (carrying `link`) at which the scene's
/// coordinate is `rest_angle`. The scene's angle is frame j against frame i about z_i (its
/// slide, origin j from origin i along z_i); the tree's coordinate is 0 at the initial
/// configuration and turns (moves) the child about (along) z_i, so body i as the child turns
/// the scene's coordinate back.
fn joint_rest(model: &RigidModel, data: &RigidData, joint: usize, link: &TreeLink, rest_angle: f64) -> f64 {
    let (start, _) = joint_coordinate(model, data, joint).unwrap_or((0.0, 0.0));
    let sign = if model.joints()[joint].body_i == BodyRef::Body(link.body) {
        -1.0
    } else {
        1.0
    };
    sign * (rest_angle - start)
}

/// The link of a scene `joint` between `parent` and `child` at `anchor`, and its initial rates.
fn joint_link(
    joint: &Joint<f64>,
    parent_link: Option<usize>,
    origin: Vec3<f64>,
    data: &RigidData,
    parent: BodyRef,
    child: BodyRef,
    anchor: Vec3<f64>,
) -> (Link<f64>, Vec<f64>) {
    let omega = angular_velocity(data, child) - angular_velocity(data, parent);
    let velocity = anchor_velocity(data, child, anchor) - anchor_velocity(data, parent, anchor);
    let axis = |k: usize, body: BodyRef, frame: &Frame<f64>| world_axis(data, body, frame, k);
    // Revolute, prismatic and cylindrical joints turn about / slide along z of frame i.
    let z = axis(2, joint.body_i, &joint.frame_i);
    match joint.kind {
        JointKind::Prismatic => (Link::prismatic(parent_link, origin, z), vec![z.dot(velocity)]),
        JointKind::Cylindrical => (
            Link::cylindrical(parent_link, origin, z),
            vec![z.dot(omega), z.dot(velocity)],
        ),
        JointKind::Universal => {
            // The cross turns about x of frame i (fixed in body i) and y of frame j (fixed in
            // body j): the parent's axis first.
            let (x_i, y_j) = (
                axis(0, joint.body_i, &joint.frame_i),
                axis(1, joint.body_j, &joint.frame_j),
            );
            let (first, second) = if parent == joint.body_i {
                (x_i, y_j)
            } else {
                (y_j, x_i)
            };
            (
                Link::universal(parent_link, origin, first, second),
                vec![first.dot(omega), second.dot(omega)],
            )
        }
        JointKind::Spherical => (Link::spherical(parent_link, origin), omega.to_array().to_vec()),
        _ => (Link::revolute(parent_link, origin, z), vec![z.dot(omega)]),
    }
}

/// The initial rates of a floating base: its origin's velocity and its angular velocity, both
/// relative to `parent` in world axes.
fn free_rates(data: &RigidData, parent: BodyRef, child: BodyRef, anchor: Vec3<f64>) -> Vec<f64> {
    let velocity = anchor_velocity(data, child, anchor) - anchor_velocity(data, parent, anchor);
    let omega = angular_velocity(data, child) - angular_velocity(data, parent);
    [velocity.to_array(), omega.to_array()].concat()
}

/// Axis `k` (0 x, 1 y, 2 z) of `frame` on `body`, in world axes.
fn world_axis(data: &RigidData, body: BodyRef, frame: &Frame<f64>, k: usize) -> Vec3<f64> {
    let axis = frame.axes.column(k);
    match body {
        BodyRef::Ground => axis,
        BodyRef::Body(b) => data.orientation(b).rotate(axis),
    }
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

/// A tree build error about a loop joint names the scene's joint `index`.
fn rename_loop(e: ferrodyn_kernel::BuildError, index: usize) -> ferrodyn_kernel::BuildError {
    use ferrodyn_kernel::{BuildError, Item};
    match e {
        BuildError::InvalidParameter { reason, .. } => BuildError::InvalidParameter {
            item: Item::Joint(index),
            reason,
        },
        BuildError::SameBody { .. } => BuildError::SameBody {
            item: Item::Joint(index),
        },
        BuildError::NonFinite { .. } => BuildError::NonFinite {
            item: Item::Joint(index),
        },
        BuildError::ZeroLengthAxis { .. } => BuildError::ZeroLengthAxis {
            item: Item::Joint(index),
        },
        other => other,
    }
}

/// A tree build error names tendon k as the kernel counts them; the scene's is the same.
fn rename_tendon(e: ferrodyn_kernel::BuildError, index: usize) -> ferrodyn_kernel::BuildError {
    use ferrodyn_kernel::{BuildError, Item};
    match e {
        BuildError::CapacityExceeded { .. } => e,
        BuildError::NonFinite { .. } => BuildError::NonFinite {
            item: Item::Tendon(index),
        },
        BuildError::InvalidParameter { reason, .. } => BuildError::InvalidParameter {
            item: Item::Tendon(index),
            reason,
        },
        other => other,
    }
}

/// A tree build error names link k; the scene knows that link as its body and joint.
fn rename(e: ferrodyn_kernel::BuildError, link: &TreeLink) -> ferrodyn_kernel::BuildError {
    use ferrodyn_kernel::{BuildError, Item};
    let item = |item: Item| match item {
        Item::Body(_) => Item::Body(link.body),
        Item::Joint(_) => link.joint.map_or(Item::Body(link.body), Item::Joint),
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
