//! From the raw file to a validated [`Scene`]: parse, check every value and reference, and
//! resolve names to indices. The first error found is returned.

use std::collections::HashMap;

use ferrodyn_kernel::integrators::AdaptiveConfig;
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use ferrodyn_kernel::rigid::{Body, DrivenCoordinate, Force, Frame, FunctionId, Joint, JointKind};
use ferrodyn_kernel::{Item, TimeFunction};
use toml::Spanned;

use super::checker::{Checker, Names, GROUND};
use super::convert::{self, Rule};
use super::error::{ErrorKind, ItemName, SceneError, Source};
use super::format::*;
use super::types::{BodySpec, FlexibleSpec, Named, OutputSpec, Scene, Simulation};
use super::{
    armature, contact, coupling, flexible, force, friction, inertia, input, integrator, limit, parallel,
    tendon,
};
use crate::sensor::{EncoderZero, Sensor, SensorKind};
use crate::spec::formulation::{Formulation, FORMULATION_NAMES};
use crate::spec::IntegratorSpec;

/// Parses `text` and validates it.
pub(super) fn validate(source: Source, text: &str) -> Result<Scene, SceneError> {
    let raw: RawScene = super::items::parse(text).map_err(|e| {
        let line = e.span().map(|s| source.line_of(&s));
        source.error(line, None, ErrorKind::Syntax(e.message().trim().to_string()))
    })?;
    let mut c = Checker {
        source: &source,
        item: Some(ItemName::new("simulation", "")),
    };
    let simulation = simulation(&c, &raw.simulation)?;
    let (bodies, body_names, notes) = bodies(&mut c, &raw)?;
    let (joints, joint_names) = joints_and_drives(&mut c, &raw, &body_names, bodies.len())?;
    let drive_functions = drive_functions(&c, &raw)?;
    // The kernel's joints for its checks of forces and limits: copied once, and only when the
    // scene has either (a copy of a million joints is most of a large tree's build).
    let limited = raw.joint.iter().any(|j| j.get_ref().limits.is_some());
    let kernel_joints: Vec<Joint<f64>> = match raw.force.is_empty() && !limited {
        true => Vec::new(),
        false => joints.iter().map(|j| j.value).collect(),
    };
    let mut forces = forces(&mut c, &raw, &body_names, &joint_names, &joints, &kernel_joints)?;
    forces.extend(limit::limits(
        &mut c,
        &raw,
        &joints,
        &kernel_joints,
        forces.len(),
    )?);
    let armature = armature::armature(&mut c, &raw, &joints)?;
    let friction = friction::friction(&mut c, &raw, &joints)?;
    let mut flex_names = Names::new("flexible");
    let mut flexibles = Vec::new();
    for f in &raw.flexible {
        c.item = Some(ItemName::new("flexible", f.get_ref().name.get_ref()));
        flex_names.add(&c, &f.get_ref().name)?;
        let resolve = |field, name: &Spanned<String>| body_names.find(&c, field, name);
        flexibles.push(flexible::validate(&c, f, resolve)?);
    }
    let names = [&body_names, &joint_names, &flex_names];
    let sensors = sensors(&mut c, &raw, names, &joints, &bodies, &flexibles)?;
    let inputs = input::validate(&mut c, &raw, &joint_names, &joints)?;
    let couplings = coupling::validate(&mut c, &raw, &joint_names, &joints)?;
    let tendons = tendon::validate(&mut c, &raw, &joint_names, &joints)?;
    let in_contact = raw.flexible.iter().any(|f| f.get_ref().contact.is_some());
    let contact = contact::validate(
        &mut c,
        &raw.shape,
        &raw.contact_material,
        &body_names,
        &flex_names,
        in_contact,
    )?;
    let o = &raw.output;
    Ok(Scene {
        source,
        simulation,
        bodies,
        joints,
        drive_functions,
        armature,
        friction,
        forces,
        flexibles,
        sensors,
        inputs,
        couplings,
        tendons,
        contact,
        notes,
        output: OutputSpec {
            states: o.states,
            energy: o.energy,
            reactions: o.reactions,
            plots: o.plots,
        },
    })
}

