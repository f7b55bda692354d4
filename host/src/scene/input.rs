//! `[[input]]` tables: actuator ports on joints — the torque of a revolute joint or the force
//! of a prismatic one, or the set-point of a position or velocity servo on it, in port units
//! times `scale` — that a rig sets every period on the microcontroller and `ferrodyn run` holds
//! at `value`.

use super::checker::{Checker, Names};
use super::convert::Rule;
use super::error::{ItemName, SceneError};
use super::format::{RawInput, RawScene};
use super::types::{InputSpec, Named};
use ferrodyn_kernel::rigid::{Joint, JointKind};
use ferrodyn_kernel::tree::Servo;
use toml::Spanned;

/// The inputs of `raw`, each on a revolute or prismatic joint, at most one per joint.
pub(super) fn validate(
    c: &mut Checker,
    raw: &RawScene,
    joint_names: &Names,
    joints: &[Named<Joint<f64>>],
) -> Result<Vec<Named<InputSpec>>, SceneError> {
    let mut names = Names::new("input");
    let mut inputs: Vec<Named<InputSpec>> = Vec::new();
    for spanned in &raw.input {
        let r = spanned.get_ref();
        c.item = Some(ItemName::new("input", r.name.get_ref()));
        names.add(c, &r.name)?;
        let joint = joint_names.find(c, "joint", &r.joint)?;
        let kind = joints[joint].value.kind;
        if !matches!(kind, JointKind::Revolute | JointKind::Prismatic) {
            let reason = format!(
                "joint \"{}\" is {}; an input drives a revolute (torque) or prismatic (force) joint",
                r.joint.get_ref(),
                kind.name()
            );
            return Err(c.invalid(&r.joint.span(), "joint", reason));
        }
        if let Some(other) = inputs.iter().find(|i| i.value.joint == joint) {
            let reason = format!(
                "joint \"{}\" already has input \"{}\"",
                r.joint.get_ref(),
                other.name
            );
            return Err(c.invalid(&r.joint.span(), "joint", reason));
        }
        let scale = c.number_or("scale", &r.scale, Rule::Finite, 1.0)?;
        if scale == 0.0 {
            let at = r.scale.as_ref().map_or(spanned.span(), |s| s.span());
            return Err(c.invalid(&at, "scale", "must not be 0".into()));
        }
        let value = c.number_or("value", &r.value, Rule::Finite, 0.0)?;
        let servo = servo(c, spanned, kind)?;
        inputs.push(Named {
            name: r.name.get_ref().clone(),
            kind: "input",
            line: c.source.line_of(&spanned.span()),
            value: InputSpec {
                joint,
                scale,
                value,
                servo,
            },
        });
    }
    Ok(inputs)
}

/// What input `spanned` on a joint of `kind` commands: `kind = "torque"` (revolute) or
/// `"force"` (prismatic), the default, or a servo's set-point, `"position"` (gains `kp` > 0,
/// `kd` ≥ 0, default 0) or `"velocity"` (gain `kv` > 0). A gain its kind does not use is an
/// error, so a forgotten `kind` is not silently a torque.
fn servo(c: &Checker, spanned: &Spanned<RawInput>, joint: JointKind<f64>) -> Result<Servo<f64>, SceneError> {
    let r = spanned.get_ref();
    let at = r.kind.as_ref().map_or(spanned.span(), |k| k.span());
    let effort = if matches!(joint, JointKind::Prismatic) {
        "force"
    } else {
        "torque"
    };
    let name = r.kind.as_ref().map_or(effort, |k| k.get_ref().as_str());
    let servo = match name {
        "position" => Servo::Position {
            kp: c.number("kp", c.required(&at, "kp", &r.kp)?, Rule::Positive)?,
            kd: c.number_or("kd", &r.kd, Rule::NonNegative, 0.0)?,
        },
        "velocity" => Servo::Velocity {
            kv: c.number("kv", c.required(&at, "kv", &r.kv)?, Rule::Positive)?,
        },
        "torque" | "force" if name == effort => Servo::Force,
        "torque" | "force" => {
            let reason = format!(
                "\"{name}\" does not act on a {} joint (its input is a {effort})",
                joint.name()
            );
            return Err(c.invalid(&at, "kind", reason));
        }
        other => {
            let reason = format!("\"{other}\": expected {effort}, position or velocity");
            return Err(c.invalid(&at, "kind", reason));
        }
    };
    let unused = [("kp", &r.kp), ("kd", &r.kd), ("kv", &r.kv)]
        .into_iter()
        .find(|(field, v)| {
            v.is_some()
                && !matches!(
                    (servo, *field),
                    (Servo::Position { .. }, "kp" | "kd") | (Servo::Velocity { .. }, "kv")
                )
        });
    if let Some((field, Some(v))) = unused {
        let reason = format!("not a gain of a {name} input (kp, kd: position; kv: velocity)");
        return Err(c.invalid(&v.span(), field, reason));
    }
    Ok(servo)
}
