//! URDF → scene draft: links become bodies placed where the joints put them at zero joint
//! coordinates, joints get a frame on each body whose z axis is the joint axis (so the model is
//! assembled at t = 0), `<dynamics damping>` becomes a joint damper (rotational on a revolute
//! joint, translational on a prismatic one) and `<dynamics friction>` the joint's `friction`
//! (Coulomb friction smoothed over the default velocity).
//!
//! The mapping, link by link along the tree from the root:
//! - the root link, and every link welded to it by fixed joints, is the ground (the base is
//!   fixed) unless `--floating-base` is given; a `floating` joint leaves its child free;
//! - a link without mass on a fixed joint is a frame of its parent's body (its children hang
//!   from that body); with mass it is a body on a scene `fixed` joint (compile decides how it
//!   runs; nothing is merged here);
//! - revolute, continuous and prismatic joints are scene revolute and prismatic joints;
//! - a planar joint is the chain prismatic `J_x`, prismatic `J_y`, revolute `J` through two
//!   massless bodies `J_x` and `J_y` (`add_planar`).
//!
//! A `<mimic>` is a `[[coupling]]` of the scene. A link without mass that moves is a massless
//! body (joint coordinates only) while it carries a link with mass. Refused by name (errors
//! with the line): transmissions that couple passive joints (PR2's gripper) or
//! of unknown type, a massless link that moves and carries no mass. Transmissions that only map
//! actuators onto joints are noted as actuation not imported. Noted as not modelled: friction on
//! joints other than revolute and prismatic. `<limit lower upper>` becomes the scene joint's `limits` (default end stops). Ignored and listed: visual geometry and unknown elements.

use super::draft::{Draft, DraftBody, DraftCoupling, DraftGeometry, DraftJoint, DraftJointKind, DraftShape};
use super::error::{ImportError, ImportErrorKind};
use super::package::resolve;
use super::pose::{rotate_inertia, z_onto, Pose};
use super::report::ImportReport;
use super::xml::{child, elements, At, XmlFile};
use super::ImportOptions;
use ferrodyn_kernel::math::{Mat3, Vec3};
use roxmltree::Node;
use std::collections::HashMap;

/// The note of a link without mass but with a rotational inertia, made a frame.
pub const DROPPED_INERTIA: &str =
    "rotational inertia of links without mass (dropped: a scene body needs mass)";

/// A link's `<inertial>`: mass, CG and inertia about the CG in link axes.
struct Inertial {
    mass: f64,
    cg: Vec3<f64>,
    inertia: Mat3<f64>,
}

