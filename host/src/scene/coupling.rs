//! `[[coupling]]` tables: a joint's coordinate held to another's, q_joint = multiplier ·
//! q_follows + offset (a URDF `<mimic>`, an MJCF `<equality><joint>` of two coefficients), both
//! revolute or prismatic; in joint coordinates one constraint row on the tree.

use super::checker::{Checker, Names};
use super::convert::Rule;
use super::error::ItemName;
use super::error::SceneError;
use super::format::RawScene;
use super::types::{CouplingSpec, Named};
use ferrodyn_kernel::rigid::{Joint, JointKind};

/// The couplings of `raw`, each between two revolute or prismatic joints, not a joint to itself.
pub(super) fn validate(
    c: &mut Checker,
    raw: &RawScene,
    joint_names: &Names,
    joints: &[Named<Joint<f64>>],
) -> Result<Vec<Named<CouplingSpec>>, SceneError> {
    let mut names = Names::new("coupling");
    let mut couplings = Vec::new();
    for spanned in &raw.coupling {
        let r = spanned.get_ref();
        c.item = Some(ItemName::new("coupling", r.name.get_ref()));
        names.add(c, &r.name)?;
        let joint = joint_names.find(c, "joint", &r.joint)?;
        let follows = joint_names.find(c, "follows", &r.follows)?;
        for (field, name, index) in [("joint", &r.joint, joint), ("follows", &r.follows, follows)] {
            let kind = joints[index].value.kind;
            if !matches!(kind, JointKind::Revolute | JointKind::Prismatic) {
                let reason = format!(
                    "joint \"{}\" is {}; a coupling holds revolute or prismatic joints",
                    name.get_ref(),
                    kind.name()
                );
                return Err(c.invalid(&name.span(), field, reason));
            }
        }
        if joint == follows {
            let reason = format!("joint \"{}\" cannot follow itself", r.joint.get_ref());
            return Err(c.invalid(&r.follows.span(), "follows", reason));
        }
        let multiplier = c.number_or("multiplier", &r.multiplier, Rule::Finite, 1.0)?;
        let offset = c.number_or("offset", &r.offset, Rule::Finite, 0.0)?;
        couplings.push(Named {
            name: r.name.get_ref().clone(),
            kind: "coupling",
            line: c.source.line_of(&spanned.span()),
            value: CouplingSpec {
                joint,
                follows,
                multiplier,
                offset,
            },
        });
    }
    Ok(couplings)
}
