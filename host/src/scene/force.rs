//! Validation of `[[force]]` tables: one flat table for all force types, so the keys that do
//! not belong to the given type are rejected here rather than by serde.

use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::{Axes, Force, Joint, JointKind};
use ferrodyn_kernel::TimeFunction;
use toml::Spanned;

use super::checker::{Checker, Names};
use super::convert::{self, Rule};
use super::error::SceneError;
use super::format::RawForce;
use super::types::Named;

/// The keys each force type accepts besides name and type.
fn force_keys(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "point" => &["body", "point", "direction", "axes", "function"],
        "torque" => &["body", "direction", "axes", "function"],
        "spring_damper" => &[
            "body_i",
            "point_i",
            "body_j",
            "point_j",
            "stiffness",
            "damping",
            "rest_length",
        ],
        "rotational_spring_damper" => &["joint", "stiffness", "damping", "rest_angle"],
        "translational_spring_damper" => &["joint", "stiffness", "damping", "rest_position"],
        _ => return None,
    })
}

/// The kernel force of one `[[force]]` table, with its references resolved.
pub(super) fn force(
    c: &Checker,
    f: &Spanned<RawForce>,
    bodies: &Names,
    joint_names: &Names,
    joints: &[Named<Joint<f64>>],
) -> Result<Force<f64>, SceneError> {
    let r = f.get_ref();
    let kind = r.kind.get_ref().as_str();
    let keys = force_keys(kind).ok_or_else(|| {
        let reason = format!(
            "unknown force type \"{kind}\" (one of: point, torque, spring_damper, rotational_spring_damper, translational_spring_damper)"
        );
        c.invalid(&r.kind.span(), "type", reason)
    })?;
    let present = [
        ("body", r.body.as_ref().map(|v| v.span())),
        ("point", r.point.as_ref().map(|v| v.span())),
        ("direction", r.direction.as_ref().map(|v| v.span())),
        ("axes", r.axes.as_ref().map(|v| v.span())),
        ("function", r.function.as_ref().map(|v| v.span())),
        ("body_i", r.body_i.as_ref().map(|v| v.span())),
        ("point_i", r.point_i.as_ref().map(|v| v.span())),
        ("body_j", r.body_j.as_ref().map(|v| v.span())),
        ("point_j", r.point_j.as_ref().map(|v| v.span())),
        ("stiffness", r.stiffness.as_ref().map(|v| v.span())),
        ("damping", r.damping.as_ref().map(|v| v.span())),
        ("rest_length", r.rest_length.as_ref().map(|v| v.span())),
        ("joint", r.joint.as_ref().map(|v| v.span())),
        ("rest_angle", r.rest_angle.as_ref().map(|v| v.span())),
        ("rest_position", r.rest_position.as_ref().map(|v| v.span())),
    ];
    if let Some((key, Some(at))) = present.iter().find(|(k, at)| at.is_some() && !keys.contains(k)) {
        let reason = format!("not a key of type {kind} (keys: {})", keys.join(", "));
        return Err(c.invalid(at, key, reason));
    }
    let at = r.kind.span();
    let body =
        |field| -> Result<usize, SceneError> { bodies.find(c, field, c.required(&at, field, &r.body)?) };
    let axes = match r.axes.as_ref().map(|a| (a.get_ref().as_str(), a.span())) {
        None | Some(("global", _)) => Axes::Global,
        Some(("body", _)) => Axes::Body,
        Some((other, span)) => {
            let reason = format!("\"{other}\" is neither \"global\" nor \"body\"");
            return Err(c.invalid(&span, "axes", reason));
        }
    };
    let function = match &r.function {
        Some(func) => {
            convert::function(func.get_ref()).map_err(|e| c.invalid(&func.span(), "function", e))?
        }
        None => TimeFunction::Constant(1.0),
    };
    let direction = || -> Result<Vec3<f64>, SceneError> {
        let d = c.required(&at, "direction", &r.direction)?;
        convert::axis(*d.get_ref()).map_err(|e| c.invalid(&d.span(), "direction", e))
    };
    let stiffness = || {
        c.number(
            "stiffness",
            c.required(&at, "stiffness", &r.stiffness)?,
            Rule::NonNegative,
        )
    };
    let damping = c.number_or("damping", &r.damping, Rule::NonNegative, 0.0)?;
    Ok(match kind {
        "point" => Force::Point {
            body: body("body")?,
            point: c.vector_or("point", &r.point, Vec3::ZERO)?,
            direction: direction()?,
            axes,
            function,
        },
        "torque" => Force::Torque {
            body: body("body")?,
            direction: direction()?,
            axes,
            function,
        },
        "spring_damper" => {
            let bi = bodies.body_ref(c, "body_i", c.required(&at, "body_i", &r.body_i)?)?;
            let bj = bodies.body_ref(c, "body_j", c.required(&at, "body_j", &r.body_j)?)?;
            if bi == bj {
                return Err(c.invalid(&at, "body_j", "a spring must join two different bodies".into()));
            }
            Force::SpringDamper {
                body_i: bi,
                point_i: c.vector_or("point_i", &r.point_i, Vec3::ZERO)?,
                body_j: bj,
                point_j: c.vector_or("point_j", &r.point_j, Vec3::ZERO)?,
                stiffness: stiffness()?,
                damping,
                rest_length: c.number_or("rest_length", &r.rest_length, Rule::NonNegative, 0.0)?,
            }
        }
        _ => {
            let name = c.required(&at, "joint", &r.joint)?;
            let joint = joint_names.find(c, "joint", name)?;
            let rotational = kind == "rotational_spring_damper";
            let (needs, what) = match rotational {
                true => (JointKind::Revolute, "a rotational spring-damper needs a revolute"),
                false => (
                    JointKind::Prismatic,
                    "a translational spring-damper needs a prismatic",
                ),
            };
            let on = joints[joint].value.kind;
            if on != needs && on != JointKind::Cylindrical {
                let reason = format!(
                    "\"{}\" is a {} joint; {what} or cylindrical one",
                    name.get_ref(),
                    on.name()
                );
                return Err(c.invalid(&name.span(), "joint", reason));
            }
            if rotational {
                Force::RotationalSpringDamper {
                    joint,
                    stiffness: stiffness()?,
                    damping,
                    rest_angle: c.number_or("rest_angle", &r.rest_angle, Rule::Finite, 0.0)?,
                }
            } else {
                Force::TranslationalSpringDamper {
                    joint,
                    stiffness: stiffness()?,
                    damping,
                    rest_position: c.number_or("rest_position", &r.rest_position, Rule::Finite, 0.0)?,
                }
            }
        }
    })
}