/// The byte offset of each body id's declaration (its line only for an error), hashed as the
/// names are ([`Names`]).
type BodyIds = HashMap<i64, usize, foldhash::fast::RandomState>;

/// Validated bodies with their names, and the notes their inertias gave.
type NamedBodies<'a> = (Vec<Named<BodySpec>>, Names<'a>, Vec<String>);

/// The bodies in file order with their names, and the notes their inertias gave: checked on
/// every core for a large scene ([`parallel`]), one by one otherwise or when one is wrong.
fn bodies<'a>(c: &mut Checker, raw: &'a RawScene) -> Result<NamedBodies<'a>, SceneError> {
    let names = || Names::with_capacity("body", raw.body.len());
    let ids = || BodyIds::with_capacity_and_hasher(raw.body.len(), Default::default());
    let scale = inertia::model_scale(raw.body.iter().map(|b| {
        let i = b.get_ref().inertia.get_ref();
        [i.Ixx, i.Iyy, i.Izz]
    }));
    let (mut body_names, mut body_ids) = (names(), ids());
    let quiet = c.without_item();
    let notes = std::sync::Mutex::new(Vec::new());
    let register = || {
        raw.body
            .iter()
            .try_for_each(|b| register_body(&quiet, b, &mut body_names, &mut body_ids).map(drop))
    };
    let value = |index, b: &Spanned<RawBody>| {
        let (named, note) = body(&quiet, b, index, scale)?;
        // A lock poisoned by a panic: that thread's part fails, and the serial check follows.
        if let (Some(note), Ok(mut notes)) = (note, notes.lock()) {
            notes.push((index, note));
        }
        Ok::<_, SceneError>(named)
    };
    if let Some(bodies) = parallel::checked(&raw.body, register, value) {
        // The item under check left as the serial check leaves it: the last body.
        if let Some(last) = raw.body.last() {
            c.name_item("body", last.get_ref().name.get_ref());
        }
        let mut notes = notes.into_inner().unwrap_or_default();
        notes.sort_by_key(|(index, _)| *index);
        return Ok((
            bodies,
            body_names,
            notes.into_iter().map(|(_, note)| note).collect(),
        ));
    }
    // One by one: the first error in file order.
    let (mut body_names, mut body_ids) = (names(), ids());
    // Sized once: growing by doubling would hold up to twice a large scene's items.
    let mut bodies = Vec::with_capacity(raw.body.len());
    let mut notes = Vec::new();
    for b in &raw.body {
        c.name_item("body", b.get_ref().name.get_ref());
        let index = register_body(c, b, &mut body_names, &mut body_ids)?;
        let (named, note) = body(c, b, index, scale)?;
        notes.extend(note);
        bodies.push(named);
    }
    Ok((bodies, body_names, notes))
}

/// A joint or a drive, to merge them in file order.
enum Entry<'a> {
    Joint(&'a Spanned<RawJoint>),
    /// A drive with the id of its function: its index among the drives.
    Drive(FunctionId, &'a Spanned<RawDrive>),
}

/// Validated joints and drives with their names.
type NamedJoints = Vec<Named<Joint<f64>>>;

/// The index in `joints` (as [`joints_and_drives`] merges them) of each `[[joint]]` table, in
/// file order: the k-th table is the k-th joint of kind "joint". One pass, where a search by
/// name per table would be quadratic in the joints.
pub(super) fn joint_tables(joints: &[Named<Joint<f64>>]) -> impl Iterator<Item = usize> + '_ {
    (0..joints.len()).filter(|&k| joints[k].kind == "joint")
}