struct Link<'a, 'i> {
    at: At<'a, 'i>,
    name: &'a str,
    inertial: Option<Inertial>,
    collisions: Vec<Node<'a, 'i>>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Motion {
    Revolute,
    Prismatic,
    Fixed,
    Floating,
    /// Motion in the plane normal to the axis: two translations and the turn about the axis.
    Planar,
}

struct Joint<'a, 'i> {
    at: At<'a, 'i>,
    name: &'a str,
    motion: Motion,
    origin: Pose,
    parent: usize,
    child: usize,
    axis: Vec3<f64>,
    damping: f64,
    /// `<dynamics friction>` (N·m or N).
    friction: f64,
    /// `<limit lower upper>` of a revolute or prismatic joint (a missing end is 0, as the
    /// format says); `None` without either.
    limits: Option<[f64; 2]>,
    /// `<mimic joint multiplier offset>`: the joint followed, m, c and the element's line.
    mimic: Option<(&'a str, f64, f64, usize)>,
}

/// Which body carries a link, and where the link's frame sits in it.
#[derive(Clone)]
struct Carrier {
    /// Body name; `None`: the ground.
    body: Option<String>,
    /// The link frame in the carrier's frame (global for the ground).
    pose: Pose,
}

/// The draft of the URDF `file`.
pub fn import(
    file: &XmlFile,
    options: &ImportOptions,
    report: &mut ImportReport,
) -> Result<Draft, ImportError> {
    let doc = file.parse()?;
    let root = At::new(&file.path, doc.root_element());
    if root.node.tag_name().name() != "robot" {
        return Err(root.invalid("the root element of a URDF file must be <robot>"));
    }
    let mut links: Vec<Link> = Vec::new();
    let mut raw_joints = Vec::new();
    for node in elements(root.node) {
        let at = root.at(node);
        match node.tag_name().name() {
            "link" => {
                let link = read_link(at, report)?;
                if let Some(first) = links.iter().find(|l| l.name == link.name) {
                    return Err(
                        at.invalid(format!("duplicate link name (first at line {})", first.at.line()))
                    );
                }
                links.push(link);
            }
            "joint" => raw_joints.push(at),
            "transmission" => check_transmission(at, report)?,
            other => report.ignore(other, at.line()),
        }
    }
    let index: HashMap<&str, usize> = links.iter().enumerate().map(|(k, l)| (l.name, k)).collect();
    let mut joints = Vec::new();
    for at in raw_joints {
        joints.push(read_joint(at, &index, report)?);
    }
    let order = tree_order(&root, &links, &joints)?;
    let mut draft = Draft {
        model: root.node.attribute("name").unwrap_or("").to_string(),
        gravity: [0.0, 0.0, -9.81],
        ..Draft::default()
    };
    let mut carriers: Vec<Option<Carrier>> = vec![None; links.len()];
    let mut world: Vec<Pose> = vec![Pose::IDENTITY; links.len()];
    let (root_link, _) = order[0];
    // Planar joints: a <mimic> cannot follow one (it has three coordinates).
    let mut planar = Vec::new();
    carriers[root_link] = Some(if options.floating_base {
        add_body(&mut draft, &links[root_link], Pose::IDENTITY, report);
        report.fact(format!(
            "floating base: link \"{}\" (--floating-base)",
            links[root_link].name
        ));
        Carrier {
            body: Some(links[root_link].name.to_string()),
            pose: Pose::IDENTITY,
        }
    } else {
        Carrier {
            body: None,
            pose: Pose::IDENTITY,
        }
    });
    for &(link, joint) in &order[1..] {
        let Some(j) = joint.map(|k| &joints[k]) else {
            continue;
        };
        // Tree order puts parents first, so the parent's carrier is known.
        let Some(parent) = carriers[j.parent].clone() else {
            return Err(j.at.invalid("the parent link is not placed before its child"));
        };
        world[link] = world[j.parent].then(&j.origin);
        let at_joint = parent.pose.then(&j.origin);
        let l = &links[link];
        let carrier = match j.motion {
            Motion::Fixed if parent.body.is_none() => {
                report.fact(format!(
                    "link \"{}\" is welded to the fixed base: part of the ground",
                    l.name
                ));
                Carrier {
                    body: None,
                    pose: at_joint,
                }
            }
            Motion::Fixed if !has_mass(l) => {
                if l.inertial.as_ref().is_some_and(|i| i.inertia != Mat3::ZERO) {
                    report.not_modelled(DROPPED_INERTIA, l.name);
                }
                report.fact(format!(
                    "massless link \"{}\" (fixed joint \"{}\") is a frame of body \"{}\"",
                    l.name,
                    j.name,
                    parent.body.as_deref().unwrap_or("ground")
                ));
                Carrier {
                    body: parent.body.clone(),
                    pose: at_joint,
                }
            }
            Motion::Planar => {
                add_planar(&mut draft, j, l, &parent, at_joint, world[link], report);
                planar.push(j.name);
                Carrier {
                    body: Some(l.name.to_string()),
                    pose: Pose::IDENTITY,
                }
            }
            Motion::Floating => {
                add_body(&mut draft, l, world[link], report);
                report.fact(format!(
                    "floating base: link \"{}\" (floating joint \"{}\")",
                    l.name, j.name
                ));
                Carrier {
                    body: Some(l.name.to_string()),
                    pose: Pose::IDENTITY,
                }
            }
            motion => {
                add_body(&mut draft, l, world[link], report);
                let (kind, turn) = match motion {
                    Motion::Revolute => (DraftJointKind::Revolute, z_onto(j.axis)),
                    Motion::Prismatic => (DraftJointKind::Prismatic, z_onto(j.axis)),
                    _ => (DraftJointKind::Fixed, Pose::IDENTITY.q),
                };
                let axis_frame = Pose::new(Vec3::ZERO, turn);
                draft.joints.push(DraftJoint {
                    name: j.name.to_string(),
                    line: j.at.line(),
                    kind,
                    body_i: parent.body.clone(),
                    body_j: l.name.to_string(),
                    frame_i: at_joint.then(&axis_frame),
                    frame_j: axis_frame,
                    limits: j.limits,
                    armature: 0.0,
                    friction: j.friction,
                });
                if let Some((follows, multiplier, offset, line)) = j.mimic {
                    draft.couplings.push(DraftCoupling {
                        name: format!("{}.mimic", j.name),
                        line,
                        joint: j.name.to_string(),
                        follows: follows.to_string(),
                        multiplier,
                        offset,
                    });
                }
                if j.damping > 0.0 && matches!(motion, Motion::Revolute | Motion::Prismatic) {
                    draft.dampers.push((j.name.to_string(), j.damping, j.at.line()));
                }
                Carrier {
                    body: Some(l.name.to_string()),
                    pose: Pose::IDENTITY,
                }
            }
        };
        carriers[link] = Some(carrier);
    }
    if let Some(leaf) = massless_leaf(&draft, &links) {
        return Err(leaf.at.refused(
            "link has no mass, moves and carries no link with mass: its joint moves no inertia (give it an <inertial>)",
        ));
    }
    let mut collisions = 0;
    for (k, l) in links.iter().enumerate() {
        let Some(carrier) = carriers[k].as_ref() else {
            continue;
        };
        for (n, &node) in l.collisions.iter().enumerate() {
            collisions += 1;
            if options.collision {
                let name = match node.attribute("name") {
                    Some(name) => format!("{}.{name}", l.name),
                    None => format!("{}.collision{n}", l.name),
                };
                draft.shapes.push(collision_shape(
                    l.at.at(node),
                    name,
                    carrier,
                    &options.package_paths,
                )?);
            }
        }
    }
    if collisions > 0 && !options.collision {
        report.fact(format!(
            "{collisions} <collision> geometries not imported as contact shapes (give --collision)"
        ));
    }
    draft.couplings.retain(|c| {
        let follows_planar = planar.contains(&c.follows.as_str());
        if follows_planar {
            report.fact(format!(
                "<mimic> of joint \"{}\" (line {}) ignored: it follows planar joint \"{}\", which has three coordinates",
                c.joint, c.line, c.follows
            ));
        }
        !follows_planar
    });
    without_orphan_mimics(&mut draft, report);
    Ok(draft)
}

/// A planar joint `j` carrying link `l`: motion in the plane normal to its axis n (two
/// translations, then the turn about n, as Pinocchio's planar joint composes them) as the chain
/// prismatic `J_x` → massless body `J_x` → prismatic `J_y` → massless body `J_y` → revolute `J`
/// → the link. The slides run along x and y of the joint frame turned so its z is n (the
/// shortest turn: the joint frame's own x and y when n is z). The massless bodies sit at the
/// link's frame and carry the link, so the tree gives every coordinate the link's inertia
/// (massless links: joint coordinates only). The joint's damping is noted as not modelled.
fn add_planar(
    draft: &mut Draft,
    j: &Joint,
    l: &Link,
    parent: &Carrier,
    at_joint: Pose,
    world: Pose,
    report: &mut ImportReport,
) {
    let turn = z_onto(j.axis);
    let along = |v: Vec3<f64>| Pose::new(Vec3::ZERO, z_onto(turn.rotate(v)));
    let chain = [
        (format!("{}_x", j.name), DraftJointKind::Prismatic, along(Vec3::X)),
        (format!("{}_y", j.name), DraftJointKind::Prismatic, along(Vec3::Y)),
        (
            j.name.to_string(),
            DraftJointKind::Revolute,
            Pose::new(Vec3::ZERO, turn),
        ),
    ];
    let (mut body_i, mut base) = (parent.body.clone(), at_joint);
    for (k, (name, kind, axis_frame)) in chain.into_iter().enumerate() {
        let body_j = if k < 2 {
            draft.bodies.push(DraftBody {
                name: name.clone(),
                line: j.at.line(),
                mass: 0.0,
                inertia: Mat3::ZERO,
                cg: Vec3::ZERO,
                pose: world,
            });
            name.clone()
        } else {
            add_body(draft, l, world, report);
            l.name.to_string()
        };
        draft.joints.push(DraftJoint {
            name,
            line: j.at.line(),
            kind,
            body_i,
            body_j: body_j.clone(),
            frame_i: base.then(&axis_frame),
            frame_j: axis_frame,
            limits: None,
            armature: 0.0,
            friction: 0.0,
        });
        (body_i, base) = (Some(body_j), Pose::IDENTITY);
    }
    report.fact(format!(
        "planar joint \"{0}\": prismatic \"{0}_x\", prismatic \"{0}_y\" and revolute \"{0}\" through massless bodies \"{0}_x\" and \"{0}_y\" (joint coordinates only)",
        j.name
    ));
    if j.damping > 0.0 {
        report.not_modelled("damping of planar joints", j.name);
    }
}

/// Leaves out each `<mimic>` whose followed joint is not a moving joint of the model (Alex's
/// psyonic hands follow `index_q1`, which the file does not have): the joint moves freely, as
/// Pinocchio 4.1 loads the file (its default reader ignores `<mimic>`; asked to read them, it
/// refuses the file: "The parent joint of the mimic joint is not in the kinematic tree").
fn without_orphan_mimics(draft: &mut Draft, report: &mut ImportReport) {
    let moving = |name: &str| {
        draft
            .joints
            .iter()
            .any(|j| j.name == name && matches!(j.kind, DraftJointKind::Revolute | DraftJointKind::Prismatic))
    };
    let (kept, orphans): (Vec<_>, Vec<_>) = std::mem::take(&mut draft.couplings)
        .into_iter()
        .partition(|c| moving(&c.follows));
    for c in orphans {
        report.fact(format!(
            "<mimic> of joint \"{}\" (line {}) ignored: it follows \"{}\", which is not a moving joint of the model; the joint moves freely, as Pinocchio loads the file",
            c.joint, c.line, c.follows
        ));
    }
    draft.couplings = kept;
}

fn has_mass(l: &Link) -> bool {
    l.inertial.as_ref().is_some_and(|i| i.mass > 0.0)
}

/// The body of link `l` placed at `pose`. A link without mass is a massless body (mass, CG and
/// inertia 0: a rotational inertia without mass is dropped, noted), which runs on the tree
/// while it carries a link with mass ([`massless_leaf`] refuses the others).
fn add_body(draft: &mut Draft, l: &Link, pose: Pose, report: &mut ImportReport) {
    let (mass, inertia, cg) = match l.inertial.as_ref() {
        Some(i) if i.mass > 0.0 => (i.mass, i.inertia, i.cg),
        other => {
            if other.is_some_and(|i| i.inertia != Mat3::ZERO) {
                report.not_modelled(DROPPED_INERTIA, l.name);
            }
            report.fact(format!(
                "link \"{}\" has no mass and moves: a massless body (joint coordinates only)",
                l.name
            ));
            (0.0, Mat3::ZERO, Vec3::ZERO)
        }
    };
    draft.bodies.push(DraftBody {
        name: l.name.to_string(),
        line: l.at.line(),
        mass,
        inertia,
        cg,
        pose,
    });
}

/// The first massless link that moves and carries no other body: its joint moves no inertia.
fn massless_leaf<'l, 'a, 'i>(draft: &Draft, links: &'l [Link<'a, 'i>]) -> Option<&'l Link<'a, 'i>> {
    let leaf = draft
        .bodies
        .iter()
        .find(|b| b.mass == 0.0 && !draft.carries_a_body(&b.name))?;
    links.iter().find(|l| l.name == leaf.name)
}

