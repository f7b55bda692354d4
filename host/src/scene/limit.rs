//! Joint limits of a scene: `limits = [lower, upper]` on a revolute joint (rad, the angle of
//! frame j about z of frame i, as a rotational spring measures it) or a prismatic joint (m, the
//! slide of origin j from origin i along z_i), with end stops of `limit_stiffness` and
//! `limit_damping` ([`ferrodyn_kernel::JointLimit`]). Each becomes a kernel force element
//! ([`Force::JointLimit`]) named after its joint; the tree takes it as the link's limit.

use ferrodyn_kernel::rigid::{Force, Joint, JointKind};
use ferrodyn_kernel::JointLimit;

use super::checker::Checker;
use super::convert::Rule;
use super::error::{ErrorKind, ItemName, SceneError};
use super::format::{Num, RawScene};
use super::types::Named;
use toml::Spanned;

/// End-stop stiffness when a joint gives none (N·m/rad on a revolute joint, N/m on a prismatic
/// one): a 1 kg·m² link stopped at 100 rad/s² sinks 0.01 rad into its stop.
pub const DEFAULT_LIMIT_STIFFNESS: f64 = 1e4;
/// End-stop damping when a joint gives none (N·m·s/rad or N·s/m).
pub const DEFAULT_LIMIT_DAMPING: f64 = 10.0;

/// The limit force elements of the scene's `[[joint]]` tables that give `limits` (file order),
/// to follow the `[[force]]` elements (the first at index `first`), checked by the kernel against
/// `kernel_joints` (the values of `joints`).
pub(super) fn limits(
    c: &mut Checker,
    raw: &RawScene,
    joints: &[Named<Joint<f64>>],
    kernel_joints: &[Joint<f64>],
    first: usize,
) -> Result<Vec<Named<Force<f64>>>, SceneError> {
    let mut tables = super::validate::joint_tables(joints);
    let mut forces = Vec::new();
    for spanned in &raw.joint {
        let r = spanned.get_ref();
        let name = r.name.get_ref();
        let index = tables.next();
        c.item = Some(ItemName::new("joint", name));
        let Some(range) = &r.limits else {
            end_stops(c, None, &r.limit_stiffness, &r.limit_damping)?;
            continue;
        };
        let Some(joint) = index.filter(|&k| joints[k].name == *name) else {
            continue;
        };
        if !matches!(
            joints[joint].value.kind,
            JointKind::Revolute | JointKind::Prismatic
        ) {
            let reason = format!(
                "a {} joint has no limits (revolute and prismatic joints do)",
                r.kind.get_ref()
            );
            return Err(c.invalid(&range.span(), "limits", reason));
        }
        let Some(limit) = end_stops(c, Some(range), &r.limit_stiffness, &r.limit_damping)? else {
            continue;
        };
        let value = Force::JointLimit { joint, limit };
        value
            .validate(first + forces.len(), kernel_joints, usize::MAX)
            .map_err(|e| c.error(&range.span(), ErrorKind::Kernel(e)))?;
        forces.push(Named {
            name: name.clone(),
            kind: "joint",
            line: c.source.line_of(&r.name.span()),
            value,
        });
    }
    Ok(forces)
}

/// The end stops of `range` (finite, lower ≤ upper) with `stiffness` and `damping` (the
/// defaults when absent; a joint's or a tendon's `limit_stiffness` and `limit_damping`), or,
/// without a range, `None`, and an error for either given alone.
pub(super) fn end_stops(
    c: &Checker,
    range: Option<&Spanned<[f64; 2]>>,
    stiffness: &Option<Num>,
    damping: &Option<Num>,
) -> Result<Option<JointLimit<f64>>, SceneError> {
    let Some(range) = range else {
        for (field, value) in [("limit_stiffness", stiffness), ("limit_damping", damping)] {
            if let Some(v) = value {
                let reason = "applies only with limits = [lower, upper]".into();
                return Err(c.invalid(&v.span(), field, reason));
            }
        }
        return Ok(None);
    };
    let [lower, upper] = *range.get_ref();
    if !(lower.is_finite() && upper.is_finite() && lower <= upper) {
        let reason =
            format!("[{lower}, {upper}] is not a range: give finite [lower, upper] with lower ≤ upper");
        return Err(c.invalid(&range.span(), "limits", reason));
    }
    let stiffness = c.number_or(
        "limit_stiffness",
        stiffness,
        Rule::Positive,
        DEFAULT_LIMIT_STIFFNESS,
    )?;
    let damping = c.number_or("limit_damping", damping, Rule::NonNegative, DEFAULT_LIMIT_DAMPING)?;
    Ok(Some(JointLimit::new(lower, upper, stiffness, damping)))
}
