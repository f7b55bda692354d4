//! The Rust module of a rigid scene in joint coordinates: the kernel tree's links as
//! [`crate::compile::tree_parts`] makes them, the initial joint rates and inputs, and the ports
//! read from the joint coordinates and the link states.

use super::rust::{header, lit, mat3, vec3, Input, Kind, Output, Ports, Precision, MODEL_FN};
use crate::compile::{choose, tree_parts, Choice, LinkBody, SceneTree, TreeLink, TreeParts};
use crate::scene::{ErrorKind, Scene, SceneError};
use crate::sensor::{EncoderZero, SensorKind};
use ferrodyn_kernel::rigid::{joint_angle, BodyRef};
use ferrodyn_kernel::tree::{MultiJoint, Servo, TreeJoint};
use std::fmt::Write;

/// The module of `scene`, stepped by the kernel integrator `method`.
pub(super) fn module(scene: &Scene, precision: Precision, method: &str) -> Result<String, SceneError> {
    let links = match choose(scene)? {
        Choice::Tree(links) => links,
        Choice::Cartesian(why) => {
            let why = why.map_or("the scene asks for Cartesian coordinates".into(), |b| {
                b.to_string()
            });
            return Err(super::rust::refused(
                scene,
                format!(
                    "only scenes in joint coordinates export to Rust so far; this one is Cartesian: {why}"
                ),
            ));
        }
    };
    let parts = tree_parts(scene, &links)?;
    refuse_tendons(scene)?;
    let contacts = super::tree_contact::pairs(scene, &parts)?;
    let ports = ports(scene, &links, &parts);
    // `Servo` only where a link has one: the modules of scenes without servos stay as they were.
    let servos = parts.tree.links.iter().any(|l| l.servo != Servo::Force);
    let mut imports = if servos {
        "use ferrodyn_kernel::tree::{Builder, Data, Link, Model, Servo};".to_string()
    } else {
        "use ferrodyn_kernel::tree::{Builder, Data, Link, Model};".to_string()
    };
    // `JointLimit` likewise only where a link has a limit.
    if parts.tree.links.iter().any(|l| l.limit.is_some()) {
        imports.push_str("\nuse ferrodyn_kernel::JointLimit;");
    }
    // Loops and force elements only where the tree has them (tree_loops, tree_forces).
    let mut rigid = super::tree_loops::rigid_names(&parts.tree);
    rigid.extend(super::tree_forces::rigid_names(&parts.forces));
    rigid.sort_unstable();
    rigid.dedup();
    if !rigid.is_empty() {
        let _ = write!(imports, "\nuse ferrodyn_kernel::rigid::{{{}}};", rigid.join(", "));
    }
    let (force_imports, timed_forces) = super::tree_forces::imports(&parts.forces);
    imports.push_str(force_imports);
    // Drives and timed forces write the kernel's time functions.
    if timed_forces || !parts.tree.drives.is_empty() {
        imports.push_str(super::time_function::IMPORT);
    }
    if contacts.is_some() {
        imports.push_str(super::tree_contact::IMPORTS);
    }
    let (capacities, capacities_doc) =
        super::tree_loops::capacities(&parts.model, parts.forces.elements().len());
    let kind = Kind {
        summary: format!(
            "{} links, {} degrees of freedom in joint coordinates",
            parts.tree.links.len(),
            parts.model.velocity_count()
        ),
        imports: &imports,
        capacities,
        capacities_doc,
    };
    let mut out = String::new();
    header(&mut out, scene, precision, method, &kind);
    model_fn(&mut out, &parts.tree);
    if let Some(pairs) = &contacts {
        super::tree_contact::write(&mut out, pairs);
    }
    initial_data_fn(&mut out, &parts.tree, &ports);
    ports.write(&mut out);
    super::tree_forces::write(&mut out, &parts.forces);
    Ok(out)
}