fn origin(at: At, node: Node) -> Result<Pose, ImportError> {
    match child(node, "origin") {
        None => Ok(Pose::IDENTITY),
        Some(o) => {
            let o = at.at(o);
            Ok(Pose::from_xyz_rpy(
                o.numbers::<3>("xyz")?.unwrap_or([0.0; 3]),
                o.numbers::<3>("rpy")?.unwrap_or([0.0; 3]),
            ))
        }
    }
}

fn read_link<'a, 'i>(at: At<'a, 'i>, report: &mut ImportReport) -> Result<Link<'a, 'i>, ImportError> {
    let name = at.required("name")?;
    let mut link = Link {
        at,
        name,
        inertial: None,
        collisions: Vec::new(),
    };
    for node in elements(at.node) {
        match node.tag_name().name() {
            "inertial" => link.inertial = Some(read_inertial(at.at(node))?),
            "collision" => link.collisions.push(node),
            other => report.ignore(other, at.at(node).line()),
        }
    }
    Ok(link)
}

fn read_inertial(at: At) -> Result<Inertial, ImportError> {
    let frame = origin(at, at.node)?;
    let mass = match child(at.node, "mass") {
        Some(m) => at.at(m).number_or("value", 0.0)?,
        None => 0.0,
    };
    if mass < 0.0 {
        return Err(at.invalid(format!("mass {mass} is negative")));
    }
    let inertia = match child(at.node, "inertia") {
        Some(i) => {
            let i = at.at(i);
            let g = |n: &str| i.number_or(n, 0.0);
            Mat3::symmetric(
                Vec3::new(g("ixx")?, g("iyy")?, g("izz")?),
                g("ixy")?,
                g("ixz")?,
                g("iyz")?,
            )
        }
        None => Mat3::ZERO,
    };
    Ok(Inertial {
        mass,
        cg: frame.p,
        inertia: rotate_inertia(&frame.q, &inertia),
    })
}