/// Joints and drives, merged in file order: they share one index space (drives are joints).
fn joints_and_drives<'a>(
    c: &mut Checker,
    raw: &'a RawScene,
    body_names: &Names,
    body_count: usize,
) -> Result<(NamedJoints, Names<'a>), SceneError> {
    let mut names = Names::with_capacity("joint", raw.joint.len() + raw.drive.len());
    let mut entries: Vec<(usize, Entry)> = raw
        .joint
        .iter()
        .map(|j| (j.span().start, Entry::Joint(j)))
        .collect();
    let drives = raw.drive.iter().enumerate();
    entries.extend(drives.map(|(k, d)| (d.span().start, Entry::Drive(FunctionId(k), d))));
    entries.sort_by_key(|(at, _)| *at);
    // On every core for a large scene ([`parallel`]), one by one otherwise or when one is wrong.
    let quiet = c.without_item();
    let register = || {
        entries
            .iter()
            .try_for_each(|(_, entry)| names.add(&quiet, entry.name()).map(drop))
    };
    let value =
        |index, (_, entry): &(usize, Entry)| named_joint(&quiet, entry, index, body_names, body_count);
    if let Some(joints) = parallel::checked(&entries, register, value) {
        // The item under check left as the serial check leaves it: the last joint or drive.
        if let Some((_, last)) = entries.last() {
            c.name_item(last.kind(), last.name().get_ref());
        }
        return Ok((joints, names));
    }
    let mut names = Names::with_capacity("joint", entries.len());
    let mut joints = Vec::with_capacity(entries.len());
    for (index, (_, entry)) in entries.iter().enumerate() {
        c.name_item(entry.kind(), entry.name().get_ref());
        names.add(c, entry.name())?;
        joints.push(named_joint(c, entry, index, body_names, body_count)?);
    }
    Ok((joints, names))
}

impl<'a> Entry<'a> {
    /// The table's kind: joint or drive.
    fn kind(&self) -> &'static str {
        match self {
            Entry::Joint(_) => "joint",
            Entry::Drive(..) => "drive",
        }
    }
    /// Its name.
    fn name(&self) -> &'a Spanned<String> {
        match self {
            Entry::Joint(j) => &j.get_ref().name,
            Entry::Drive(_, d) => &d.get_ref().name,
        }
    }
}

/// Joint or drive `entry`, the `index`-th of the merged list, checked (its own values, the
/// bodies it joins, the kernel's checks) with its name and line.
fn named_joint(
    c: &Checker,
    entry: &Entry,
    index: usize,
    body_names: &Names,
    body_count: usize,
) -> Result<Named<Joint<f64>>, SceneError> {
    let (value, function, span) = match entry {
        Entry::Joint(j) => (joint(c, j.get_ref(), body_names)?, None, j.span()),
        Entry::Drive(id, d) => {
            let (joint, function) = drive(c, d.get_ref(), body_names, *id)?;
            (joint, Some(function), d.span())
        }
    };
    // The kernel's own checks (frame axes, a drive's function...), now, so the error has its
    // line. The function itself goes to the scene's list after ([`drive_functions`]).
    let kernel = |e| c.error(&span, ErrorKind::Kernel(e));
    value.validate(index, body_count).map_err(kernel)?;
    if let Some(f) = function {
        f.validate(Item::Joint(index)).map_err(kernel)?;
    }
    let name = entry.name();
    Ok(Named {
        name: name.get_ref().clone(),
        kind: entry.kind(),
        line: c.source.line_of(&name.span()),
        value,
    })
}

