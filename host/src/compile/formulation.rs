//! Joint or Cartesian coordinates for a scene's rigid part: the compiler uses joint
//! coordinates (the kernel's tree: a joint's own coordinates, O(n) dynamics) when the rigid
//! bodies and the joints the tree model has (revolute, prismatic, cylindrical, universal,
//! spherical; a body joined to nothing above it is a floating base on a free joint; a fixed
//! joint welds its body into the link it hangs from) span trees, and nothing in the scene acts
//! on Cartesian bodies; Cartesian coordinates otherwise. The joints cut from the spanning tree
//! (the one whose cuts cost the fewest rows: `spanning`) close loops, and every distance joint
//! is one: they become constraint rows on the tree's coordinates ([`loop_joints`]). The reason
//! is kept for `check` and the run's header, and `formulation = "tree"` turns it into an error
//! naming the item.

use crate::scene::{ErrorKind, ItemName, Scene, SceneError};
use crate::spec::{Formulation, IntegratorSpec};
use ferrodyn_kernel::rigid::{DrivenCoordinate, Force, JointKind};
use ferrodyn_kernel::tree::JointFriction;
use ferrodyn_kernel::JointLimit;

mod spanning;

pub use spanning::fewest_loop_rows;
use spanning::spanning_tree;

/// A body moved by one tree link: the joint that carries it, the link it hangs from, and the
/// bodies welded to it (fixed joints), whose mass the link carries.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeLink {
    /// The scene body (index).
    pub body: usize,
    /// The scene joint between it and its parent (index), `None` for a floating base (a free
    /// joint to the ground).
    pub joint: Option<usize>,
    /// The parent link (index into the links), `None` for the ground.
    pub parent: Option<usize>,
    /// Viscous damping of the joint (N·m·s/rad or N·s/m), from the rotational or translational
    /// spring-dampers on it.
    pub damping: f64,
    /// The joint's armature (rotor inertia per coordinate), from its `armature`.
    pub armature: f64,
    /// The joint's friction, from its `friction` and `friction_velocity`.
    pub friction: JointFriction<f64>,
    /// The joint's spring (from the rotational or translational spring-dampers on it):
    /// stiffness (N·m/rad or N/m) and rest coordinate (the scene's: frame j against frame i
    /// about z_i, or origin j from origin i along it), the stiffness-weighted mean of several
    /// springs' rest coordinates.
    pub spring: (f64, f64),
    /// The joint's limit (from its `limits`), in the scene's coordinate (the rotational
    /// spring's angle, or the slide of origin j from origin i along z_i).
    pub limit: Option<JointLimit<f64>>,
    /// Scene bodies (indices) welded to this link's body by fixed joints, directly or through
    /// each other. A body welded to the ground is on no link: it stays where it is.
    pub welded: Vec<usize>,
}

impl TreeLink {
    /// The link of `body` on `joint` (`None`: a floating base) hanging from `parent`, without
    /// damping, spring or welded bodies.
    fn new(body: usize, joint: Option<usize>, parent: Option<usize>) -> Self {
        Self {
            body,
            joint,
            parent,
            damping: 0.0,
            armature: 0.0,
            friction: JointFriction::default(),
            spring: (0.0, 0.0),
            limit: None,
            welded: Vec::new(),
        }
    }
}

/// The link (index) that each scene joint carries, `None` for a joint that carries none (a
/// fixed joint): joint `j`'s at `[j]` of a list as long as the scene's joints.
pub fn link_of_joints(links: &[TreeLink], joints: usize) -> Vec<Option<usize>> {
    let mut link_of = vec![None; joints];
    for (k, link) in links.iter().enumerate() {
        if let Some(slot) = link.joint.and_then(|j| link_of.get_mut(j)) {
            *slot = Some(k);
        }
    }
    link_of
}

/// How the compiler describes the rigid part, and why.
#[derive(Clone, Debug, PartialEq)]
pub enum Choice {
    /// Joint coordinates: the links in tree order (every parent before its children).
    Tree(Vec<TreeLink>),
    /// Cartesian coordinates, for the reason given (`None` when the scene asked for them).
    Cartesian(Option<Blocker>),
}