/// A `<mimic>`: the joint followed, multiplier (default 1), offset (default 0) and its line: a
/// coupling row q = m·q_followed + c in the scene (`[[coupling]]`).
fn read_mimic<'a>(at: At<'a, '_>) -> Result<(&'a str, f64, f64, usize), ImportError> {
    Ok((
        at.required("joint")?,
        at.number_or("multiplier", 1.0)?,
        at.number_or("offset", 0.0)?,
        at.line(),
    ))
}

fn read_joint<'a, 'i>(
    at: At<'a, 'i>,
    index: &HashMap<&str, usize>,
    report: &mut ImportReport,
) -> Result<Joint<'a, 'i>, ImportError> {
    let name = at.required("name")?;
    let type_name = at.required("type")?;
    let motion = match type_name {
        "revolute" | "continuous" => Motion::Revolute,
        "prismatic" => Motion::Prismatic,
        "fixed" => Motion::Fixed,
        "floating" => Motion::Floating,
        "planar" => Motion::Planar,
        other => {
            return Err(at.invalid(format!(
                "type \"{other}\" is not one of revolute, continuous, prismatic, fixed, floating, planar"
            )))
        }
    };
    let link = |tag: &str| -> Result<usize, ImportError> {
        let node = child(at.node, tag).ok_or_else(|| at.invalid(format!("<{tag}> is required")))?;
        let name = at.at(node).required("link")?;
        index
            .get(name)
            .copied()
            .ok_or_else(|| at.at(node).invalid(format!("link \"{name}\" does not exist")))
    };
    let (parent, child_link) = (link("parent")?, link("child")?);
    let mut axis = Vec3::X;
    let mut damping = 0.0;
    let mut friction = 0.0;
    let mut limits = None;
    let mut mimic = None;
    for node in elements(at.node) {
        let sub = at.at(node);
        match node.tag_name().name() {
            "origin" | "parent" | "child" => {}
            // A fixed or floating joint's axis means nothing (xacro often writes "0 0 0").
            "axis" if !matches!(motion, Motion::Revolute | Motion::Prismatic | Motion::Planar) => {}
            "axis" => {
                let v = Vec3::from_array(sub.numbers::<3>("xyz")?.unwrap_or([1.0, 0.0, 0.0]));
                axis = v
                    .normalized()
                    .ok_or_else(|| sub.invalid("the axis has zero length"))?;
            }
            "dynamics" => {
                damping = sub.number_or("damping", 0.0)?;
                if damping < 0.0 {
                    return Err(sub.invalid(format!("damping {damping} is negative")));
                }
                friction = sub.number_or("friction", 0.0)?;
                if friction < 0.0 {
                    return Err(sub.invalid(format!("friction {friction} is negative")));
                }
                if friction != 0.0 && !matches!(motion, Motion::Revolute | Motion::Prismatic) {
                    report.not_modelled("friction of joints other than revolute and prismatic", name);
                    friction = 0.0;
                }
            }
            // A continuous joint's <limit> gives effort and velocity only.
            "limit"
                if matches!(motion, Motion::Revolute | Motion::Prismatic) && type_name != "continuous" =>
            {
                let (lower, upper) = (sub.number("lower")?, sub.number("upper")?);
                if lower.is_some() || upper.is_some() {
                    let range = [lower.unwrap_or(0.0), upper.unwrap_or(0.0)];
                    if range[0] > range[1] {
                        return Err(sub.invalid(format!("lower {} is above upper {}", range[0], range[1])));
                    }
                    limits = Some(range);
                }
            }
            "mimic" => mimic = Some(read_mimic(sub)?),
            other => report.ignore(other, sub.line()),
        }
    }
    // A fixed or floating joint has no coordinate to couple (TALOS's grippers write <mimic> on
    // fixed joints; Pinocchio makes them frames and ignores it).
    if mimic.is_some() && !matches!(motion, Motion::Revolute | Motion::Prismatic) {
        report.fact(format!(
            "<mimic> of {type_name} joint \"{name}\" ignored: it has no single coordinate to couple"
        ));
        mimic = None;
    }
    Ok(Joint {
        at,
        name,
        motion,
        origin: origin(at, at.node)?,
        parent,
        child: child_link,
        axis,
        damping,
        friction,
        limits,
        mimic,
    })
}

