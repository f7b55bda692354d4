//! MJCF (MuJoCo XML) → scene draft: the subset the public models use. Bodies are placed by
//! their `pos` and orientation (`quat`, `axisangle`, `euler` with the compiler's `eulerseq`,
//! `xyaxes`, `zaxis`; angles in the compiler's unit), a body's joint gets a frame on each
//! side (hinge → revolute, slide → prismatic, ball → spherical, free → a floating base); several
//! joints in one body are a chain through massless bodies `BODY.JOINT` at the body's pose (MuJoCo
//! composes them in order), the last joint on the body; its
//! mass from `<inertial>` or from its geoms (`inertiafromgeom`, as MuJoCo forms it: primitives,
//! and meshes by their `inertia` rule, mesh.rs), `<motor>`,
//! `<position>` and `<velocity>` actuators become `[[input]]` ports, `jointpos` and `framepos`
//! sensors `[[sensor]]`s. A body without joints is welded to its parent: the ground's, a frame
//! (massless), or a scene `fixed` joint.
//!
//! A joint `<equality>` of degree 1 is a `[[coupling]]` (`equality`), connect and weld are
//! joints closing loops (`loops`), a fixed tendon a `[[tendon]]` (`tendon`). Refused by name
//! with the line: spatial tendons, composites, flexes, other equalities, a free joint among
//! others, height-field geoms and primitives fitted to meshes a body's mass comes from,
//! `<frame>`, `<replicate>`.

mod apart;
mod balance;
mod document;
mod equality;
mod inertia;
mod loops;
mod mesh;
mod mesh_mass;
mod msh;
mod tendon;

use super::draft::{
    Draft, DraftBody, DraftGeometry, DraftInput, DraftJoint, DraftJointKind, DraftSensor, DraftShape,
    SensorTarget,
};
use super::error::ImportError;
use super::pose::{rotate_inertia, z_onto, Pose};
use super::report::ImportReport;
use super::xml::{At, XmlFile};
use super::ImportOptions;
use document::{Files, Model};
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use inertia::{combine, Solid};
use mesh::Meshes;
use std::collections::HashMap;

/// The refusal of a body without mass that moves and carries no body with mass: its joint
/// moves no inertia (MuJoCo refuses it too: "mass and inertia of moving bodies must be larger
/// than mjMINVAL").
fn massless_moving(at: &At, name: &str) -> ImportError {
    at.refused(format!(
        "body \"{name}\" has no mass, moves and carries no body with mass: its joint moves no inertia"
    ))
}

/// Whether `at` is an `<option>`'s `<flag>` that disables `what` (`<flag contact="disable"/>`).
fn disables(model: &Model, at: &At, what: &str) -> bool {
    at.node.has_tag_name("flag") && model.attr(at, what).as_deref() == Some("disable")
}

