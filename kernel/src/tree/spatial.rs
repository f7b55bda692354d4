//! Spatial (6-D) vectors and inertias, in world axes about the world origin (Featherstone,
//! *Rigid Body Dynamics Algorithms*, 2008, ch. 2): only the operations the articulated-body
//! algorithm needs.
//!
//! Referring everything to one point and one set of axes removes the link-to-link coordinate
//! transforms of the classical formulation; the price is that inertias grow with the squared
//! distance from the origin (harmless for robot-sized trees).
//!
//! The operations are `#[inline(always)]`: the multi-DOF joints call them from more places,
//! and a Cortex-M step of the 5-link chain grew 5 % when the compiler stopped inlining
//! `SpatialInertia::apply` into the articulated-body passes.

use crate::math::{Mat3, Vec3};
use crate::rigid::point_mass_inertia;
use crate::Real;

/// A spatial motion (angular velocity, velocity of the body point at the world origin) or force
/// (moment about the world origin, force) vector.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Spatial<R> {
    pub angular: Vec3<R>,
    pub linear: Vec3<R>,
}

impl<R: Real> Spatial<R> {
    pub const ZERO: Self = Self {
        angular: Vec3::ZERO,
        linear: Vec3::ZERO,
    };

    #[inline(always)]
    pub fn new(angular: Vec3<R>, linear: Vec3<R>) -> Self {
        Self { angular, linear }
    }
    #[inline(always)]
    pub fn add(self, o: Self) -> Self {
        Self::new(self.angular + o.angular, self.linear + o.linear)
    }
    #[inline(always)]
    pub fn sub(self, o: Self) -> Self {
        Self::new(self.angular - o.angular, self.linear - o.linear)
    }
    #[inline(always)]
    pub fn scale(self, s: R) -> Self {
        Self::new(self.angular * s, self.linear * s)
    }
    /// Power of a force on a motion (or the converse): mᵀ f.
    #[inline(always)]
    pub fn dot(self, o: Self) -> R {
        self.angular.dot(o.angular) + self.linear.dot(o.linear)
    }
    /// `self ×ₘ m`: rate of change of the motion vector `m` carried by a body moving with `self`.
    #[inline(always)]
    pub fn cross_motion(self, m: Self) -> Self {
        Self::new(
            self.angular.cross(m.angular),
            self.angular.cross(m.linear) + self.linear.cross(m.angular),
        )
    }
    /// `self ×* f`: rate of change of the force vector `f` carried by a body moving with `self`.
    #[inline(always)]
    pub fn cross_force(self, f: Self) -> Self {
        Self::new(
            self.angular.cross(f.angular) + self.linear.cross(f.linear),
            self.angular.cross(f.linear),
        )
    }
}

/// A symmetric 6×6 spatial inertia [[angular, coupling], [couplingᵀ, linear]] mapping a motion
/// to a force; rigid or articulated.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SpatialInertia<R> {
    pub angular: Mat3<R>,
    pub coupling: Mat3<R>,
    pub linear: Mat3<R>,
}

impl<R: Real> SpatialInertia<R> {
    pub const ZERO: Self = Self {
        angular: Mat3::ZERO,
        coupling: Mat3::ZERO,
        linear: Mat3::ZERO,
    };

    /// A rigid body of `mass` with its CG at `cg` and inertia `inertia_cg` about the CG (world
    /// axes): [[J_cg + m(|c|² I − c cᵀ), m[c]×], [−m[c]×, m I]].
    #[inline(always)]
    pub fn rigid(mass: R, cg: Vec3<R>, inertia_cg: Mat3<R>) -> Self {
        Self {
            angular: inertia_cg + point_mass_inertia(mass, cg),
            coupling: Mat3::skew(cg * mass),
            linear: Mat3::IDENTITY.scale(mass),
        }
    }
    /// The force `I m` of a motion `m`.
    #[inline(always)]
    pub fn apply(&self, m: Spatial<R>) -> Spatial<R> {
        Spatial::new(
            self.angular.mul_vec(m.angular) + self.coupling.mul_vec(m.linear),
            self.coupling.tr_mul_vec(m.angular) + self.linear.mul_vec(m.linear),
        )
    }
    #[inline(always)]
    pub fn add(&self, o: &Self) -> Self {
        Self {
            angular: self.angular + o.angular,
            coupling: self.coupling + o.coupling,
            linear: self.linear + o.linear,
        }
    }
    /// `self − k u uᵀ` (the rank-one update of the articulated-body algorithm).
    #[inline(always)]
    pub fn sub_outer(&self, u: Spatial<R>, k: R) -> Self {
        let ku = u.scale(-k);
        Self {
            angular: self.angular + Mat3::outer(ku.angular, u.angular),
            coupling: self.coupling + Mat3::outer(ku.angular, u.linear),
            linear: self.linear + Mat3::outer(ku.linear, u.linear),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rigid_inertia_gives_momentum_and_kinetic_energy() {
        // Reference: a body translating with v_cg and spinning with ω has linear momentum
        // m v_cg, angular momentum about the origin J_cg ω + c × m v_cg, and kinetic energy
        // ½ m |v_cg|² + ½ ω·J_cg ω (König). Motion vector at the origin: v_o = v_cg − ω × c.
        let (m, c) = (2.0, Vec3::new(0.3, -1.2, 0.7));
        let j = Mat3::symmetric(Vec3::new(0.4, 0.5, 0.6), 0.01, -0.02, 0.03);
        let (w, v_cg) = (Vec3::new(0.2, -0.5, 1.1), Vec3::new(1.0, 0.4, -0.3));
        let motion = Spatial::new(w, v_cg - w.cross(c));
        let f = SpatialInertia::rigid(m, c, j).apply(motion);
        assert!((f.linear - v_cg * m).norm() < 1e-14);
        assert!((f.angular - (j.mul_vec(w) + c.cross(v_cg * m))).norm() < 1e-14);
        let kinetic = 0.5 * motion.dot(f);
        let konig = 0.5 * m * v_cg.norm_squared() + 0.5 * w.dot(j.mul_vec(w));
        assert!((kinetic - konig).abs() < 1e-14);
    }
}