/// Transmission types (the last part of `<type>` or `type`) that only map actuators onto
/// joints (ros_control's actuator ↔ joint maps: a gear ratio, a two-actuator differential, PAL's
/// Hey5 reducer with saturation and dead band, PR2's wrist differential, ros_control's
/// four-bar actuator map). ferrodyn imports no actuators from URDF, so these leave the passive
/// dynamics (the links and joints) exactly as written: noted once per type, never silently.
const ACTUATOR_MAPS: [&str; 6] = [
    "SimpleTransmission",
    "DifferentialTransmission",
    "HalfDifferentialTransmission",
    "FourBarLinkageTransmission",
    "Hey5Reducer",
    "WristTransmission",
];

/// A `<transmission>`: an actuator map is noted as actuation not imported; a type that couples
/// passive joints (PR2's gripper: the finger joints follow the gap joint through its screw and
/// linkage, a nonlinear relation, so no `[[coupling]]` row) or that this importer does not know
/// is refused by name.
fn check_transmission(at: At, report: &mut ImportReport) -> Result<(), ImportError> {
    let kind = at
        .node
        .attribute("type")
        .or_else(|| child(at.node, "type").and_then(|t| t.text()))
        .unwrap_or("")
        .trim();
    let short = kind.rsplit('/').next().unwrap_or(kind);
    let name = at.node.attribute("name").unwrap_or("(unnamed)");
    if short.is_empty() || ACTUATOR_MAPS.contains(&short) {
        let what = format!(
            "actuation: {} transmissions (actuator-to-joint maps; no actuators are imported from URDF, the joints are)",
            if short.is_empty() { "untyped" } else { short }
        );
        report.not_modelled(&what, name);
        Ok(())
    } else if short == "PR2GripperTransmission" {
        Err(at.refused(
            "PR2GripperTransmission couples the passive finger joints to the gap joint through the gripper's screw and linkage (a nonlinear relation): not modelled",
        ))
    } else {
        Err(at.refused(format!(
            "transmission type \"{kind}\" is not known to map actuators only (it may couple joints): not modelled"
        )))
    }
}

