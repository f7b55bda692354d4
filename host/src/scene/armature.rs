//! Joint armature: `armature = Ia` on a `[[joint]]` is a rotor inertia on each of the joint's
//! coordinates (kg·m² on a rotation, kg on a slide; MuJoCo's `armature`: a geared motor's rotor
//! inertia times the gear ratio squared). The tree adds it to the diagonal of the joint-space
//! mass matrix ([`ferrodyn_kernel::tree::Link::armature`]); the Cartesian model has no place
//! for it, and a scene that has some and runs Cartesian is refused (`compile::formulation`).

use ferrodyn_kernel::rigid::{Joint, JointKind};

use super::checker::Checker;
use super::convert::Rule;
use super::error::{ItemName, SceneError};
use super::format::RawScene;
use super::types::Named;

/// Each joint's armature (finite, ≥ 0) by index into `joints` (0 where none is given and for
/// drives); on a fixed or distance joint, which has no coordinate, an error.
pub(super) fn armature(
    c: &mut Checker,
    raw: &RawScene,
    joints: &[Named<Joint<f64>>],
) -> Result<Vec<f64>, SceneError> {
    let mut armature = vec![0.0; joints.len()];
    let mut tables = super::validate::joint_tables(joints);
    for spanned in &raw.joint {
        let r = spanned.get_ref();
        let table = tables.next();
        let Some(value) = &r.armature else {
            continue;
        };
        let name = r.name.get_ref();
        c.item = Some(ItemName::new("joint", name));
        let ia = c.number("armature", value, Rule::NonNegative)?;
        let Some(index) = table.filter(|&k| joints[k].name == *name) else {
            continue;
        };
        if matches!(
            joints[index].value.kind,
            JointKind::Fixed | JointKind::Distance { .. }
        ) {
            let reason = format!(
                "a {} joint has no coordinate for a rotor inertia to turn with",
                r.kind.get_ref()
            );
            return Err(c.invalid(&value.span(), "armature", reason));
        }
        armature[index] = ia;
    }
    Ok(armature)
}
