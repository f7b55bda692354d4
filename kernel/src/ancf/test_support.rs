//! Shared fixtures of the ANCF tests: a skewed tetrahedron, a deterministic random generator.

use crate::math::Vec3;
use crate::Real;

/// A deliberately skewed, non-axis-aligned tetrahedron (positive orientation), about 1 m in size.
pub fn skewed_vertices<R: Real>() -> [Vec3<R>; 4] {
    [
        Vec3::from_f64(0.1, -0.2, 0.3),
        Vec3::from_f64(1.3, 0.1, -0.2),
        Vec3::from_f64(0.4, 0.9, 0.1),
        Vec3::from_f64(0.7, 0.35, 1.1),
    ]
}

/// A small linear congruential generator: reproducible numbers without a dependency.
pub struct Lcg(pub u64);

impl Lcg {
    /// Uniform in [0, 1).
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [−1, 1).
    pub fn signed(&mut self) -> f64 {
        2.0 * self.next() - 1.0
    }
    /// Random barycentric coordinates of an interior point.
    pub fn bary(&mut self) -> [f64; 4] {
        let l: [f64; 4] = core::array::from_fn(|_| 0.05 + self.next());
        let s = l[0] + l[1] + l[2] + l[3];
        l.map(|x| x / s)
    }
}
