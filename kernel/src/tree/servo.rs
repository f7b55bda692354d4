//! Joint servos: how a 1-DOF joint's input acts on it — as the joint force itself, or as the
//! set-point of a position or velocity servo inside the dynamics (MuJoCo's position and
//! velocity actuators).
//!
//! The servo force depends on the joint coordinate and rate, so it is formed at every
//! evaluation of the dynamics (every stage of a Runge–Kutta step), not once per step: a stiff
//! servo stepped that way is as stable as the integrator on the closed loop, where a force
//! computed once per period by the caller would lag by a step.

use super::model::{Link, Model};
use super::Data;
use crate::storage::Storage;
use crate::{BuildError, Item, Real};

/// What the input of a revolute or prismatic joint commands (the model holds the gains, the
/// data's input slot the set-point).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Servo<R> {
    /// The input is the joint torque (N·m) or force (N).
    #[default]
    Force,
    /// The input is a position set-point r (rad or m): τ = kp·(r − q) − kd·q̇.
    Position {
        /// Stiffness (N·m/rad or N/m), > 0.
        kp: R,
        /// Damping (N·m·s/rad or N·s/m), ≥ 0.
        kd: R,
    },
    /// The input is a velocity set-point r (rad/s or m/s): τ = kv·(r − q̇).
    Velocity {
        /// Gain (N·m·s/rad or N·s/m), > 0.
        kv: R,
    },
}

impl<R: Real> Servo<R> {
    /// Checks the gains of the servo of link `index`'s joint, of `dofs` degrees of freedom.
    pub(super) fn validate(self, index: usize, dofs: usize) -> Result<(), BuildError> {
        let item = Item::Joint(index);
        let invalid = |reason| Err(BuildError::InvalidParameter { item, reason });
        let (gain, damping) = match self {
            Self::Force => return Ok(()),
            Self::Position { kp, kd } => (kp, kd),
            Self::Velocity { kv } => (kv, R::ZERO),
        };
        if dofs != 1 {
            return invalid("a servo drives a revolute or prismatic joint");
        }
        if !(gain.is_finite() && damping.is_finite()) {
            return Err(BuildError::NonFinite { item });
        }
        if gain <= R::ZERO {
            return invalid("servo gain (kp, kv) must be > 0");
        }
        if damping < R::ZERO {
            return invalid("servo damping kd must be ≥ 0");
        }
        Ok(())
    }
}

/// The generalised force on a 1-DOF `link`'s joint at coordinate `q` and rate `rate` from its
/// `input` (force or set-point, as [`Link::servo`] says), its viscous damping and its spring:
/// the one place the joint force of the dynamics is formed. Without a servo it is input −
/// damping·q̇, evaluated exactly as before servos existed (the same bits); the spring's term is
/// subtracted next, and only where there is a spring, so trees without springs keep their bits,
/// then the joint's friction ([`super::JointFriction`]) where it has some;
/// the end stops of a limit ([`crate::JointLimit`]) are added after it, where there is one.
#[inline(always)]
pub(super) fn joint_force<R: Real>(link: &Link<R>, q: R, rate: R, input: R) -> R {
    let force = free_joint_force(link, q, rate, input);
    match link.limit {
        None => force,
        Some(limit) => force + limit.force(q, rate),
    }
}

/// [`joint_force`] without the limit's end stops.
#[inline(always)]
fn free_joint_force<R: Real>(link: &Link<R>, q: R, rate: R, input: R) -> R {
    let actuator = match link.servo {
        Servo::Force => input,
        Servo::Position { kp, kd } => kp * (input - q) - kd * rate,
        Servo::Velocity { kv } => kv * (input - rate),
    };
    let force = actuator - link.damping * rate;
    let force = if link.stiffness == R::ZERO {
        force
    } else {
        force - link.stiffness * (q - link.rest)
    };
    // Added only where there is friction, so trees without it keep their bits.
    if link.friction.is_some() {
        force + link.friction.force(rate)
    } else {
        force
    }
}

/// The energy stored in the springs of the position servos, ½·kp·(r − q)² each, at the data's
/// state and set-points, in the joint springs, ½·k·(q − rest)² each, and in the end stops of
/// the joint limits ([`crate::JointLimit::energy`]): part of the potential
/// energy, so that with set-points held a servoed tree conserves energy (kd = 0) or loses it
/// (kd > 0) as a spring and damper would.
pub(super) fn spring_energy<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> R {
    let q = data.positions();
    let (mut at_q, mut at_v, mut energy) = (0, 0, R::ZERO);
    for link in model.links() {
        if let (Servo::Position { kp, .. }, Some(&q), Some(&r)) =
            (link.servo, q.get(at_q), data.inputs().get(at_v))
        {
            energy += R::HALF * kp * (r - q) * (r - q);
        }
        if let (true, Some(&q)) = (link.stiffness != R::ZERO, q.get(at_q)) {
            energy += R::HALF * link.stiffness * (q - link.rest) * (q - link.rest);
        }
        if let (Some(limit), Some(&q)) = (link.limit, q.get(at_q)) {
            energy += limit.energy(q);
        }
        at_q += link.position_count();
        at_v += link.velocity_count();
    }
    energy
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Mat3, Vec3};
    use crate::Fixed;

    fn built(link: Link<f64>) -> Result<(), BuildError> {
        let mut b = Model::<f64, Fixed<4>>::builder(Vec3::ZERO);
        let inertia = Mat3::diagonal(Vec3::new(0.1, 0.1, 0.1));
        b.add_link(link.with_mass(1.0, Vec3::X, inertia)).map(|_| ())
    }

    #[test]
    fn bad_gains_springs_and_multi_dof_joints_are_errors_naming_the_joint() {
        let hinge = Link::revolute(None, Vec3::ZERO, Vec3::Y);
        let position = |kp, kd| hinge.with_servo(Servo::Position { kp, kd });
        assert_eq!(built(position(1.0, 0.0)), Ok(()));
        assert_eq!(built(hinge.with_servo(Servo::Velocity { kv: 1.0 })), Ok(()));
        let invalid = |reason| {
            Err(BuildError::InvalidParameter {
                item: Item::Joint(0),
                reason,
            })
        };
        assert_eq!(
            built(position(0.0, 0.0)),
            invalid("servo gain (kp, kv) must be > 0")
        );
        assert_eq!(
            built(position(1.0, -1.0)),
            invalid("servo damping kd must be ≥ 0")
        );
        assert_eq!(
            built(hinge.with_servo(Servo::Velocity { kv: -1.0 })),
            invalid("servo gain (kp, kv) must be > 0")
        );
        assert_eq!(
            built(position(f64::NAN, 0.0)),
            Err(BuildError::NonFinite { item: Item::Joint(0) })
        );
        assert_eq!(
            built(hinge.with_spring(-1.0, 0.0)),
            invalid("spring stiffness must be ≥ 0")
        );
        assert_eq!(
            built(Link::spherical(None, Vec3::ZERO).with_spring(1.0, 0.0)),
            invalid("a joint spring acts on a revolute or prismatic joint")
        );
        assert_eq!(
            built(hinge.with_spring(1.0, f64::INFINITY)),
            Err(BuildError::NonFinite { item: Item::Joint(0) })
        );
        let ball = Link::spherical(None, Vec3::ZERO).with_servo(Servo::Position { kp: 1.0, kd: 0.0 });
        assert_eq!(
            built(ball),
            invalid("a servo drives a revolute or prismatic joint")
        );
    }
}
