//! Joint limits: the range [lower, upper] of a revolute or prismatic joint's coordinate,
//! enforced by a stiff, damped, unilateral spring at each end — the one law the tree
//! ([`crate::tree::Link::with_limit`]) and the Cartesian model
//! ([`crate::rigid::Force::JointLimit`]) share, so both formulations (and the firmware) stop a
//! joint the same way.
//!
//! Past an end by a depth d > 0 (d = lower − q or q − upper) the joint force pushes back with
//! k·d + c·ḋ, never pulling (a contact-like end stop: the force is cut at zero when the joint
//! leaves the stop faster than the spring relaxes). The spring stores ½·k·d², counted in the
//! potential energy; the damping and the cut only ever remove energy, so a limited joint with
//! c ≥ 0 never gains energy from its limits.

use crate::{BuildError, Item, Real};

/// The range of a revolute (rad) or prismatic (m) joint coordinate and the end-stop spring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointLimit<R> {
    /// Lower end of the range (rad or m).
    pub lower: R,
    /// Upper end of the range (rad or m), ≥ `lower`.
    pub upper: R,
    /// Stiffness k of the end stops (N·m/rad or N/m), > 0.
    pub stiffness: R,
    /// Damping c of the end stops (N·m·s/rad or N·s/m), ≥ 0, acting only past an end.
    pub damping: R,
}

impl<R: Real> JointLimit<R> {
    /// The range [`lower`, `upper`] with end stops of `stiffness` and `damping`.
    pub fn new(lower: R, upper: R, stiffness: R, damping: R) -> Self {
        Self {
            lower,
            upper,
            stiffness,
            damping,
        }
    }

    /// Checks the limit of `item` (the joint or force carrying it).
    pub fn validate(&self, item: Item) -> Result<(), BuildError> {
        let values = [self.lower, self.upper, self.stiffness, self.damping];
        if !values.iter().all(|v| v.is_finite()) {
            return Err(BuildError::NonFinite { item });
        }
        let invalid = |reason| Err(BuildError::InvalidParameter { item, reason });
        if self.lower > self.upper {
            return invalid("joint limit: lower must be ≤ upper");
        }
        if self.stiffness <= R::ZERO {
            return invalid("joint limit: stiffness must be > 0");
        }
        if self.damping < R::ZERO {
            return invalid("joint limit: damping must be ≥ 0");
        }
        Ok(())
    }

    /// The joint force (N·m or N) of the end stops at coordinate `q` and rate `rate`: zero
    /// inside the range, k·d − c·q̇ ≥ 0 below it, −(k·d + c·q̇) ≤ 0 above it.
    #[inline(always)]
    pub fn force(&self, q: R, rate: R) -> R {
        if q < self.lower {
            (self.stiffness * (self.lower - q) - self.damping * rate).max(R::ZERO)
        } else if q > self.upper {
            -(self.stiffness * (q - self.upper) + self.damping * rate).max(R::ZERO)
        } else {
            R::ZERO
        }
    }

    /// The energy stored in the end stops at coordinate `q`: ½·k·d² past an end, else zero.
    pub fn energy(&self, q: R) -> R {
        let depth = (self.lower - q).max(q - self.upper).max(R::ZERO);
        R::HALF * self.stiffness * depth * depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMIT: JointLimit<f64> = JointLimit {
        lower: -1.0,
        upper: 2.0,
        stiffness: 100.0,
        damping: 3.0,
    };

    #[test]
    fn the_force_is_the_spring_and_damper_past_an_end_and_never_pulls() {
        assert_eq!(LIMIT.force(0.5, 10.0), 0.0);
        // k·d + c·|q̇| at depths d = 0.25 and 0.5 (exact in binary).
        assert_eq!(LIMIT.force(-1.25, -1.0), 100.0 * 0.25 + 3.0);
        assert_eq!(LIMIT.force(2.5, 1.0), -(100.0 * 0.5 + 3.0));
        // Leaving the stop faster than the spring relaxes: no pull.
        assert_eq!(LIMIT.force(-1.01, 100.0), 0.0);
        assert_eq!(LIMIT.force(2.01, -100.0), 0.0);
    }

    #[test]
    fn the_energy_is_the_spring_potential_whose_derivative_is_the_force() {
        assert_eq!(LIMIT.energy(0.0), 0.0);
        assert!((LIMIT.energy(-1.5) - 0.5 * 100.0 * 0.25).abs() < 1e-12);
        assert!((LIMIT.energy(3.0) - 0.5 * 100.0).abs() < 1e-12);
        // −dE/dq = force at rest (central difference, exact for a quadratic).
        for q in [-1.5, 2.7] {
            let h = 1e-4;
            let derivative = (LIMIT.energy(q + h) - LIMIT.energy(q - h)) / (2.0 * h);
            assert!((-derivative - LIMIT.force(q, 0.0)).abs() < 1e-8);
        }
    }

    #[test]
    fn bad_values_are_errors_naming_the_item() {
        let item = Item::Joint(3);
        assert_eq!(LIMIT.validate(item), Ok(()));
        let bad = |limit: JointLimit<f64>, reason| {
            assert_eq!(
                limit.validate(item),
                Err(BuildError::InvalidParameter { item, reason })
            )
        };
        bad(
            JointLimit::new(1.0, 0.0, 1.0, 0.0),
            "joint limit: lower must be ≤ upper",
        );
        bad(
            JointLimit::new(0.0, 1.0, 0.0, 0.0),
            "joint limit: stiffness must be > 0",
        );
        bad(
            JointLimit::new(0.0, 1.0, 1.0, -1.0),
            "joint limit: damping must be ≥ 0",
        );
        assert_eq!(
            JointLimit::new(f64::NAN, 1.0, 1.0, 0.0).validate(item),
            Err(BuildError::NonFinite { item })
        );
    }
}