/// The draft of the MJCF model whose main file is `file`.
pub fn import(
    file: &XmlFile,
    options: &ImportOptions,
    report: &mut ImportReport,
) -> Result<Draft, ImportError> {
    let files = Files::read(&file.path)?;
    let docs = files.parse()?;
    let model = Model::new(&docs)?;
    let root = model.root();
    let meshes = Meshes::new(&model);
    // <flag contact="disable"/> (MuJoCo's mjDSBL_CONTACT): no contact shapes at all.
    let contact_disabled = (model.children(root).into_iter())
        .filter(|at| at.node.has_tag_name("option"))
        .flat_map(|at| model.children(at))
        .any(|f| disables(&model, &f, "contact"));
    let without_contact;
    let options = if contact_disabled && options.collision {
        report
            .fact("no contact shapes: the model disables contact (<flag contact=\"disable\"/>)".to_string());
        without_contact = ImportOptions {
            collision: false,
            ..options.clone()
        };
        &without_contact
    } else {
        options
    };
    let mut builder = Builder {
        model: &model,
        meshes: &meshes,
        options,
        report,
        draft: Draft {
            model: root.node.attribute("model").unwrap_or("").to_string(),
            gravity: [0.0, 0.0, -9.81],
            ..Draft::default()
        },
        world: HashMap::new(),
        joints: HashMap::new(),
        references: HashMap::new(),
        tendons: HashMap::new(),
        sites: HashMap::new(),
        frames: HashMap::from([(
            "world".to_string(),
            Carrier {
                body: None,
                pose: Pose::IDENTITY,
            },
        )]),
        unnamed: 0,
        masks: Vec::new(),
        ground_mass: 0.0,
    };
    let mut later = Vec::new();
    for at in model.children(root) {
        match at.node.tag_name().name() {
            "worldbody" => builder.worldbody(at)?,
            "option" => {
                if let Some(g) = model.array::<3>(&at, "gravity")? {
                    builder.draft.gravity = g;
                }
                for child in model.children(at) {
                    // <flag gravity="disable"/> switches gravity off (MuJoCo's mjDSBL_GRAVITY),
                    // contact="disable" every contact (mjDSBL_CONTACT).
                    let flag = |what: &str| disables(&model, &child, what);
                    if flag("gravity") {
                        builder.draft.gravity = [0.0; 3];
                        builder
                            .report
                            .fact("gravity disabled (<flag gravity=\"disable\"/>)".to_string());
                    }
                    if !flag("gravity") && !flag("contact") {
                        builder.report.ignore(child.node.tag_name().name(), child.line());
                    }
                }
            }
            "equality" | "tendon" => later.push(at),
            "deformable" if !model.children(at).is_empty() => {
                let first = model.children(at)[0];
                return Err(first.refused(format!(
                    "<{}> inside <{}> is not modelled yet",
                    first.node.tag_name().name(),
                    at.node.tag_name().name()
                )));
            }
            "actuator" | "sensor" => later.push(at),
            "extension" | "plugin" if !model.children(at).is_empty() => {
                return Err(at.refused("engine plugins are not modelled"))
            }
            "compiler" | "default" => {}
            other => builder.report.ignore(other, at.line()),
        }
    }
    // Tendons first: actuators and equalities name them.
    later.sort_by_key(|at| at.node.tag_name().name() != "tendon");
    for at in later {
        match at.node.tag_name().name() {
            "tendon" => builder.tendons(at)?,
            "actuator" => builder.actuators(at)?,
            "equality" => builder.equalities(at)?,
            _ => builder.sensors(at)?,
        }
    }
    if let Some(total) = model.set_total_mass {
        builder.scale_to_total_mass(total);
    }
    let masks = apart::apart_by_masks(&builder.masks);
    builder.draft.apart.extend(masks);
    Ok(builder.draft)
}

/// The body (`None`: ground) a model frame moves with, and where the frame is in it.
#[derive(Clone)]
struct Carrier {
    body: Option<String>,
    pose: Pose,
}

struct Builder<'m, 'a, 'i> {
    model: &'m Model<'a, 'i>,
    /// Mesh assets, read when a body's mass comes from them.
    meshes: &'m Meshes<'a, 'i>,
    options: &'m ImportOptions,
    report: &'m mut ImportReport,
    draft: Draft,
    /// World placement of every scene body at t = 0.
    world: HashMap<String, Pose>,
    /// Scene joints by MJCF joint name: the scene name and its kind.
    joints: HashMap<String, (String, DraftJointKind)>,
    /// Hinge and slide joints by MJCF name: `ref` and `springref` (rad or m), the coordinates
    /// a tendon's length is measured in.
    references: HashMap<String, (f64, f64)>,
    /// Fixed tendons by MJCF name: their scene joints and coefficients.
    tendons: HashMap<String, Vec<(String, f64)>>,
    /// Sites: carrier body and placement in it.
    sites: HashMap<String, (Option<String>, Pose)>,
    /// Named MJCF bodies (and `world`): the scene body that carries each and its frame there
    /// (connect and weld equalities name them).
    frames: HashMap<String, Carrier>,
    unnamed: usize,
    /// Every contact geom's body and collision bits (`--collision`).
    masks: Vec<apart::Mask>,
    /// Mass of the bodies welded to the world (part of the ground, in no scene body): MuJoCo's
    /// `settotalmass` counts them.
    ground_mass: f64,
}