/// The sensors: a body point (`body`, optional `point`), a revolute/cylindrical `joint`, or the
/// node of a `flexible` body nearest to `point` (optional `frame`).
fn sensors(
    c: &mut Checker,
    raw: &RawScene,
    [body_names, joint_names, flex_names]: [&Names; 3],
    joints: &[Named<Joint<f64>>],
    bodies: &[Named<BodySpec>],
    flexibles: &[FlexibleSpec],
) -> Result<Vec<Sensor>, SceneError> {
    let mut names = Names::new("sensor");
    let mut sensors = Vec::new();
    for s in &raw.sensor {
        let r = s.get_ref();
        c.item = Some(ItemName::new("sensor", r.name.get_ref()));
        names.add(c, &r.name)?;
        let scale = c.number_or("scale", &r.scale, Rule::Finite, 1.0)?;
        if scale == 0.0 {
            let at = r.scale.as_ref().map_or(s.span(), |v| v.span());
            return Err(c.invalid(&at, "scale", "must not be 0".into()));
        }
        if let (Some(z), None) = (&r.zero, &r.joint) {
            let reason = "`zero` belongs to a joint (encoder) sensor".to_string();
            return Err(c.invalid(&z.span(), "zero", reason));
        }
        if let Some(flexible) = &r.flexible {
            let kind = flexible_node(
                c,
                s,
                flex_names.find(c, "flexible", flexible)?,
                body_names,
                bodies,
                flexibles,
            )?;
            sensors.push(Sensor {
                name: r.name.get_ref().clone(),
                kind,
                plot: r.plot,
                scale,
            });
            continue;
        }
        if let Some(frame) = &r.frame {
            let reason = "`frame` belongs to a flexible node sensor".to_string();
            return Err(c.invalid(&frame.span(), "frame", reason));
        }
        let kind = match (&r.body, &r.joint) {
            (Some(body), None) => SensorKind::Point {
                body: body_names.find(c, "body", body)?,
                point: c.vector_or("point", &r.point, Vec3::ZERO)?,
            },
            (None, Some(joint)) => {
                let index = joint_names.find(c, "joint", joint)?;
                let kind = joints[index].value.kind;
                if !matches!(kind, JointKind::Revolute | JointKind::Cylindrical) {
                    let reason = format!(
                        "joint \"{}\" is {}; an angle sensor needs a revolute or cylindrical joint",
                        joint.get_ref(),
                        kind.name()
                    );
                    return Err(c.invalid(&joint.span(), "joint", reason));
                }
                if r.point.is_some() {
                    let reason = "`point` belongs to a body sensor, not to a joint sensor".to_string();
                    return Err(c.invalid(&s.span(), "point", reason));
                }
                let zero = match r.zero.as_ref().map(|z| (z, z.get_ref())) {
                    None => EncoderZero::InitialPose,
                    Some((_, RawZero::Word(w))) if w == "initial" => EncoderZero::InitialPose,
                    Some((_, RawZero::Word(w))) if w == "frames" => EncoderZero::Frames(0.0),
                    Some((_, RawZero::Angle(a))) if a.abs() <= std::f64::consts::PI => {
                        EncoderZero::Frames(*a)
                    }
                    Some((z, _)) => {
                        let reason = "give \"initial\" (the initial pose reads 0), \"frames\" or an angle in [−π, π] rad".to_string();
                        return Err(c.invalid(&z.span(), "zero", reason));
                    }
                };
                SensorKind::JointAngle { joint: index, zero }
            }
            _ => {
                let reason =
                    "give one of `body` (and optionally `point`), `joint`, or `flexible` and `point`"
                        .to_string();
                return Err(c.invalid(&s.span(), "body/joint", reason));
            }
        };
        sensors.push(Sensor {
            name: r.name.get_ref().clone(),
            kind,
            plot: r.plot,
            scale,
        });
    }
    Ok(sensors)
}