/// What keeps a scene from joint coordinates: the item (if one) and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Blocker {
    /// The scene item, with its line.
    pub item: Option<(ItemName, usize)>,
    /// Why.
    pub reason: String,
}

impl std::fmt::Display for Blocker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.item {
            Some((item, _)) => write!(f, "{item}: {}", self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl Choice {
    /// One line for `check` and the run header: the formulation and why.
    pub fn describe(&self) -> String {
        match self {
            Self::Tree(links) => {
                let bases = links.iter().filter(|l| l.joint.is_none()).count();
                let joints = links.len() - bases;
                let plural =
                    |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
                let welded: usize = links.iter().map(|l| l.welded.len()).sum();
                let welded = match welded {
                    0 => String::new(),
                    n => format!(
                        " with {} on (fixed joints)",
                        plural(n, "body welded", "bodies welded")
                    ),
                };
                let shape = match bases {
                    0 => format!(
                        "joint coordinates (tree): {} an open tree from the ground",
                        plural(joints, "joint forms", "joints form")
                    ),
                    _ => format!(
                        "joint coordinates (tree): {} and {} form open trees",
                        plural(joints, "joint", "joints"),
                        plural(bases, "floating base", "floating bases")
                    ),
                };
                shape + &welded
            }
            Self::Cartesian(None) => "Cartesian coordinates (asked for by the scene)".into(),
            Self::Cartesian(Some(b)) => format!("Cartesian coordinates: {b}"),
        }
    }
}

/// The formulation of `scene`'s rigid part. `formulation = "tree"` that cannot be met is an
/// error naming the item in the way and the reason.
pub fn choose(scene: &Scene) -> Result<Choice, SceneError> {
    let choice = match scene.simulation.formulation {
        Formulation::Cartesian => return with_inputs(scene, Choice::Cartesian(None)),
        _ => tree_links(scene).map_or_else(|b| Choice::Cartesian(Some(b)), Choice::Tree),
    };
    match (&choice, scene.simulation.formulation) {
        (Choice::Cartesian(Some(b)), Formulation::Tree) => {
            let kind = ErrorKind::Invalid {
                field: "formulation",
                reason: format!("\"tree\" is not possible: {}", b.reason),
            };
            let (item, line) = match &b.item {
                Some((item, line)) => (item.clone(), Some(*line)),
                None => (ItemName::new("simulation", ""), None),
            };
            Err(scene.source.error(line, Some(item), kind))
        }
        _ => with_inputs(scene, choice),
    }
}

/// `choice`, unless it is Cartesian and the scene has couplings, inputs, tendons or bodies that run in
/// joint coordinates only (massless, singular inertia): an error naming the first of them and
/// why the scene is Cartesian.
fn with_inputs(scene: &Scene, choice: Choice) -> Result<Choice, SceneError> {
    let Choice::Cartesian(why) = &choice else {
        return Ok(choice);
    };
    let why = why
        .as_ref()
        .map_or("the scene asks for them".into(), Blocker::to_string);
    let cartesian = format!("this scene is in Cartesian coordinates ({why})");
    let first = |what: &str, item: Option<(ItemName, usize)>| {
        let (item, line) = item?;
        let kind = ErrorKind::Invalid {
            field: "joint",
            reason: format!("{what} act on joint coordinates, and {cartesian}"),
        };
        Some(scene.source.error(Some(line), Some(item), kind))
    };
    let coupling = scene.couplings.first().map(|c| (c.item(), c.line));
    let input = scene.inputs.first().map(|i| (i.item(), i.line));
    let tendon = scene.tendons.first().map(|t| (t.item(), t.line));
    let rotor = (scene.joints.iter().zip(&scene.armature))
        .find(|(_, &ia)| ia != 0.0)
        .map(|(j, _)| (j.item(), j.line));
    let friction = (scene.joints.iter().zip(&scene.friction))
        .find(|(_, f)| f.is_some())
        .map(|(j, _)| (j.item(), j.line));
    let first_error = first("couplings", coupling)
        .or_else(|| first("inputs", input))
        .or_else(|| first("tendons", tendon))
        .or_else(|| first("armatures (rotor inertias on a joint's coordinates)", rotor))
        .or_else(|| first("joint friction forces", friction));
    if let Some(error) = first_error {
        return Err(error);
    }
    if let Some((body, why)) = crate::scene::first_tree_only(&scene.bodies) {
        let kind = ErrorKind::Invalid {
            field: "mass",
            reason: format!("{why} runs in joint coordinates only (on the tree), and {cartesian}"),
        };
        return Err(scene.source.error(Some(body.line), Some(body.item()), kind));
    }
    Ok(choice)
}

/// The scene's rigid bodies as tree links, or what keeps them from it.
fn tree_links(scene: &Scene) -> Result<Vec<TreeLink>, Blocker> {
    let whole = |reason: &str| Blocker {
        item: None,
        reason: reason.into(),
    };
    if !scene.flexibles.is_empty() {
        return Err(whole("flexible bodies are coupled to Cartesian rigid bodies"));
    }
    if let Some(reason) = implicit_blocker(&scene.simulation.integrator) {
        return Err(whole(reason));
    }
    for joint in &scene.joints {
        let kind = joint.value.kind;
        let on_tree = in_tree(&kind)
            || matches!(
                kind,
                JointKind::Fixed | JointKind::Distance { .. } | JointKind::Driving { .. }
            );
        if !on_tree {
            return Err(Blocker {
                item: Some((joint.item(), joint.line)),
                reason: format!(
                    "a {} joint; the tree has revolute, prismatic, cylindrical, universal, spherical, fixed and distance joints",
                    kind.name()
                ),
            });
        }
    }
    let mut links = spanning_tree(scene).links;
    let link_of = link_of_joints(&links, scene.joints.len());
    for ((joint, &armature), link) in scene.joints.iter().zip(&scene.armature).zip(&link_of) {
        match (armature != 0.0, link) {
            (false, _) => {}
            (true, Some(k)) => links[*k].armature = armature,
            (true, None) => {
                return Err(Blocker {
                    item: Some((joint.item(), joint.line)),
                    reason: "its armature is a rotor inertia on a joint coordinate of the tree, and this joint closes a loop on it".into(),
                })
            }
        }
    }
    for ((joint, &friction), link) in scene.joints.iter().zip(&scene.friction).zip(&link_of) {
        match (friction.is_some(), link) {
            (false, _) => {}
            (true, Some(k)) => links[*k].friction = friction,
            (true, None) => return Err(Blocker {
                item: Some((joint.item(), joint.line)),
                reason:
                    "its friction acts on a joint coordinate of the tree, and this joint closes a loop on it"
                        .into(),
            }),
        }
    }
    for (index, joint) in scene.joints.iter().enumerate() {
        if matches!(joint.value.kind, JointKind::Driving { .. })
            && driven_link(scene, &links, index).is_none()
        {
            return Err(Blocker {
                item: Some((joint.item(), joint.line)),
                reason: "a drive acts on the tree's revolute (rotation) or prismatic (translation) joint \
                         between its two bodies, about or along that joint's axis; this drive has none"
                    .into(),
            });
        }
    }
    for force in &scene.forces {
        let blocked = |reason: &str| Blocker {
            item: Some((force.item(), force.line)),
            reason: reason.into(),
        };
        // The link a joint element acts on: none for a joint closing a loop, which has no
        // coordinate of its own on the tree.
        let link_at = |joint: usize, what: &str| {
            link_of.get(joint).copied().flatten().ok_or_else(|| {
                blocked(&format!(
                    "its joint closes a loop on the tree, and the tree's {what} act on the tree's own joints"
                ))
            })
        };
        if let Force::JointLimit { joint, limit } = force.value {
            links[link_at(joint, "joint limits")?].limit = Some(limit);
            continue;
        }
        // Applied forces and spring-dampers act on the links (`tree::Forces`).
        let (joint, stiffness, damping, rest_angle, kind) = match force.value {
            Force::RotationalSpringDamper {
                joint,
                stiffness,
                damping,
                rest_angle,
            } => (joint, stiffness, damping, rest_angle, JointKind::Revolute),
            Force::TranslationalSpringDamper {
                joint,
                stiffness,
                damping,
                rest_position,
            } => (joint, stiffness, damping, rest_position, JointKind::Prismatic),
            _ => continue,
        };
        if scene.joints[joint].value.kind != kind {
            return Err(blocked(&format!(
                "the tree's joint springs and dampers act on revolute (rotational) and prismatic (translational) joints; this one is on a {} joint",
                scene.joints[joint].value.kind.name()
            )));
        }
        let link = &mut links[link_at(joint, "joint springs and dampers")?];
        link.damping += damping;
        let (k, rest) = link.spring;
        if stiffness != 0.0 {
            link.spring = (
                k + stiffness,
                (k * rest + stiffness * rest_angle) / (k + stiffness),
            );
        }
    }
    Ok(links)
}

/// Whether the tree has joints of `kind`.
fn in_tree(kind: &JointKind<f64>) -> bool {
    matches!(
        kind,
        JointKind::Revolute
            | JointKind::Prismatic
            | JointKind::Cylindrical
            | JointKind::Universal
            | JointKind::Spherical
    )
}

/// The joints closing loops on the tree of `links` that [`choose`] picked for `scene` (in
/// the order the tree grows, distance joints last): each becomes constraint rows on the tree's
/// coordinates.
pub fn loop_joints(scene: &Scene, links: &[TreeLink]) -> Vec<usize> {
    // Every joint but the drives carries a link: none is left to close a loop, and the
    // spanning tree need not be grown again (3 % of a large chain's check).
    let carried = links.iter().filter(|l| l.joint.is_some()).count();
    let drives = scene
        .joints
        .iter()
        .filter(|j| matches!(j.value.kind, JointKind::Driving { .. }));
    if carried + drives.count() == scene.joints.len() {
        return Vec::new();
    }
    spanning_tree(scene).loops
}

/// The link whose joint scene drive `drive` moves: the link of the revolute (a rotation drive)
/// or prismatic (a translation drive) joint between the drive's two bodies whose axis (z of its
/// frame on the drive's body i) is the drive's z_i, in body i's coordinates. `None` if the
/// tree has no such link.
pub fn driven_link(scene: &Scene, links: &[TreeLink], drive: usize) -> Option<usize> {
    // Callers ask of every scene joint: the scan over the links is for drives only (asked of
    // all n joints of a chain it would be n² work).
    let is_drive = scene
        .joints
        .get(drive)
        .is_some_and(|d| matches!(d.value.kind, JointKind::Driving { .. }));
    if !is_drive {
        return None;
    }
    links
        .iter()
        .position(|link| link.joint.is_some_and(|joint| drives_joint(scene, drive, joint)))
}

/// Whether scene drive `drive` can drive scene joint `joint`: a revolute (a rotation drive) or
/// prismatic (a translation drive) joint between the drive's two bodies whose axis (z of its
/// frame on the drive's body i) is the drive's z_i, in body i's coordinates.
fn drives_joint(scene: &Scene, drive: usize, joint: usize) -> bool {
    let (Some(d), Some(j)) = (scene.joints.get(drive), scene.joints.get(joint)) else {
        return false;
    };
    let (d, j) = (&d.value, &j.value);
    let JointKind::Driving { coordinate, .. } = d.kind else {
        return false;
    };
    let wanted = match coordinate {
        DrivenCoordinate::Rotation => JointKind::Revolute,
        DrivenCoordinate::Translation => JointKind::Prismatic,
    };
    // The joint's frame on the drive's body i (its frames' z axes coincide when assembled).
    let frame = match (
        j.body_i == d.body_i && j.body_j == d.body_j,
        j.body_i == d.body_j && j.body_j == d.body_i,
    ) {
        (true, _) => &j.frame_i,
        (_, true) => &j.frame_j,
        _ => return false,
    };
    j.kind == wanted && frame.axes.column(2).cross(d.frame_i.axes.column(2)).norm() <= 1e-9
}

/// What keeps `integrator` from the tree, if anything. BDF1/2, generalized-α, HHT and Newmark
/// all run on the tree's coordinates (`dae`: HHT/Newmark as the α recurrence with α_m = 0);
/// the retry of a failed step in halves is the Cartesian implicit solver's alone.
fn implicit_blocker(integrator: &IntegratorSpec) -> Option<&'static str> {
    match integrator {
        IntegratorSpec::Hht(o) if o.max_halvings > 0 => Some(
            "max_halvings (retrying a failed step in halves) is the Cartesian implicit multibody solver's",
        ),
        _ => None,
    }
}
