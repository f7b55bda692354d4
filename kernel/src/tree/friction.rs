//! Joint friction: a Coulomb (dry) friction force on a 1-DOF joint, smoothed so that the
//! explicit integrators can step it.
//!
//! The force is −F_c·tanh(q̇ / v_s): F_c (N·m or N) once the joint slides faster than a few v_s
//! (96 % of it at 2 v_s, 99.5 % at 3 v_s), and a steep viscous law of slope F_c / v_s through
//! rest instead of the jump of the sign function, which no fixed-step integrator can follow
//! (the force would flip every step). The price is creep: a load τ below the breakaway force
//! F_c does not hold the joint exactly still but lets it creep at q̇ = v_s·atanh(τ / F_c) (a
//! pendulum at half its breakaway torque creeps at 0.55 v_s). The slope F_c / v_s is also the
//! stiffest rate the law adds: an explicit step h stays stable while h·F_c / (v_s·I) ≲ 2.8
//! (RK4), I the joint's inertia; smaller v_s holds tighter and needs smaller steps (or an
//! implicit integrator, whose analytic matrix has the slope).
//!
//! The law only dissipates (its power −F_c·q̇·tanh(q̇ / v_s) is never positive): like the joint
//! damper's, its work leaves the total energy (kinetic plus potential) and is not stored.

use crate::{BuildError, Item, Real};

/// Smoothed Coulomb friction on a revolute (N·m) or prismatic (N) joint: −force·tanh(q̇ /
/// velocity). The default, zero force, is no friction.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct JointFriction<R> {
    /// The sliding (Coulomb) friction force F_c (N·m or N), ≥ 0; 0 for none.
    pub force: R,
    /// The smoothing velocity v_s (rad/s or m/s), > 0 where `force` is: the rate at which the
    /// force reaches tanh(1) = 76 % of F_c.
    pub velocity: R,
}

impl<R: Real> JointFriction<R> {
    /// Friction of sliding force `force` smoothed over `velocity`.
    pub fn new(force: R, velocity: R) -> Self {
        Self { force, velocity }
    }

    /// Whether there is friction (a nonzero force).
    pub fn is_some(&self) -> bool {
        self.force != R::ZERO
    }

    /// The friction force at joint rate `rate`: −F_c·tanh(rate / v_s).
    #[inline(always)]
    pub fn force(&self, rate: R) -> R {
        -(self.force * (rate / self.velocity).tanh())
    }

    /// The slope −∂force/∂rate = (F_c / v_s)·(1 − tanh²(rate / v_s)) ≥ 0 at `rate`: the damping
    /// the law acts with there (an implicit integrator's matrix takes it).
    pub fn slope(&self, rate: R) -> R {
        if !self.is_some() {
            return R::ZERO;
        }
        let t = (rate / self.velocity).tanh();
        self.force / self.velocity * (R::ONE - t * t)
    }

    /// Checks the friction of `joint`: finite, a force ≥ 0, and a velocity > 0 with a force.
    pub fn validate(&self, joint: Item) -> Result<(), BuildError> {
        if !(self.force.is_finite() && self.velocity.is_finite()) {
            return Err(BuildError::NonFinite { item: joint });
        }
        if self.force < R::ZERO {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "friction force must be ≥ 0",
            });
        }
        if self.is_some() && self.velocity <= R::ZERO {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "friction smoothing velocity must be > 0",
            });
        }
        Ok(())
    }
}