/// A flexible node sensor: the node of flexible body `index` nearest to `point` (reference
/// coordinates), its displacement measured in `frame`'s initial frame (global without one).
fn flexible_node(
    c: &Checker,
    s: &Spanned<RawSensor>,
    index: usize,
    body_names: &Names,
    bodies: &[Named<BodySpec>],
    flexibles: &[FlexibleSpec],
) -> Result<SensorKind, SceneError> {
    let r = s.get_ref();
    if r.body.is_some() || r.joint.is_some() {
        let reason = "a flexible node sensor takes `flexible`, `point` and optionally `frame`".to_string();
        return Err(c.invalid(&s.span(), "flexible", reason));
    }
    let Some(field) = &r.point else {
        let reason = "missing: the reference position whose nearest node is measured".to_string();
        return Err(c.invalid(&s.span(), "point", reason));
    };
    let point = c.vector_or("point", &r.point, Vec3::ZERO)?;
    let start: usize = flexibles[..index].iter().map(|f| f.mesh.nodes().len()).sum();
    let distance = |p: &[f64; 3]| (Vec3::new(p[0], p[1], p[2]) - point).norm();
    let nearest = flexibles[index]
        .mesh
        .nodes()
        .iter()
        .enumerate()
        .min_by(|(_, a), (_, b)| distance(a).total_cmp(&distance(b)));
    let Some((local, at)) = nearest else {
        return Err(c.invalid(&field.span(), "point", "the flexible body has no node".into()));
    };
    let global = Vec3::new(at[0], at[1], at[2]);
    let (frame, rest) = match &r.frame {
        Some(name) => {
            let b = body_names.find(c, "frame", name)?;
            let body = &bodies[b].value.body;
            let rest = body
                .orientation
                .to_matrix()
                .transpose()
                .mul_vec(global - body.position);
            (Some(b), rest)
        }
        None => (None, global),
    };
    Ok(SensorKind::FlexibleNode {
        node: start + local,
        frame,
        rest,
    })
}

/// The force elements, with the kernel's own checks.
fn forces(
    c: &mut Checker,
    raw: &RawScene,
    body_names: &Names,
    joint_names: &Names,
    joints: &[Named<Joint<f64>>],
    kernel_joints: &[Joint<f64>],
) -> Result<Vec<Named<Force<f64>>>, SceneError> {
    let mut names = Names::new("force");
    let mut forces = Vec::new();
    for f in &raw.force {
        let name = &f.get_ref().name;
        c.item = Some(ItemName::new("force", name.get_ref()));
        names.add(c, name)?;
        let value = force::force(c, f, body_names, joint_names, joints)?;
        value
            .validate(forces.len(), kernel_joints, body_names.len())
            .map_err(|e| c.error(&f.span(), ErrorKind::Kernel(e)))?;
        forces.push(Named {
            name: name.get_ref().clone(),
            kind: "force",
            line: c.source.line_of(&name.span()),
            value,
        });
    }
    Ok(forces)
}

/// Largest gravity component accepted (m/s²): far beyond any physics, far below where the
/// integrators' sums overflow.
const GRAVITY_LIMIT: f64 = 1e100;

fn simulation(c: &Checker, s: &Spanned<RawSimulation>) -> Result<Simulation, SceneError> {
    let r = s.get_ref();
    let end_time = c.number("end_time", &r.end_time, Rule::Positive)?;
    let step = c.number("step", &r.step, Rule::Positive)?;
    if step > end_time {
        let reason = format!("{step} s is longer than end_time {end_time} s");
        return Err(c.invalid(&r.step.span(), "step", reason));
    }
    let name = r.integrator.as_ref().map_or("rk4", |n| n.get_ref().as_str());
    let adaptive = IntegratorSpec::is_adaptive(name);
    for (field, v) in [("rtol", &r.rtol), ("atol", &r.atol)] {
        if let (Some(v), false) = (v, adaptive) {
            let reason = format!("applies only to the adaptive integrators (rkf45, dopri45), not {name}");
            return Err(c.invalid(&v.span(), field, reason));
        }
    }
    let config = AdaptiveConfig::default();
    let config = AdaptiveConfig::new(
        c.number_or("rtol", &r.rtol, Rule::Positive, config.rtol)?,
        c.number_or("atol", &r.atol, Rule::Positive, config.atol)?,
    );
    let at = r.integrator.as_ref().map_or(s.span(), |n| n.span());
    let integrator = integrator::spec(c, name, config, &at, r.implicit.as_ref())?;
    crate::limits::check_steps(end_time, step).map_err(|e| c.invalid(&r.step.span(), "step", e))?;
    let output_interval = c.number_or("output_interval", &r.output_interval, Rule::Positive, step)?;
    if output_interval < step {
        let at = r.output_interval.as_ref().map_or(s.span(), |v| v.span());
        let reason = format!("{output_interval} s is shorter than the step {step} s");
        return Err(c.invalid(&at, "output_interval", reason));
    }
    let gravity = c.vector_or("gravity", &r.gravity, Vec3::new(0.0, 0.0, -9.81))?;
    if gravity.to_array().iter().any(|g| g.abs() > GRAVITY_LIMIT) {
        let at = r.gravity.as_ref().map_or(s.span(), |v| v.span());
        let reason = format!(
            "{:?} m/s² overflows: the integrators' sums of accelerations (RK4's k₁ + 2k₂ + 2k₃ + k₄ is 6 g) exceed the largest number ({:.3e}); each component must be within ±{GRAVITY_LIMIT:e}",
            gravity.to_array(),
            f64::MAX
        );
        return Err(c.invalid(&at, "gravity", reason));
    }
    let formulation = match &r.formulation {
        None => Formulation::Auto,
        Some(name) => Formulation::from_name(name.get_ref()).ok_or_else(|| {
            let reason = format!(
                "unknown formulation \"{}\" (one of {})",
                name.get_ref(),
                FORMULATION_NAMES.join(", ")
            );
            c.invalid(&name.span(), "formulation", reason)
        })?,
    };
    Ok(Simulation {
        end_time,
        step,
        integrator,
        formulation,
        output_interval,
        gravity,
    })
}

