//! Joint friction: `friction = F_c` on a revolute (N·m) or prismatic (N) `[[joint]]` is a
//! Coulomb (dry) friction force, smoothed over `friction_velocity = v_s` (rad/s or m/s; default
//! [`DEFAULT_FRICTION_VELOCITY`]) as −F_c·tanh(q̇ / v_s) so that explicit integrators can step
//! it ([`ferrodyn_kernel::tree::JointFriction`]: why, and what v_s costs). The tree applies it
//! in the joint's force; the Cartesian model has no place for it, and a scene that has some
//! and runs Cartesian, or puts it on a joint that closes a loop, is refused
//! (`compile::formulation`).

use ferrodyn_kernel::rigid::{Joint, JointKind};
use ferrodyn_kernel::tree::JointFriction;

use super::checker::Checker;
use super::convert::Rule;
use super::error::{ItemName, SceneError};
use super::format::RawScene;
use super::types::Named;

/// Smoothing velocity when a joint gives none (rad/s or m/s): the friction reaches 76 % of F_c
/// at 0.01 rad/s (0.6 °/s) or 1 cm/s, and a load at half the breakaway force creeps at 0.0055
/// rad/s or 5.5 mm/s. Near rest the law damps at F_c / v_s = 100·F_c (N·m·s/rad or N·s/m): RK4
/// at step h needs 100·F_c·h / I ≲ 2.8 on a joint of inertia I (kg·m² or kg); stiffer joints
/// take a larger v_s or an implicit integrator.
pub const DEFAULT_FRICTION_VELOCITY: f64 = 0.01;

/// Each joint's friction by index into `joints` (zero force where none is given and for
/// drives); on a joint other than revolute or prismatic, an error naming it.
pub(super) fn friction(
    c: &mut Checker,
    raw: &RawScene,
    joints: &[Named<Joint<f64>>],
) -> Result<Vec<JointFriction<f64>>, SceneError> {
    let mut friction = vec![JointFriction::default(); joints.len()];
    let mut tables = super::validate::joint_tables(joints);
    for spanned in &raw.joint {
        let r = spanned.get_ref();
        let table = tables.next();
        let name = r.name.get_ref();
        c.item = Some(ItemName::new("joint", name));
        let Some(value) = &r.friction else {
            if let Some(velocity) = &r.friction_velocity {
                let reason = "applies only with friction = F_c".into();
                return Err(c.invalid(&velocity.span(), "friction_velocity", reason));
            }
            continue;
        };
        let force = c.number("friction", value, Rule::NonNegative)?;
        let velocity = c.number_or(
            "friction_velocity",
            &r.friction_velocity,
            Rule::Positive,
            DEFAULT_FRICTION_VELOCITY,
        )?;
        let Some(index) = table.filter(|&k| joints[k].name == *name) else {
            continue;
        };
        if !matches!(
            joints[index].value.kind,
            JointKind::Revolute | JointKind::Prismatic
        ) {
            let reason = format!(
                "a {} joint has no friction (revolute and prismatic joints do)",
                r.kind.get_ref()
            );
            return Err(c.invalid(&value.span(), "friction", reason));
        }
        friction[index] = JointFriction::new(force, velocity);
    }
    Ok(friction)
}
