//! Spatial (6-D) vectors and inertias, in world axes about the world origin (Featherstone,
//! *Rigid Body Dynamics Algorithms*, 2008, ch. 2): only the operations the articulated-body
//! algorithm needs.
//!
//! Referring everything to one point and one set of axes removes the link-to-link coordinate
//! transforms of the classical formulation; the price is that inertias grow with the squared
//! distance from the origin (harmless for robot-sized trees). A link-to-link transform of an
//! articulated inertia about a general joint axis costs about 200 products; turning the link's
//! constant inertia to world axes (R J Rᵀ, 27 products for principal axes, 45 otherwise) and
//! adding is cheaper.
//!
//! The diagonal blocks of an inertia are symmetric and stored as such ([`Sym3`], six entries):
//! 21 numbers per spatial inertia instead of 27 to build, add and update. A rigid inertia's
//! zeros (the linear block m I, the skew coupling) are skipped where it is applied
//! ([`SpatialInertia::apply_rigid`]).
//!
//! The operations are `#[inline(always)]`: the multi-DOF joints call them from more places,
//! and a Cortex-M step of the 5-link chain grew 5 % when the compiler stopped inlining
//! `SpatialInertia::apply` into the articulated-body passes.

use super::shape::{Along, InertiaShape};
use crate::math::{Mat3, Vec3};
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
}

/// A symmetric 3×3 matrix by its six distinct entries (the blocks of a spatial inertia on
/// the diagonal): `[xx, yy, zz, xy, xz, yz]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Zeroable)]
pub(crate) struct Sym3<R> {
    pub e: [R; 6],
}

impl<R: Real> Sym3<R> {
    pub const ZERO: Self = Self { e: [R::ZERO; 6] };

    /// The symmetric `m` from its upper triangle.
    #[inline(always)]
    pub fn from_upper(m: &Mat3<R>) -> Self {
        let m = &m.m;
        Self {
            e: [m[0][0], m[1][1], m[2][2], m[0][1], m[0][2], m[1][2]],
        }
    }
    /// `s I`.
    #[inline(always)]
    pub fn scalar(s: R) -> Self {
        Self {
            e: [s, s, s, R::ZERO, R::ZERO, R::ZERO],
        }
    }
    /// `R S Rᵀ` for a rotation `r`: the inertia `self` in link axes, made as `shape` says,
    /// turned to world axes. R S, then the upper triangle of (R S) Rᵀ: 27 + 18 products, 9 + 18
    /// for a diagonal `self`; a I + b r rᵀ with r the column of `r` along the symmetry axis
    /// when two principal moments are equal (a rod, a disc, a sphere): 9 products.
    #[inline(always)]
    pub fn rotated(&self, r: &Mat3<R>, shape: InertiaShape) -> Self {
        let [xx, yy, zz, ..] = self.e;
        let (a, b, axis) = match shape {
            InertiaShape::Symmetric(Along::X) => (yy, xx - yy, r.column(0)),
            InertiaShape::Symmetric(Along::Y) => (xx, yy - xx, r.column(1)),
            InertiaShape::Symmetric(Along::Z) => (xx, zz - xx, r.column(2)),
            _ => return self.rotated_full(r, shape == InertiaShape::Principal),
        };
        let ba = axis * b;
        Self {
            e: [
                a + ba.x * axis.x,
                a + ba.y * axis.y,
                a + ba.z * axis.z,
                ba.x * axis.y,
                ba.x * axis.z,
                ba.y * axis.z,
            ],
        }
    }
    /// [`Self::rotated`] by the products of R S Rᵀ (`diagonal`: the off-diagonal entries of
    /// `self` are zero).
    #[inline(always)]
    fn rotated_full(&self, r: &Mat3<R>, diagonal: bool) -> Self {
        let [xx, yy, zz, xy, xz, yz] = self.e;
        let r = &r.m;
        // Row i of R S.
        let row = |i: usize| {
            let [a, b, c] = r[i];
            [
                a * xx + b * xy + c * xz,
                a * xy + b * yy + c * yz,
                a * xz + b * yz + c * zz,
            ]
        };
        let diagonal_row = |i: usize| {
            let [a, b, c] = r[i];
            [a * xx, b * yy, c * zz]
        };
        let (m0, m1, m2) = if diagonal {
            (diagonal_row(0), diagonal_row(1), diagonal_row(2))
        } else {
            (row(0), row(1), row(2))
        };
        let dot = |m: [R; 3], j: usize| m[0] * r[j][0] + m[1] * r[j][1] + m[2] * r[j][2];
        Self {
            e: [
                dot(m0, 0),
                dot(m1, 1),
                dot(m2, 2),
                dot(m0, 1),
                dot(m0, 2),
                dot(m1, 2),
            ],
        }
    }
    #[inline(always)]
    pub fn mul_vec(&self, v: Vec3<R>) -> Vec3<R> {
        let [xx, yy, zz, xy, xz, yz] = self.e;
        Vec3::new(
            xx * v.x + xy * v.y + xz * v.z,
            xy * v.x + yy * v.y + yz * v.z,
            xz * v.x + yz * v.y + zz * v.z,
        )
    }
    /// `self += o`.
    #[inline(always)]
    pub fn add_assign(&mut self, o: &Self) {
        for (a, b) in self.e.iter_mut().zip(o.e) {
            *a += b;
        }
    }
    /// `self + k a aᵀ`.
    #[inline(always)]
    pub fn add_outer(&self, ka: Vec3<R>, a: Vec3<R>) -> Self {
        let [xx, yy, zz, xy, xz, yz] = self.e;
        Self {
            e: [
                xx + ka.x * a.x,
                yy + ka.y * a.y,
                zz + ka.z * a.z,
                xy + ka.x * a.y,
                xz + ka.x * a.z,
                yz + ka.y * a.z,
            ],
        }
    }
}