/// Registers body `b`'s name and id (the reserved name, or a name or id used before, is an
/// error); returns its index.
fn register_body<'a>(
    c: &Checker,
    b: &'a Spanned<RawBody>,
    names: &mut Names<'a>,
    ids: &mut BodyIds,
) -> Result<usize, SceneError> {
    let r = b.get_ref();
    if r.name.get_ref() == GROUND {
        return Err(c.invalid(
            &r.name.span(),
            "name",
            "\"ground\" is reserved for the fixed frame".into(),
        ));
    }
    let index = names.add(c, &r.name)?;
    if let Some(first) = ids.insert(*r.id.get_ref(), r.id.span().start) {
        let what = format!("body id {}", r.id.get_ref());
        let first_line = c.source.line(first);
        return Err(c.error(&r.id.span(), ErrorKind::Duplicate { what, first_line }));
    }
    Ok(index)
}

/// Body `b`, the `index`-th, checked (mass, inertia against the model's `scale`, pose and
/// motion, the kernel's checks), with the note its inertia gave if any.
fn body(
    c: &Checker,
    b: &Spanned<RawBody>,
    index: usize,
    scale: f64,
) -> Result<(Named<BodySpec>, Option<String>), SceneError> {
    let r = b.get_ref();
    let mass = c.number("mass", &r.mass, Rule::NonNegative)?;
    let i = r.inertia.get_ref();
    let entries = [i.Ixx, i.Iyy, i.Izz, i.Ixy, i.Ixz, i.Iyz];
    if let Some(bad) = entries.iter().find(|v| !v.is_finite()) {
        return Err(c.invalid(&r.inertia.span(), "inertia", format!("{bad} must be finite")));
    }
    let inertia = Mat3::symmetric(Vec3::new(i.Ixx, i.Iyy, i.Izz), i.Ixy, i.Ixz, i.Iyz);
    let cg = c.vector_or("cg", &r.cg, Vec3::ZERO)?;
    // A massless body (mass 0, zero inertia and CG) is a frame between joints composed in one
    // place; it runs in joint coordinates only (compile refuses it in Cartesian coordinates).
    let massless = mass == 0.0;
    if massless && (inertia != Mat3::ZERO || cg != Vec3::ZERO) {
        return Err(c.invalid(
            &r.mass.span(),
            "mass",
            "0 with a non-zero inertia or CG: a body has mass > 0, or mass, inertia and CG all 0 (a massless frame between joints, joint coordinates only)".into(),
        ));
    }
    let (inertia, note) = match massless {
        true => (inertia, None),
        false => inertia::read(r.name.get_ref(), inertia, scale)
            .map_err(|reason| c.invalid(&r.inertia.span(), "inertia", reason))?,
    };
    let orientation = match &r.orient {
        Some(o) => convert::orientation(o.get_ref()).map_err(|e| c.invalid(&o.span(), "orient", e))?,
        None => Quat::IDENTITY,
    };
    let body = Body::new(mass, inertia)
        .with_cg(cg)
        .at(c.vector_or("pos", &r.pos, Vec3::ZERO)?, orientation)
        .moving(
            c.vector_or("velocity", &r.velocity, Vec3::ZERO)?,
            c.vector_or("angular_velocity", &r.angular_velocity, Vec3::ZERO)?,
        );
    // The kernel's own checks (a tree link's: positive semi-definite), now, so the error has
    // its line; a massless body's pose and motion get them with a unit mass.
    let unit = Body {
        mass: 1.0,
        inertia: Mat3::IDENTITY,
        ..body
    };
    (if massless { unit } else { body })
        .validate_tree_inertia(index)
        .map_err(|e| c.error(&b.span(), ErrorKind::Kernel(e)))?;
    let named = Named {
        name: r.name.get_ref().clone(),
        kind: "body",
        line: c.source.line_of(&r.name.span()),
        value: BodySpec {
            id: *r.id.get_ref(),
            body,
        },
    };
    Ok((named, note))
}