impl<'a, 'i> Builder<'_, 'a, 'i> {
    fn worldbody(&mut self, at: At<'a, 'i>) -> Result<(), ImportError> {
        let ground = Carrier {
            body: None,
            pose: Pose::IDENTITY,
        };
        self.contents(at, &ground, Pose::IDENTITY, "world")
    }

    /// Geoms, sites and child bodies of a body whose frame is carried by `carrier`, at `world`.
    fn contents(
        &mut self,
        at: At<'a, 'i>,
        carrier: &Carrier,
        world: Pose,
        name: &str,
    ) -> Result<(), ImportError> {
        let mut geom_count = 0;
        for child in self.model.children(at) {
            match child.node.tag_name().name() {
                "body" => self.body(child, carrier, world)?,
                "geom" => {
                    if self.options.collision {
                        self.shape(child, carrier, name, geom_count)?;
                    }
                    geom_count += 1;
                }
                "site" => {
                    let pose = self.placement(&child)?;
                    if let Some(site) = child.node.attribute("name") {
                        let pose = carrier.pose.then(&pose);
                        self.sites.insert(site.to_string(), (carrier.body.clone(), pose));
                    }
                }
                "composite" | "flexcomp" | "frame" | "replicate" | "attach" => {
                    return Err(
                        child.refused(format!("<{}> is not modelled yet", child.node.tag_name().name()))
                    )
                }
                "inertial" | "joint" | "freejoint" => {}
                other => self.report.ignore(other, child.line()),
            }
        }
        Ok(())
    }

    fn body(&mut self, at: At<'a, 'i>, parent: &Carrier, parent_world: Pose) -> Result<(), ImportError> {
        let name = match at.node.attribute("name") {
            Some(n) => n.to_string(),
            None => {
                self.unnamed += 1;
                format!("body{}", self.unnamed)
            }
        };
        let local = self.placement(&at)?;
        let world = parent_world.then(&local);
        let joints: Vec<At> = self
            .model
            .children(at)
            .into_iter()
            .filter(|c| matches!(c.node.tag_name().name(), "joint" | "freejoint"))
            .collect();
        if joints.len() > 1 {
            if let Some(free) = joints.iter().find(|j| self.joint_type(j) == "free") {
                return Err(free.refused(format!(
                    "body \"{name}\" has a free joint among {} joints: not modelled (a free joint is a floating base)",
                    joints.len()
                )));
            }
        }
        let mass = self.mass_properties(at, &name)?;
        let carrier = match joints.split_last() {
            None if parent.body.is_none() => {
                self.ground_mass += mass.as_ref().map_or(0.0, |m| m.mass);
                Carrier {
                    body: None,
                    pose: world,
                }
            }
            None if mass.is_none() => {
                self.report.fact(format!(
                    "massless body \"{name}\" without joints is a frame of its parent"
                ));
                Carrier {
                    body: parent.body.clone(),
                    pose: parent.pose.then(&local),
                }
            }
            None => {
                self.add_body(&name, at, mass, world)?;
                let frame_i = self.in_body(&parent.body, world);
                self.draft.joints.push(DraftJoint {
                    name: format!("{name}_weld"),
                    line: at.line(),
                    kind: DraftJointKind::Fixed,
                    body_i: parent.body.clone(),
                    body_j: name.clone(),
                    frame_i,
                    frame_j: Pose::IDENTITY,
                    limits: None,
                    armature: 0.0,
                    friction: 0.0,
                });
                self.own(&name)
            }
            Some((last, first)) => {
                // MuJoCo composes a body's joints in order, each in the frame the previous ones
                // moved: a chain through massless bodies at the body's pose, the last joint on
                // the body itself. A body without mass is a massless body too (joint
                // coordinates only) if it carries a body with mass (checked below).
                let mut carrier = parent.clone();
                for (k, joint) in first.iter().enumerate() {
                    let joint_name = joint
                        .node
                        .attribute("name")
                        .map_or_else(|| format!("joint{k}"), str::to_string);
                    let frame = format!("{name}.{joint_name}");
                    self.add_massless(&frame, *joint, world)?;
                    self.joint(*joint, &frame, &carrier, world)?;
                    carrier = self.own(&frame);
                }
                match mass {
                    Some(_) => self.add_body(&name, at, mass, world)?,
                    None => {
                        self.add_massless(&name, at, world)?;
                        self.report.fact(format!(
                            "body \"{name}\" has no mass and moves: a massless body (joint coordinates only)"
                        ));
                    }
                }
                self.joint(*last, &name, &carrier, world)?;
                self.own(&name)
            }
        };
        if let Some(named) = at.node.attribute("name") {
            self.frames.insert(named.to_string(), carrier.clone());
        }
        if let (Some(_), Some(_), true) = (&parent.body, &carrier.body, self.options.collision) {
            // MuJoCo never lets a body's geoms touch its parent's (they overlap at the joint).
            if parent.body != carrier.body {
                let pair = (parent.body.clone(), carrier.body.clone(), at.line());
                self.draft.apart.push(pair);
            }
        }
        self.contents(at, &carrier, world, &name)?;
        if carrier.body.as_deref() == Some(name.as_str())
            && self.draft.bodies.iter().any(|b| b.name == name && b.mass == 0.0)
            && !self.draft.carries_a_body(&name)
        {
            return Err(massless_moving(&at, &name));
        }
        Ok(())
    }

    fn own(&self, name: &str) -> Carrier {
        Carrier {
            body: Some(name.to_string()),
            pose: Pose::IDENTITY,
        }
    }

    /// The frame at world placement `world` seen from body `body` (the ground: global).
    fn in_body(&self, body: &Option<String>, world: Pose) -> Pose {
        match body.as_ref().and_then(|b| self.world.get(b)) {
            Some(w) => w.inverse().then(&world),
            None => world,
        }
    }

    fn add_body(
        &mut self,
        name: &str,
        at: At,
        mass: Option<inertia::MassProperties>,
        world: Pose,
    ) -> Result<(), ImportError> {
        let Some(m) = mass else {
            return Err(massless_moving(&at, name));
        };
        if self.world.contains_key(name) {
            return Err(at.invalid(format!("duplicate body name \"{name}\"")));
        }
        let inertia = match balance::mujoco_inertia(&m.inertia, self.model.balance_inertia) {
            balance::Verdict::Kept => m.inertia,
            balance::Verdict::Balanced(mean) => {
                self.report.fact(format!(
                    "inertia of body \"{name}\" balanced to the mean of its principal moments, {:e} kg·m² (balanceinertia)",
                    mean.m[0][0]
                ));
                mean
            }
            balance::Verdict::Violates([a, b, c]) => {
                return Err(at.invalid(format!(
                    "body \"{name}\": principal moments of inertia {a:e}, {b:e}, {c:e} violate A + B ≥ C, which MuJoCo requires (<compiler balanceinertia=\"true\"> balances them)"
                )))
            }
        };
        self.world.insert(name.to_string(), world);
        self.draft.bodies.push(DraftBody {
            name: name.to_string(),
            line: at.line(),
            mass: m.mass,
            inertia,
            cg: m.com,
            pose: world,
        });
        Ok(())
    }

    /// `<compiler settotalmass>`: every body's mass and inertia scaled by one factor so that
    /// the model's mass (the bodies welded to the world included, as MuJoCo counts) is `total`.
    fn scale_to_total_mass(&mut self, total: f64) {
        let mass: f64 = self.ground_mass + self.draft.bodies.iter().map(|b| b.mass).sum::<f64>();
        if mass <= 0.0 {
            return;
        }
        let factor = total / mass;
        for body in &mut self.draft.bodies {
            body.mass *= factor;
            body.inertia = body.inertia.scale(factor);
        }
        self.report.fact(format!(
            "masses and inertias scaled by {factor} to the total mass {total} (settotalmass)"
        ));
    }

    /// The type of a `<joint>` (its class's, hinge by default) or `<freejoint>`: free.
    fn joint_type(&self, at: &At<'a, 'i>) -> String {
        if at.node.has_tag_name("freejoint") {
            "free".to_string()
        } else {
            self.model.attr(at, "type").unwrap_or_else(|| "hinge".into())
        }
    }

    /// A massless body `name` at `world`: a frame between two joints of one MJCF body.
    fn add_massless(&mut self, name: &str, at: At, world: Pose) -> Result<(), ImportError> {
        if self.world.insert(name.to_string(), world).is_some() {
            return Err(at.invalid(format!("duplicate body name \"{name}\"")));
        }
        self.draft.bodies.push(DraftBody {
            name: name.to_string(),
            line: at.line(),
            mass: 0.0,
            inertia: Mat3::ZERO,
            cg: Vec3::ZERO,
            pose: world,
        });
        Ok(())
    }

    fn joint(
        &mut self,
        at: At<'a, 'i>,
        body: &str,
        parent: &Carrier,
        world: Pose,
    ) -> Result<(), ImportError> {
        let m = self.model;
        let name = at
            .node
            .attribute("name")
            .map_or_else(|| format!("{body}_joint"), str::to_string);
        let kind = match self.joint_type(&at).as_str() {
            "hinge" => DraftJointKind::Revolute,
            "slide" => DraftJointKind::Prismatic,
            "ball" => DraftJointKind::Spherical,
            "free" => {
                if parent.body.is_some() {
                    return Err(at.invalid("a free joint must be in a body of the worldbody"));
                }
                self.report
                    .fact(format!("floating base: body \"{body}\" (free joint \"{name}\")"));
                // A floating base is no scene joint: nothing carries its rotor inertia.
                if m.number(&at, "armature")?.is_some_and(|a| a != 0.0) {
                    self.report.not_modelled("armature of free joints", &name);
                }
                return Ok(());
            }
            other => {
                return Err(at.invalid(format!("type \"{other}\" is not one of hinge, slide, ball, free")))
            }
        };
        let pos = Vec3::from_array(m.array::<3>(&at, "pos")?.unwrap_or([0.0; 3]));
        let turn = match kind {
            DraftJointKind::Spherical => Quat::IDENTITY,
            _ => {
                let axis = Vec3::from_array(m.array::<3>(&at, "axis")?.unwrap_or([0.0, 0.0, 1.0]));
                z_onto(
                    axis.normalized()
                        .ok_or_else(|| at.invalid("the axis has zero length"))?,
                )
            }
        };
        let frame_j = Pose::new(pos, turn);
        let frame_i = self.in_body(&parent.body, world.then(&frame_j));
        let line = at.line();
        let positive = |k: &str| -> Result<f64, ImportError> { Ok(m.number(&at, k)?.unwrap_or(0.0)) };
        // The scene's joint springs and dampers are rotational (on revolute joints) or
        // translational (on prismatic ones): a ball's have no place in it.
        let one_dof = matches!(kind, DraftJointKind::Revolute | DraftJointKind::Prismatic);
        let damping = positive("damping")?;
        if damping > 0.0 {
            if one_dof {
                self.draft.dampers.push((name.clone(), damping, line));
            } else {
                self.report.not_modelled("damping of ball joints", &name);
            }
        }
        let stiffness = positive("stiffness")?;
        if stiffness != 0.0 && !one_dof {
            self.report
                .not_modelled("springs (stiffness) of ball joints", &name);
        }
        // Checked by the scene (finite, ≥ 0), which names the joint at this line.
        let armature = positive("armature")?;
        // MuJoCo's dry-friction constraint, as the scene's smoothed Coulomb friction
        // (docs/import.md: an approximation).
        let mut friction = positive("frictionloss")?;
        if friction != 0.0 && !one_dof {
            self.report
                .not_modelled("friction (frictionloss) of ball joints", &name);
            friction = 0.0;
        }
        let limits = self.limits(&at, kind, &name)?;
        if limits.is_some() {
            let solref = m.array::<2>(&at, "solreflimit")?.unwrap_or([0.02, 1.0]);
            let dmax = m
                .numbers(&at, "solimplimit")?
                .and_then(|v| v.get(1).copied())
                .unwrap_or(0.95);
            if solref[0] > 0.0 && solref[1] > 0.0 && dmax > 0.0 {
                self.draft
                    .limit_solref
                    .push((name.clone(), [solref[0], solref[1], dmax]));
            } else {
                self.report.not_modelled(
                    "solreflimit as direct stiffness and damping (negative values; default end stops kept)",
                    &name,
                );
            }
        }
        if matches!(kind, DraftJointKind::Revolute | DraftJointKind::Prismatic) {
            let unit = |x: f64| {
                if kind == DraftJointKind::Revolute {
                    m.angle(x)
                } else {
                    x
                }
            };
            let reference = unit(m.number(&at, "ref")?.unwrap_or(0.0));
            let spring = unit(m.number(&at, "springref")?.unwrap_or(0.0));
            self.references.insert(name.clone(), (reference, spring));
            // MuJoCo's spring pulls towards springref, the scene's coordinate is 0 at ref (qpos0).
            if stiffness != 0.0 {
                self.draft
                    .springs
                    .push((name.clone(), stiffness, spring - reference, line));
            }
        }
        self.joints.insert(name.clone(), (name.clone(), kind));
        self.draft.joints.push(DraftJoint {
            name,
            line,
            kind,
            body_i: parent.body.clone(),
            body_j: body.to_string(),
            frame_i,
            frame_j,
            limits,
            armature,
            friction,
        });
        Ok(())
    }

    /// A hinge's or slide's `range` (as MuJoCo reads it: in the compiler's angle unit for a
    /// hinge, in force unless `limited="false"`), measured from `ref`, the coordinate at which
    /// the model is assembled. A ball joint's range (a cone) is noted as not modelled.
    fn limits(
        &mut self,
        at: &At<'a, 'i>,
        kind: DraftJointKind,
        name: &str,
    ) -> Result<Option<[f64; 2]>, ImportError> {
        let m = self.model;
        let (Some(range), false) = (
            m.array::<2>(at, "range")?,
            m.attr(at, "limited").as_deref() == Some("false"),
        ) else {
            return Ok(None);
        };
        let unit = |x: f64| {
            if kind == DraftJointKind::Revolute {
                m.angle(x)
            } else {
                x
            }
        };
        match kind {
            DraftJointKind::Revolute | DraftJointKind::Prismatic => {
                let reference = unit(m.number(at, "ref")?.unwrap_or(0.0));
                let [lower, upper] = range.map(|x| unit(x) - reference);
                if lower > upper {
                    return Err(at.invalid(format!(
                        "range [{}, {}] has its lower end above the upper",
                        range[0], range[1]
                    )));
                }
                Ok(Some([lower, upper]))
            }
            _ => {
                self.report
                    .not_modelled("ball joint limits (the cone of range)", name);
                Ok(None)
            }
        }
    }

    /// `pos` and orientation of an element in its parent's frame.
    fn placement(&self, at: &At<'a, 'i>) -> Result<Pose, ImportError> {
        let m = self.model;
        let pos = Vec3::from_array(m.array::<3>(at, "pos")?.unwrap_or([0.0; 3]));
        Ok(Pose::new(pos, self.orientation(at)?))
    }

    fn orientation(&self, at: &At<'a, 'i>) -> Result<Quat<f64>, ImportError> {
        let m = self.model;
        let unit = |v: Vec3<f64>, what: &str| {
            v.normalized()
                .ok_or_else(|| at.invalid(format!("{what} has zero length")))
        };
        if let Some(q) = m.array::<4>(at, "quat")? {
            return Quat::new(q[0], q[1], q[2], q[3])
                .normalized()
                .ok_or_else(|| at.invalid("quat is zero"));
        }
        if let Some(a) = m.array::<4>(at, "axisangle")? {
            let axis = unit(Vec3::new(a[0], a[1], a[2]), "the axis of axisangle")?;
            return Ok(Quat::from_axis_angle(axis, m.angle(a[3])));
        }
        if let Some(e) = m.array::<3>(at, "euler")? {
            let mut q = Quat::IDENTITY;
            for (c, angle) in m.eulerseq.chars().zip(e) {
                let axis = match c.to_ascii_lowercase() {
                    'x' => Vec3::X,
                    'y' => Vec3::Y,
                    _ => Vec3::Z,
                };
                let r = Quat::from_axis_angle(axis, m.angle(angle));
                // Lowercase: about the rotated (body) axes; uppercase: about the fixed axes.
                q = if c.is_ascii_lowercase() {
                    q.mul(&r)
                } else {
                    r.mul(&q)
                };
            }
            return Ok(q);
        }
        if let Some(a) = m.array::<6>(at, "xyaxes")? {
            let x = unit(Vec3::new(a[0], a[1], a[2]), "the x axis of xyaxes")?;
            let y = Vec3::new(a[3], a[4], a[5]);
            let y = unit(y - x.scale(x.dot(y)), "the y axis of xyaxes (off x)")?;
            return Ok(Quat::from_matrix(&Mat3::from_columns(x, y, x.cross(y))));
        }
        if let Some(z) = m.array::<3>(at, "zaxis")? {
            return Ok(z_onto(unit(Vec3::from_array(z), "zaxis")?));
        }
        Ok(Quat::IDENTITY)
    }

    /// A geom's solid and its placement in the body (`fromto` sets both for capsules,
    /// cylinders, boxes and ellipsoids); `None` for planes. Meshes and others are refused.
    fn solid(&self, at: &At<'a, 'i>) -> Result<Option<(Solid, Pose)>, ImportError> {
        let m = self.model;
        let kind = self.geom_type(at);
        if kind != "mesh" && m.attr(at, "mesh").is_some() {
            return Err(at.refused(format!("a {kind} fitted to a mesh is not modelled yet")));
        }
        let size = m.numbers(at, "size")?.unwrap_or_default();
        let s = |k: usize| -> Result<f64, ImportError> {
            size.get(k)
                .copied()
                .filter(|x| *x > 0.0)
                .ok_or_else(|| at.invalid(format!("a {kind} needs size[{k}] > 0")))
        };
        let (mut pose, mut half) = (self.placement(at)?, None);
        if let Some(ft) = m.array::<6>(at, "fromto")? {
            let (a, b) = (Vec3::new(ft[0], ft[1], ft[2]), Vec3::new(ft[3], ft[4], ft[5]));
            let d = b - a;
            let axis = d
                .normalized()
                .ok_or_else(|| at.invalid("fromto has zero length"))?;
            pose = Pose::new((a + b).scale(0.5), z_onto(axis));
            half = Some(d.norm() / 2.0);
        }
        let solid = match kind.as_str() {
            "sphere" => Solid::Sphere(s(0)?),
            "capsule" => Solid::Capsule(s(0)?, half.map_or_else(|| s(1), Ok)?),
            "cylinder" => Solid::Cylinder(s(0)?, half.map_or_else(|| s(1), Ok)?),
            "box" => Solid::Box([s(0)?, s(1)?, half.map_or_else(|| s(2), Ok)?]),
            "ellipsoid" => Solid::Ellipsoid([s(0)?, s(1)?, half.map_or_else(|| s(2), Ok)?]),
            "plane" => return Ok(None),
            "mesh" => return Err(at.refused("a mesh geom is not a contact shape the scenes have yet")),
            other => return Err(at.refused(format!("a {other} geom's mass and shape are not modelled yet"))),
        };
        Ok(Some((solid, pose)))
    }

    /// A geom's `type` (MuJoCo's default: sphere).
    fn geom_type(&self, at: &At<'a, 'i>) -> String {
        self.model.attr(at, "type").unwrap_or_else(|| "sphere".into())
    }

    /// The body's mass properties: `<inertial>`, or its geoms' (`inertiafromgeom`); `None`
    /// when it has no mass.
    fn mass_properties(
        &self,
        at: At<'a, 'i>,
        name: &str,
    ) -> Result<Option<inertia::MassProperties>, ImportError> {
        let m = self.model;
        let children = m.children(at);
        let inertial = children.iter().find(|c| c.node.has_tag_name("inertial"));
        let from_geoms = match m.inertia_from_geom.as_str() {
            "true" => true,
            "false" => false,
            _ => inertial.is_none(),
        };
        let props = if from_geoms {
            let mut parts = Vec::new();
            for g in children.iter().filter(|c| c.node.has_tag_name("geom")) {
                if let Some(given) = m.number(g, "mass")? {
                    if given <= 0.0 {
                        continue;
                    }
                }
                let group = m.number(g, "group")?.unwrap_or(0.0);
                if group < m.inertia_groups[0] || group > m.inertia_groups[1] {
                    continue;
                }
                // Volume (area for a shell mesh), unit-density inertia about the centre in the
                // part's axes, and the part's frame (origin at the centre).
                let (measure, inertia, pose) = if self.geom_type(g) == "mesh" {
                    if m.attr(g, "fromto").is_some() {
                        return Err(g.invalid("fromto cannot be used with a mesh geom"));
                    }
                    // MuJoCo moves the geom's frame to the mesh's centre.
                    let mesh = self.meshes.mass(m, g)?;
                    let pose = self.placement(g)?.then(&Pose::new(mesh.com, Quat::IDENTITY));
                    (mesh.measure, mesh.inertia, pose)
                } else {
                    let Some((solid, pose)) = self.solid(g)? else {
                        continue;
                    };
                    (solid.volume(), Mat3::diagonal(solid.inertia(1.0)), pose)
                };
                let density = match m.number(g, "mass")? {
                    Some(mass) => mass / measure,
                    None => m.number(g, "density")?.unwrap_or(1000.0),
                };
                // MuJoCo leaves out geoms of mass up to 1e-14 (its mjEPS).
                if density * measure > 1e-14 {
                    parts.push((density * measure, inertia.scale(density), pose));
                }
            }
            combine(&parts)
        } else if let Some(i) = inertial {
            let pose = self.placement(i)?;
            let mass = m
                .number(i, "mass")?
                .ok_or_else(|| i.invalid("attribute `mass` is required"))?;
            let inertia = if let Some(d) = m.array::<3>(i, "diaginertia")? {
                rotate_inertia(&pose.q, &Mat3::diagonal(Vec3::from_array(d)))
            } else if let Some(f) = m.array::<6>(i, "fullinertia")? {
                rotate_inertia(
                    &pose.q,
                    &Mat3::symmetric(Vec3::new(f[0], f[1], f[2]), f[3], f[4], f[5]),
                )
            } else {
                return Err(i.invalid(format!("body \"{name}\": diaginertia or fullinertia is required")));
            };
            inertia::MassProperties {
                mass,
                com: pose.p,
                inertia,
            }
        } else {
            inertia::MassProperties::default()
        };
        Ok((props.mass > 0.0).then_some(props))
    }

    fn shape(&mut self, at: At<'a, 'i>, carrier: &Carrier, body: &str, k: usize) -> Result<(), ImportError> {
        let m = self.model;
        let bits = |v: Option<f64>| v.unwrap_or(1.0) as u32;
        let (contype, conaffinity) = (
            bits(m.number(&at, "contype")?),
            bits(m.number(&at, "conaffinity")?),
        );
        if contype == 0 && conaffinity == 0 {
            return Ok(());
        }
        self.masks
            .push((carrier.body.clone(), contype, conaffinity, at.line()));
        let name = at
            .node
            .attribute("name")
            .map_or_else(|| format!("{body}.geom{k}"), str::to_string);
        let kind = m.attr(&at, "type").unwrap_or_else(|| "sphere".into());
        let (geometry, pose) = match self.solid(&at)? {
            None => (None, self.placement(&at)?),
            Some((Solid::Sphere(r), pose)) => (Some(DraftGeometry::Sphere(r)), pose),
            Some((Solid::Box(h), pose)) => (Some(DraftGeometry::Box(h)), pose),
            Some((Solid::Cylinder(r, h), pose)) => (Some(DraftGeometry::Cylinder(r, h)), pose),
            Some((Solid::Capsule(r, h), pose)) => (Some(DraftGeometry::Capsule(r, h)), pose),
            Some(_) => {
                return Err(at.refused(format!("{kind} geoms are not a contact shape the scenes have")))
            }
        };
        let Some(geometry) = geometry else {
            // A plane: on the ground only.
            if carrier.body.is_some() {
                return Err(at.refused("a plane on a moving body is not a contact shape the scenes have"));
            }
            self.draft.shapes.push(DraftShape {
                name,
                line: at.line(),
                body: None,
                pose: carrier.pose.then(&pose),
                geometry: DraftGeometry::Plane,
            });
            return Ok(());
        };
        self.draft.shapes.push(DraftShape {
            name,
            line: at.line(),
            body: carrier.body.clone(),
            pose: carrier.pose.then(&pose),
            geometry,
        });
        Ok(())
    }

    fn actuators(&mut self, at: At<'a, 'i>) -> Result<(), ImportError> {
        let m = self.model;
        for (k, a) in m.children(at).into_iter().enumerate() {
            let tag = a.node.tag_name().name();
            let name = a
                .node
                .attribute("name")
                .map_or_else(|| format!("actuator{k}"), str::to_string);
            let gear = m
                .numbers(&a, "gear")?
                .and_then(|g| g.first().copied())
                .unwrap_or(1.0);
            // A motor on a tendon of one joint is a motor on that joint, of gear × coefficient.
            let on_tendon = a.node.attribute("tendon").map(|t| self.tendons.get(t).cloned());
            let (target, gear) = match on_tendon {
                None => (
                    a.node
                        .attribute("joint")
                        .and_then(|j| self.joints.get(j))
                        .cloned(),
                    gear,
                ),
                Some(Some(terms)) if tag == "motor" && terms.iter().filter(|t| t.1 != 0.0).count() == 1 => {
                    let on = terms.iter().find(|t| t.1 != 0.0);
                    let (joint, c) = on.cloned().unwrap_or_default();
                    (self.joints.get(&joint).cloned(), gear * c)
                }
                Some(_) => {
                    self.report.not_modelled(
                        "actuators on tendons (but motors on a tendon of one joint)",
                        &name,
                    );
                    continue;
                }
            };
            let Some((joint, _)) =
                target.filter(|(_, k)| matches!(k, DraftJointKind::Revolute | DraftJointKind::Prismatic))
            else {
                self.report
                    .not_modelled("actuators other than on hinge and slide joints", &name);
                continue;
            };
            let (position, velocity) = match tag {
                "motor" => (None, None),
                "position" => (
                    Some((
                        m.number(&a, "kp")?.unwrap_or(1.0),
                        m.number(&a, "kv")?.unwrap_or(0.0),
                    )),
                    None,
                ),
                "velocity" => (None, Some(m.number(&a, "kv")?.unwrap_or(1.0))),
                _ => {
                    self.report
                        .not_modelled("actuators other than motor, position, velocity", &name);
                    continue;
                }
            };
            if self.draft.inputs.iter().any(|i| i.joint == joint) {
                self.report.not_modelled(
                    "a second actuator on a joint (scenes take one port a joint)",
                    &name,
                );
                continue;
            }
            self.draft.inputs.push(DraftInput {
                name,
                line: a.line(),
                joint,
                scale: if tag == "motor" { gear } else { 1.0 },
                position,
                velocity,
            });
        }
        Ok(())
    }

    fn sensors(&mut self, at: At<'a, 'i>) -> Result<(), ImportError> {
        for (k, s) in self.model.children(at).into_iter().enumerate() {
            let tag = s.node.tag_name().name();
            let name = s
                .node
                .attribute("name")
                .map_or_else(|| format!("sensor{k}"), str::to_string);
            let reads = match tag {
                "jointpos" => s
                    .node
                    .attribute("joint")
                    .and_then(|j| self.joints.get(j))
                    .filter(|(_, kind)| *kind == DraftJointKind::Revolute)
                    .map(|(j, _)| SensorTarget::Joint(j.clone())),
                "framepos" => {
                    let object = s.node.attribute("objname").unwrap_or("");
                    match s.node.attribute("objtype") {
                        Some("site") => self
                            .sites
                            .get(object)
                            .and_then(|(b, p)| b.clone().map(|b| SensorTarget::Point(b, p.p))),
                        Some("body" | "xbody") if self.world.contains_key(object) => {
                            Some(SensorTarget::Point(object.to_string(), Vec3::ZERO))
                        }
                        _ => None,
                    }
                }
                _ => None,
            };
            match reads {
                Some(reads) => self.draft.sensors.push(DraftSensor {
                    name,
                    line: s.line(),
                    reads,
                }),
                None => self.report.ignore(&format!("sensor/{tag}"), s.line()),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests;