/// Links in tree order from the single root (parents first, children in file order), each
/// with the joint that carries it (`None` for the root).
fn tree_order(
    root: &At,
    links: &[Link],
    joints: &[Joint],
) -> Result<Vec<(usize, Option<usize>)>, ImportError> {
    if links.is_empty() {
        return Err(root.invalid("the robot has no <link>"));
    }
    let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
    for (k, j) in joints.iter().enumerate() {
        if let Some(first) = parent_joint[j.child] {
            return Err(j.at.invalid(format!(
                "link \"{}\" is already the child of joint \"{}\": a link has one parent (loops are not URDF)",
                links[j.child].name, joints[first].name
            )));
        }
        parent_joint[j.child] = Some(k);
    }
    let roots: Vec<usize> = (0..links.len()).filter(|&k| parent_joint[k].is_none()).collect();
    if roots.len() != 1 {
        let names: Vec<&str> = roots.iter().map(|&k| links[k].name).collect();
        return Err(root.invalid(format!(
            "a URDF tree has one root link; these links have no parent joint: [{}]",
            names.join(", ")
        )));
    }
    let mut order = vec![(roots[0], None)];
    let mut k = 0;
    while k < order.len() {
        let (link, _) = order[k];
        for (jk, j) in joints.iter().enumerate() {
            if j.parent == link {
                order.push((j.child, Some(jk)));
            }
        }
        k += 1;
        if order.len() > links.len() {
            break;
        }
    }
    if order.len() != links.len() {
        let reached: Vec<bool> = (0..links.len())
            .map(|l| order.iter().any(|&(o, _)| o == l))
            .collect();
        let lost = (0..links.len()).find(|&l| !reached[l]).unwrap_or(0);
        return Err(links[lost]
            .at
            .invalid("this link is on a loop of joints, not below the root"));
    }
    // Depth first keeps each chain's joints together (a small skyline in the scene).
    Ok(depth_first(&order, joints))
}

