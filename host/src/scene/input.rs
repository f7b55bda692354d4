//! `[[input]]` tables: actuator ports on joints — the torque of a revolute joint or the force
//! of a prismatic one, in port units times `scale` — that a rig sets every period on the
//! microcontroller and `ferrodyn run` holds at `value`.

use super::checker::{Checker, Names};
use super::convert::Rule;
use super::error::{ItemName, SceneError};
use super::format::RawScene;
use super::types::{InputSpec, Named};
use ferrodyn_kernel::rigid::{Joint, JointKind};

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
        inputs.push(Named {
            name: r.name.get_ref().clone(),
            kind: "input",
            line: c.source.line_of(&spanned.span()),
            value: InputSpec { joint, scale, value },
        });
    }
    Ok(inputs)
}
