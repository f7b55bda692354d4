//! Coordinate rows on a tree: constraint rows linear in the joint coordinates of revolute and
//! prismatic joints, beside the loop rows ([`super::loops`]) and solved with them.
//!
//! - A coupling (URDF `<mimic>`, MJCF `<equality><joint>` with two coefficients):
//!   Φ = q_j − m·q_i − c, Φ_q = e_j − m·e_i, Φ_t = 0, γ = 0.
//! - A drive (a prescribed coordinate): q_j = m·f(t) + c, so Φ = q_j − m·f(t) − c,
//!   Φ_q = e_j, Φ_t = −m·ḟ, γ = m·f̈ (Φ̈ = q̈_j − m·f̈ = 0 ⟺ Φ_q q̈ = γ). The multiplier and offset
//!   carry a scene drive's angle onto the tree's coordinate (which is 0 at the assembled
//!   configuration and may turn the other way).
//!
//! The rows' multipliers λ are the generalized forces −λ the rows put on their coordinates
//! (for a drive: the actuator's torque or force on the driven joint).

use crate::rigid::ConstraintRow;
use crate::time_function::TimeFunction;
use crate::Real;

/// What a coordinate row holds link `link`'s coordinate to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CoordinateLaw<R> {
    /// q = multiplier · q_leader + offset, with `leader` another 1-DOF link.
    Follows {
        /// The leading link.
        leader: usize,
        /// m.
        multiplier: R,
        /// c.
        offset: R,
    },
    /// q = multiplier · f(t) + offset.
    Driven {
        /// f.
        function: TimeFunction<R>,
        /// m.
        multiplier: R,
        /// c.
        offset: R,
    },
}

/// A constraint row on the coordinate of link `link`'s revolute or prismatic joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CoordinateRow<R> {
    /// The link whose coordinate the row holds (a coupling's follower, a drive's joint).
    pub link: usize,
    /// What it is held to.
    pub law: CoordinateLaw<R>,
    /// Where the link's coordinate sits in q and in v (found when the row is added).
    pub(crate) at: (usize, usize),
    /// Where the leader's sits (a coupling's; unused by a drive).
    pub(crate) leader_at: (usize, usize),
}

impl<R: Real> CoordinateRow<R> {
    /// Φ, Φ_t and γ of the row at time `t` and coordinates `q` (its Jacobian blocks on links
    /// stay zero: [`Self::jacobian`] writes its row of Φ_q).
    pub(crate) fn evaluate(&self, t: R, q: &[R]) -> ConstraintRow<R> {
        let at = |i: usize| q.get(i).copied().unwrap_or(R::ZERO);
        let mut row = ConstraintRow::default();
        match self.law {
            CoordinateLaw::Follows {
                multiplier, offset, ..
            } => {
                row.phi = at(self.at.0) - multiplier * at(self.leader_at.0) - offset;
            }
            CoordinateLaw::Driven {
                function,
                multiplier,
                offset,
            } => {
                let f = function.eval(t);
                row.phi = at(self.at.0) - multiplier * f.value - offset;
                row.phi_t = -(multiplier * f.rate);
                row.gamma = multiplier * f.accel;
            }
        }
        row
    }

    /// Writes the row's Φ_q (velocity coordinates) into `g`, zeroed by the caller.
    pub(crate) fn jacobian(&self, g: &mut [R]) {
        if let Some(x) = g.get_mut(self.at.1) {
            *x = R::ONE;
        }
        if let CoordinateLaw::Follows { multiplier, .. } = self.law {
            if let Some(x) = g.get_mut(self.leader_at.1) {
                *x -= multiplier;
            }
        }
    }
}

/// The largest |Φ| of `rows` at time `t` and coordinates `q` (0 without rows).
pub(crate) fn residual<R: Real>(rows: &[CoordinateRow<R>], t: R, q: &[R]) -> R {
    rows.iter()
        .fold(R::ZERO, |m, row| m.max(row.evaluate(t, q).phi.abs()))
}

#[cfg(test)]
#[path = "coordinate_rows_tests.rs"]
mod tests;