/// `order` (breadth first) rearranged depth first, children in file order.
fn depth_first(order: &[(usize, Option<usize>)], joints: &[Joint]) -> Vec<(usize, Option<usize>)> {
    let mut out = Vec::with_capacity(order.len());
    let mut stack = vec![order[0]];
    while let Some((link, joint)) = stack.pop() {
        out.push((link, joint));
        let children = order
            .iter()
            .filter(|&&(_, j)| j.is_some_and(|j| joints[j].parent == link));
        let children: Vec<_> = children.copied().collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// A `<collision>` as a contact shape on its link's carrier.
fn collision_shape(
    at: At,
    name: String,
    carrier: &Carrier,
    search: &[std::path::PathBuf],
) -> Result<DraftShape, ImportError> {
    let pose = carrier.pose.then(&origin(at, at.node)?);
    let geometry = child(at.node, "geometry")
        .and_then(|g| elements(g).next())
        .ok_or_else(|| at.invalid("<geometry> with a shape is required"))?;
    let g = at.at(geometry);
    let positive = |name: &str| -> Result<f64, ImportError> {
        let x = g
            .number(name)?
            .ok_or_else(|| g.invalid(format!("attribute `{name}` is required")))?;
        if x > 0.0 {
            Ok(x)
        } else {
            Err(g.invalid(format!("{name} {x} must be > 0")))
        }
    };
    let shape = match geometry.tag_name().name() {
        "sphere" => DraftGeometry::Sphere(positive("radius")?),
        "cylinder" => DraftGeometry::Cylinder(positive("radius")?, positive("length")? / 2.0),
        "box" => {
            let s = g
                .numbers::<3>("size")?
                .ok_or_else(|| g.invalid("attribute `size` is required"))?;
            DraftGeometry::Box(s.map(|x| x / 2.0))
        }
        "mesh" => {
            let filename = g.required("filename")?;
            if let Some(scale) = g.numbers::<3>("scale")? {
                if scale != [1.0; 3] {
                    return Err(
                        g.refused("a scaled mesh is not modelled as a contact shape (scale it in the file)")
                    );
                }
            }
            let path =
                resolve(filename, at.path, search).map_err(|e| g.error(ImportErrorKind::Unreadable, e))?;
            let ext = path
                .extension()
                .map(|e| e.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            if ext != "stl" && ext != "obj" {
                return Err(g.refused(format!(
                    "collision mesh {filename}: .{ext} is not read (STL and OBJ are)"
                )));
            }
            DraftGeometry::Mesh(std::path::absolute(&path).unwrap_or(path))
        }
        other => {
            return Err(g.refused(format!(
                "<{other}> is not a URDF collision geometry this importer reads"
            )))
        }
    };
    Ok(DraftShape {
        name,
        line: at.line(),
        body: carrier.body.clone(),
        pose,
        geometry: shape,
    })
}