/// `m + k a bᵀ` for `ka` = k a.
#[inline(always)]
fn add_outer<R: Real>(m: &Mat3<R>, ka: Vec3<R>, b: Vec3<R>) -> Mat3<R> {
    let ka = ka.to_array();
    let b = b.to_array();
    let mut r = *m;
    for (row, k) in r.m.iter_mut().zip(ka) {
        for (e, b) in row.iter_mut().zip(b) {
            *e += k * b;
        }
    }
    r
}

/// A symmetric 6×6 spatial inertia [[angular, coupling], [couplingᵀ, linear]] mapping a motion
/// to a force; rigid or articulated. The diagonal blocks are stored symmetric.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SpatialInertia<R> {
    pub angular: Sym3<R>,
    pub coupling: Mat3<R>,
    pub linear: Sym3<R>,
}

impl<R: Real> SpatialInertia<R> {
    pub const ZERO: Self = Self {
        angular: Sym3::ZERO,
        coupling: Mat3::ZERO,
        linear: Sym3::ZERO,
    };

    /// A rigid body of `mass` with its CG at `cg` and inertia `inertia_cg` about the CG (world
    /// axes): [[J_cg + m(|c|² I − c cᵀ), m[c]×], [−m[c]×, m I]].
    #[inline(always)]
    pub fn rigid(mass: R, cg: Vec3<R>, inertia_cg: &Sym3<R>) -> Self {
        let h = cg * mass;
        let [xx, yy, zz, xy, xz, yz] = inertia_cg.e;
        let (hx, hy, hz) = (h.x * cg.x, h.y * cg.y, h.z * cg.z);
        Self {
            angular: Sym3 {
                e: [
                    xx + (hy + hz),
                    yy + (hx + hz),
                    zz + (hx + hy),
                    xy - h.x * cg.y,
                    xz - h.x * cg.z,
                    yz - h.y * cg.z,
                ],
            },
            coupling: Mat3::skew(h),
            linear: Sym3::scalar(mass),
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
    /// The force `I m` of a motion `m` for a rigid inertia made by [`Self::rigid`] of `mass`
    /// and first moment `h` = m c (the zeros of its blocks skipped).
    #[inline(always)]
    pub fn apply_rigid(&self, mass: R, h: Vec3<R>, m: Spatial<R>) -> Spatial<R> {
        Spatial::new(
            self.angular.mul_vec(m.angular) + h.cross(m.linear),
            m.angular.cross(h) + m.linear * mass,
        )
    }
    /// `self += o`.
    #[inline(always)]
    pub fn add_assign(&mut self, o: &Self) {
        self.angular.add_assign(&o.angular);
        for (a, b) in self
            .coupling
            .m
            .iter_mut()
            .flatten()
            .zip(o.coupling.m.iter().flatten())
        {
            *a += *b;
        }
        self.linear.add_assign(&o.linear);
    }
    /// `self − k u uᵀ` (the rank-one update of the articulated-body algorithm).
    #[inline(always)]
    pub fn sub_outer(&self, u: Spatial<R>, k: R) -> Self {
        let ku = u.scale(-k);
        Self {
            angular: self.angular.add_outer(ku.angular, u.angular),
            coupling: add_outer(&self.coupling, ku.angular, u.linear),
            linear: self.linear.add_outer(ku.linear, u.linear),
        }
    }
    /// `parent += self − k u uᵀ` entry by entry, without forming the difference.
    #[inline(always)]
    pub fn fold_into(&self, u: Spatial<R>, k: R, parent: &mut Self) {
        let ku = u.scale(-k);
        let fold_sym = |p: &mut Sym3<R>, s: &Sym3<R>, ka: Vec3<R>, a: Vec3<R>| {
            let d = s.add_outer(ka, a);
            for (p, d) in p.e.iter_mut().zip(d.e) {
                *p += d;
            }
        };
        fold_sym(&mut parent.angular, &self.angular, ku.angular, u.angular);
        let (ka, b) = (ku.angular.to_array(), u.linear.to_array());
        for ((prow, srow), k) in parent.coupling.m.iter_mut().zip(self.coupling.m.iter()).zip(ka) {
            for ((p, s), b) in prow.iter_mut().zip(srow).zip(b) {
                *p += *s + k * b;
            }
        }
        fold_sym(&mut parent.linear, &self.linear, ku.linear, u.linear);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symmetric_inertia_turns_as_the_full_product() {
        // Reference: R J Rᵀ by the full products. A rod along x, y or z (two equal principal
        // moments) turned as a I + b r rᵀ must agree to rounding; the shape is found from J.
        let r = Mat3::from_rows([[0.36, -0.48, 0.8], [0.8, 0.6, 0.0], [-0.48, 0.64, 0.6]]);
        for (moments, along) in [
            (Vec3::new(5e-5, 0.083, 0.083), Along::X),
            (Vec3::new(0.083, 5e-5, 0.083), Along::Y),
            (Vec3::new(0.083, 0.083, 5e-5), Along::Z),
        ] {
            let j = Mat3::diagonal(moments);
            assert_eq!(InertiaShape::of(&j), InertiaShape::Symmetric(along));
            let (fast, full) = (
                Sym3::from_upper(&j).rotated(&r, InertiaShape::Symmetric(along)),
                Sym3::from_upper(&j).rotated(&r, InertiaShape::Principal),
            );
            for (a, b) in fast.e.iter().zip(full.e) {
                assert!(Real::abs(a - b) < 1e-16, "{along:?}: {fast:?} vs {full:?}");
            }
        }
        let tilted = Mat3::symmetric(Vec3::new(0.05, 0.06, 0.07), 0.004, 0.0, 0.0);
        assert_eq!(InertiaShape::of(&tilted), InertiaShape::General);
        let box_ = Mat3::diagonal(Vec3::new(0.05, 0.06, 0.07));
        assert_eq!(InertiaShape::of(&box_), InertiaShape::Principal);
    }

    #[test]
    fn rigid_inertia_gives_momentum_and_kinetic_energy() {
        // Reference: a body translating with v_cg and spinning with ω has linear momentum
        // m v_cg, angular momentum about the origin J_cg ω + c × m v_cg, and kinetic energy
        // ½ m |v_cg|² + ½ ω·J_cg ω (König). Motion vector at the origin: v_o = v_cg − ω × c.
        let (m, c) = (2.0, Vec3::new(0.3, -1.2, 0.7));
        let j = Mat3::symmetric(Vec3::new(0.4, 0.5, 0.6), 0.01, -0.02, 0.03);
        let (w, v_cg) = (Vec3::new(0.2, -0.5, 1.1), Vec3::new(1.0, 0.4, -0.3));
        let motion = Spatial::new(w, v_cg - w.cross(c));
        let f = SpatialInertia::rigid(m, c, &Sym3::from_upper(&j)).apply(motion);
        let g = SpatialInertia::rigid(m, c, &Sym3::from_upper(&j)).apply_rigid(m, c * m, motion);
        assert!((f.angular - g.angular).norm() < 1e-14 && (f.linear - g.linear).norm() < 1e-14);
        assert!((f.linear - v_cg * m).norm() < 1e-14);
        assert!((f.angular - (j.mul_vec(w) + c.cross(v_cg * m))).norm() < 1e-14);
        let kinetic = 0.5 * motion.dot(f);
        let konig = 0.5 * m * v_cg.norm_squared() + 0.5 * w.dot(j.mul_vec(w));
        assert!((kinetic - konig).abs() < 1e-14);
    }
}