fn model_fn(out: &mut String, tree: &SceneTree) {
    let _ = write!(
        out,
        "
/// An empty builder with the scene's gravity. Make it where the model is to stay (a `static`
/// on a microcontroller), then [`add_to`] it and `build_in_place`: the model never passes
/// through the stack.
pub fn new_builder() -> Builder<Scalar, Capacities> {{
    Model::builder({gravity})
}}

{model_fn}
/// Adds the scene's links to `b`.
pub fn add_to(b: &mut Builder<Scalar, Capacities>) -> Result<(), BuildError> {{
",
        gravity = vec3(tree.gravity),
        model_fn = MODEL_FN,
    );
    for link in &tree.links {
        let parent = link.parent.map_or("None".into(), |p| format!("Some({p})"));
        let (origin, axis) = (vec3(link.origin), vec3(link.axis));
        let joint = match (link.multi, link.joint) {
            (None, TreeJoint::Revolute) => format!("revolute({parent}, {origin}, {axis})"),
            (None, TreeJoint::Prismatic) => format!("prismatic({parent}, {origin}, {axis})"),
            (Some(MultiJoint::Cylindrical), _) => format!("cylindrical({parent}, {origin}, {axis})"),
            (Some(MultiJoint::Universal), _) => format!(
                "universal({parent}, {origin}, {axis}, {})",
                vec3(link.second_axis)
            ),
            (Some(MultiJoint::Spherical), _) => format!("spherical({parent}, {origin})"),
            (Some(MultiJoint::Free), _) => format!("free({parent}, {origin})"),
        };
        let servo = match link.servo {
            Servo::Force => String::new(),
            Servo::Position { kp, kd } => format!(
                ".with_servo(Servo::Position {{ kp: s({}), kd: s({}) }})",
                lit(kp),
                lit(kd)
            ),
            Servo::Velocity { kv } => format!(".with_servo(Servo::Velocity {{ kv: s({}) }})", lit(kv)),
        };
        // Only links with a spring say so: the modules of scenes without springs stay as they were.
        let spring = match link.stiffness {
            0.0 => String::new(),
            k => format!(".with_spring(s({}), s({}))", lit(k), lit(link.rest)),
        };
        // Likewise the rotor inertia: only links with armature say so.
        let armature = match link.armature {
            0.0 => String::new(),
            ia => format!(".with_armature(s({}))", lit(ia)),
        };
        // And the friction.
        let friction = match link.friction.is_some() {
            false => String::new(),
            true => format!(
                ".with_friction(s({}), s({}))",
                lit(link.friction.force),
                lit(link.friction.velocity)
            ),
        };
        let limit = link.limit.map_or(String::new(), |l| {
            format!(
                ".with_limit(JointLimit::new(s({}), s({}), s({}), s({})))",
                lit(l.lower),
                lit(l.upper),
                lit(l.stiffness),
                lit(l.damping)
            )
        });
        let _ = writeln!(
            out,
            "    b.add_link(Link::{joint}.with_mass(s({}), {}, {}).with_damping(s({})){armature}{spring}{friction}{limit}{servo})?;",
            lit(link.mass),
            vec3(link.cg),
            mat3(&link.inertia),
            lit(link.damping),
        );
    }
    super::tree_loops::close_loops(out, tree);
    super::tree_rows::drive_and_couple(out, tree);
    super::tree_loops::stabilization(out, tree);
    out.push_str("    Ok(())\n}\n");
}

fn initial_data_fn(out: &mut String, tree: &SceneTree, ports: &Ports) {
    out.push_str(
        "
/// The data at the scene's initial state: joint rates, and the inputs at their scene values
/// (on the stack: see [`set_initial`]).
#[allow(dead_code)]
pub fn initial_data(model: &Model<Scalar, Capacities>) -> Result<Data<Scalar, Capacities>, BuildError> {
    let mut data = Data::new(model);
    set_initial(model, &mut data)?;
    Ok(data)
}

/// Puts fresh `data` of `model` (`Data::new`, or `Data::new_in` where it is to stay) at the
/// scene's initial state: joint rates, and the inputs at their scene values.
pub fn set_initial(model: &Model<Scalar, Capacities>, data: &mut Data<Scalar, Capacities>) -> Result<(), BuildError> {
",
    );
    for (k, rates) in tree.rates.iter().enumerate() {
        let rates: Vec<String> = rates.iter().map(|r| format!("s({})", lit(*r))).collect();
        let _ = writeln!(
            out,
            "    data.set_joint_velocity(model, {k}, &[{}])?;",
            rates.join(", ")
        );
    }
    for input in &ports.inputs {
        let _ = writeln!(
            out,
            "    data.set_input({}, s({}) * s({}))?;",
            input.velocity,
            lit(input.value),
            lit(input.scale)
        );
    }
    out.push_str("    Ok(())\n}\n");
    out.push_str(DATA_IN_FN);
}

/// The generated `data_in`, the same for every family but the initial state it sets.
const DATA_IN_FN: &str = "
/// Makes the data of `model` in `slot` (where it is to stay: a `static` on a microcontroller)
/// at the scene's initial state ([`set_initial`]), and borrows it.
#[allow(dead_code)]
pub fn data_in<'s>(slot: &'s mut Option<Data<Scalar, Capacities>>, model: &Model<Scalar, Capacities>) -> Result<&'s mut Data<Scalar, Capacities>, BuildError> {
    let data = Data::new_in(slot, model);
    set_initial(model, data)?;
    Ok(data)
}
";

/// The link a joint moves (every joint of a tree scene moves one).
fn link_of(links: &[TreeLink], joint: usize) -> usize {
    links
        .iter()
        .position(|l| l.joint == Some(joint))
        .unwrap_or(usize::MAX)
}

fn ports(scene: &Scene, links: &[TreeLink], parts: &TreeParts) -> Ports {
    let (model, data, tree) = (&parts.mirror, &parts.mirror_data, &parts.tree);
    // Where a 1-DOF joint's coordinate sits in q and in v.
    let at = |joint: usize| {
        let at = parts.model.coordinates(link_of(links, joint));
        at.map_or((usize::MAX, usize::MAX), |c| (c.position, c.velocity))
    };
    let inputs = scene
        .inputs
        .iter()
        .map(|i| Input {
            name: i.name.clone(),
            unit: i.value.quantity(model.joints()[i.value.joint].kind).1,
            scale: i.value.scale,
            value: i.value.value,
            velocity: at(i.value.joint).1,
        })
        .collect();
    let mut outputs = Vec::new();
    let mut prelude = vec!["let (q, rate) = (data.positions(), data.velocities());"];
    // Body-point sensors read the links' states.
    if (scene.sensors.iter()).any(|s| matches!(s.kind, SensorKind::Point { .. })) {
        prelude.push("let states = ferrodyn_kernel::tree::link_states(model, data);");
    }
    for sensor in &scene.sensors {
        match sensor.kind {
            SensorKind::JointAngle { joint, zero } => {
                let link = link_of(links, joint);
                // The encoder reads frame j against frame i about z_i from its initial angle;
                // the tree turns the child about z_i, so body i as the child turns it back.
                let child_is_i = model.joints()[joint].body_i == BodyRef::Body(links[link].body);
                let sign = if child_is_i { "-" } else { "" };
                let (start, _) = joint_angle(model, data, joint).unwrap_or((0.0, 0.0));
                // What the encoder reads at the initial pose: 0 by default (as the servo's q).
                let initial = match zero {
                    EncoderZero::InitialPose => 0.0,
                    EncoderZero::Frames(zero) => start - zero,
                };
                let (position, velocity) = at(joint);
                outputs.push(Output {
                    name: format!("{}_angle", sensor.name),
                    unit: "rad",
                    scale: sensor.scale,
                    value: format!("wrap(s({}) + {sign}q[{position}])", lit(initial)),
                });
                outputs.push(Output {
                    name: format!("{}_rate", sensor.name),
                    unit: "rad/s",
                    scale: sensor.scale,
                    value: format!("{sign}rate[{velocity}]"),
                });
            }
            SensorKind::Point { body, point } => {
                let on: &LinkBody = &tree.bodies[body];
                let local = on.offset + on.orientation.rotate(point);
                // A body welded to the ground: its point is where it started, at rest.
                let (position, velocity) = match on.link {
                    Some(link) => (
                        format!("states[{link}].point({}).to_array()", vec3(local)),
                        format!("states[{link}].point_velocity({}).to_array()", vec3(local)),
                    ),
                    None => (format!("{}.to_array()", vec3(local)), "[s(0.0); 3]".into()),
                };
                for (k, axis) in ["x", "y", "z"].iter().enumerate() {
                    outputs.push(Output {
                        name: format!("{}_{axis}", sensor.name),
                        unit: "m",
                        scale: sensor.scale,
                        value: format!("{position}[{k}]"),
                    });
                }
                for (k, axis) in ["vx", "vy", "vz"].iter().enumerate() {
                    outputs.push(Output {
                        name: format!("{}_{axis}", sensor.name),
                        unit: "m/s",
                        scale: sensor.scale,
                        value: format!("{velocity}[{k}]"),
                    });
                }
            }
            SensorKind::FlexibleNode { .. } => {} // no flexible bodies in a tree scene
        }
    }
    Ports {
        inputs,
        outputs,
        prelude,
    }
}

/// Tendons run on the host only: the first one is named (export and `check --target` share
/// this refusal).
pub fn refuse_tendons(scene: &Scene) -> Result<(), SceneError> {
    let Some(tendon) = scene.tendons.first() else {
        return Ok(());
    };
    let kind = ErrorKind::Invalid {
        field: "export",
        reason: "a tendon on the tree; trees with tendons do not export to Rust yet (they run on the host)"
            .into(),
    };
    Err(scene.source.error(Some(tendon.line), Some(tendon.item()), kind))
}