/// The two sides of a joint or drive: bodies and frames.
fn sides(
    c: &Checker,
    names: &Names,
    body_i: &Spanned<String>,
    body_j: &Spanned<String>,
    frames: [&Option<Spanned<RawFrame>>; 2],
    kind: JointKind<f64>,
) -> Result<Joint<f64>, SceneError> {
    let bi = names.body_ref(c, "body_i", body_i)?;
    let bj = names.body_ref(c, "body_j", body_j)?;
    if bi == bj {
        let reason = format!("joins \"{}\" to itself", body_i.get_ref());
        return Err(c.invalid(&body_j.span(), "body_j", reason));
    }
    let mut built = [Frame::at(Vec3::ZERO); 2];
    for ((slot, f), field) in built.iter_mut().zip(frames).zip(["frame_i", "frame_j"]) {
        *slot = convert::frame(f.as_ref().map(|f| f.get_ref())).map_err(|r| {
            let at = f.as_ref().map_or(body_i.span(), |f| f.span());
            c.invalid(&at, field, r)
        })?;
    }
    Ok(Joint::new(kind, bi, built[0], bj, built[1]))
}

fn joint(c: &Checker, r: &RawJoint, names: &Names) -> Result<Joint<f64>, SceneError> {
    let kind = match r.kind.get_ref().as_str() {
        "spherical" => JointKind::Spherical,
        "revolute" => JointKind::Revolute,
        "prismatic" => JointKind::Prismatic,
        "cylindrical" => JointKind::Cylindrical,
        "universal" => JointKind::Universal,
        "fixed" => JointKind::Fixed,
        "distance" => {
            let length = c.required(&r.kind.span(), "length", &r.length)?;
            JointKind::Distance {
                length: c.number("length", length, Rule::Positive)?,
            }
        }
        other => {
            let reason = format!(
                "unknown joint type \"{other}\" (one of: spherical, revolute, prismatic, cylindrical, \
                 universal, fixed, distance)"
            );
            return Err(c.invalid(&r.kind.span(), "type", reason));
        }
    };
    if let (Some(l), false) = (&r.length, matches!(kind, JointKind::Distance { .. })) {
        return Err(c.invalid(&l.span(), "length", "applies only to distance joints".into()));
    }
    sides(c, names, &r.body_i, &r.body_j, [&r.frame_i, &r.frame_j], kind)
}

/// Drive `r` as a joint whose function is `id` in the scene's list, and its function.
fn drive(
    c: &Checker,
    r: &RawDrive,
    names: &Names,
    id: FunctionId,
) -> Result<(Joint<f64>, TimeFunction<f64>), SceneError> {
    let coordinate = match r.coordinate.get_ref().as_str() {
        "rotation" => DrivenCoordinate::Rotation,
        "translation" => DrivenCoordinate::Translation,
        other => {
            let reason = format!("unknown coordinate \"{other}\" (rotation or translation)");
            return Err(c.invalid(&r.coordinate.span(), "coordinate", reason));
        }
    };
    let function = drive_function(c, r)?;
    let kind = JointKind::Driving {
        coordinate,
        function: id,
    };
    let joint = sides(c, names, &r.body_i, &r.body_j, [&r.frame_i, &r.frame_j], kind)?;
    Ok((joint, function))
}

/// The drives' functions in file order: drive k's is [`FunctionId`]`(k)` (as
/// [`joints_and_drives`] names them). Their drives were checked, functions included.
fn drive_functions(c: &Checker, raw: &RawScene) -> Result<Vec<TimeFunction<f64>>, SceneError> {
    raw.drive.iter().map(|d| drive_function(c, d.get_ref())).collect()
}

/// The function of drive `r`: its value, or the integral of its velocity.
fn drive_function(c: &Checker, r: &RawDrive) -> Result<TimeFunction<f64>, SceneError> {
    Ok(match (&r.function, &r.velocity) {
        (Some(f), None) => {
            if let Some(initial) = &r.initial {
                let reason = "applies only to velocity drives (function gives the value itself)".into();
                return Err(c.invalid(&initial.span(), "initial", reason));
            }
            convert::function(f.get_ref()).map_err(|e| c.invalid(&f.span(), "function", e))?
        }
        (None, Some(v)) => {
            let initial = c.number_or("initial", &r.initial, Rule::Finite, 0.0)?;
            let velocity = convert::function(v.get_ref()).map_err(|e| c.invalid(&v.span(), "velocity", e))?;
            velocity
                .integral(initial)
                .map_err(|e| c.invalid(&v.span(), "velocity", convert::reason(e)))?
        }
        (Some(_), Some(v)) => {
            let reason = "give either function (the coordinate) or velocity (its rate), not both".into();
            return Err(c.invalid(&v.span(), "velocity", reason));
        }
        (None, None) => {
            let reason = "missing: give function (the coordinate) or velocity (its rate)".into();
            return Err(c.invalid(&r.coordinate.span(), "function", reason));
        }
    })
}

/// Why `body` runs in joint coordinates only, if it does: a massless body (a frame between
/// joints), or a singular inertia about the CG (a point mass, a thin rod). The Cartesian
/// model's mass matrix needs a mass and a positive definite inertia.
pub fn joint_coordinates_only(body: &Body<f64>) -> Option<&'static str> {
    if body.mass == 0.0 {
        Some("a massless body")
    } else if !body.inertia.is_positive_definite() {
        Some("a body with a singular inertia (a point mass, a thin rod)")
    } else if !body.inertia_is_physical() {
        Some("a body whose inertia violates the triangle inequality I1 + I2 ≥ I3 (not a physical rigid body's)")
    } else {
        None
    }
}

/// The first of `bodies` that runs in joint coordinates only, and why.
pub fn first_tree_only(bodies: &[Named<BodySpec>]) -> Option<(&Named<BodySpec>, &'static str)> {
    bodies
        .iter()
        .find_map(|b| joint_coordinates_only(&b.value.body).map(|why| (b, why)))
}

/// `body`, or for one that runs in joint coordinates only ([`joint_coordinates_only`]) the same
/// body with unit mass and inertia: the Cartesian mirror of a tree holds it so (it places the
/// body; it never steps it, and the tree takes the masses from the scene).
pub(crate) fn body_or_stand_in(body: &Body<f64>) -> Body<f64> {
    match joint_coordinates_only(body) {
        Some(_) => Body {
            mass: 1.0,
            inertia: Mat3::IDENTITY,
            ..*body
        },
        None => *body,
    }
}
