//! 3×3 matrix.

use super::Vec3;
use crate::Real;
use core::ops::{Add, Mul, Sub};

/// A 3×3 matrix stored by rows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mat3<R> {
    /// Rows: `m[i][j]` is row i, column j.
    pub m: [[R; 3]; 3],
}

impl<R: Real> Mat3<R> {
    /// The zero matrix.
    pub const ZERO: Self = Self { m: [[R::ZERO; 3]; 3] };
    /// The identity.
    pub const IDENTITY: Self = Self {
        m: [
            [R::ONE, R::ZERO, R::ZERO],
            [R::ZERO, R::ONE, R::ZERO],
            [R::ZERO, R::ZERO, R::ONE],
        ],
    };

    /// Builds from rows.
    #[inline]
    pub const fn from_rows(m: [[R; 3]; 3]) -> Self {
        Self { m }
    }
    /// Builds from three column vectors.
    pub fn from_columns(c0: Vec3<R>, c1: Vec3<R>, c2: Vec3<R>) -> Self {
        Self::from_rows([[c0.x, c1.x, c2.x], [c0.y, c1.y, c2.y], [c0.z, c1.z, c2.z]])
    }
    /// A diagonal matrix.
    pub fn diagonal(d: Vec3<R>) -> Self {
        let z = R::ZERO;
        Self::from_rows([[d.x, z, z], [z, d.y, z], [z, z, d.z]])
    }
    /// Symmetric matrix from its diagonal (xx, yy, zz) and off-diagonal (xy, xz, yz) entries.
    pub fn symmetric(diag: Vec3<R>, xy: R, xz: R, yz: R) -> Self {
        Self::from_rows([[diag.x, xy, xz], [xy, diag.y, yz], [xz, yz, diag.z]])
    }
    /// The skew matrix `[v]×` with `[v]× w = v × w`.
    pub fn skew(v: Vec3<R>) -> Self {
        let z = R::ZERO;
        Self::from_rows([[z, -v.z, v.y], [v.z, z, -v.x], [-v.y, v.x, z]])
    }
    /// The outer product `a bᵀ`.
    pub fn outer(a: Vec3<R>, b: Vec3<R>) -> Self {
        Self::from_columns(a * b.x, a * b.y, a * b.z)
    }
    /// Rotation about the unit `axis` by the angle whose sine and cosine are given (Rodrigues:
    /// cos·I + sin·\[a\]× + (1 − cos)·a aᵀ).
    pub fn rotation(axis: Vec3<R>, sin: R, cos: R) -> Self {
        Self::IDENTITY.scale(cos) + Self::skew(axis).scale(sin) + Self::outer(axis, axis).scale(R::ONE - cos)
    }
    /// Column `j`.
    #[inline]
    pub fn column(&self, j: usize) -> Vec3<R> {
        Vec3::new(self.m[0][j], self.m[1][j], self.m[2][j])
    }
    /// Transpose.
    pub fn transpose(&self) -> Self {
        let m = &self.m;
        Self::from_rows([
            [m[0][0], m[1][0], m[2][0]],
            [m[0][1], m[1][1], m[2][1]],
            [m[0][2], m[1][2], m[2][2]],
        ])
    }
    /// Matrix–vector product.
    #[inline]
    pub fn mul_vec(&self, v: Vec3<R>) -> Vec3<R> {
        let m = &self.m;
        Vec3::new(
            m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
            m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
            m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z,
        )
    }
    /// Transposed matrix–vector product `Mᵀ v`.
    #[inline]
    pub fn tr_mul_vec(&self, v: Vec3<R>) -> Vec3<R> {
        let m = &self.m;
        Vec3::new(
            m[0][0] * v.x + m[1][0] * v.y + m[2][0] * v.z,
            m[0][1] * v.x + m[1][1] * v.y + m[2][1] * v.z,
            m[0][2] * v.x + m[1][2] * v.y + m[2][2] * v.z,
        )
    }
    /// Matrix product.
    pub fn mul_mat(&self, o: &Self) -> Self {
        let mut r = Self::ZERO;
        for i in 0..3 {
            for j in 0..3 {
                r.m[i][j] = self.m[i][0] * o.m[0][j] + self.m[i][1] * o.m[1][j] + self.m[i][2] * o.m[2][j];
            }
        }
        r
    }
    /// Scales every entry.
    pub fn scale(&self, s: R) -> Self {
        let mut r = *self;
        for row in r.m.iter_mut() {
            for e in row.iter_mut() {
                *e *= s;
            }
        }
        r
    }
    /// Symmetric part ½(M + Mᵀ).
    pub fn symmetric_part(&self) -> Self {
        let mut r = Self::ZERO;
        for i in 0..3 {
            for j in 0..3 {
                r.m[i][j] = R::HALF * (self.m[i][j] + self.m[j][i]);
            }
        }
        r
    }
    /// Determinant.
    pub fn determinant(&self) -> R {
        let m = &self.m;
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    }
    /// Inverse, or `None` when the determinant is zero or not finite.
    pub fn inverse(&self) -> Option<Self> {
        let det = self.determinant();
        if det == R::ZERO || !det.is_finite() {
            return None;
        }
        let m = &self.m;
        let inv = R::ONE / det;
        Some(Self::from_rows([
            [
                (m[1][1] * m[2][2] - m[1][2] * m[2][1]) * inv,
                (m[0][2] * m[2][1] - m[0][1] * m[2][2]) * inv,
                (m[0][1] * m[1][2] - m[0][2] * m[1][1]) * inv,
            ],
            [
                (m[1][2] * m[2][0] - m[1][0] * m[2][2]) * inv,
                (m[0][0] * m[2][2] - m[0][2] * m[2][0]) * inv,
                (m[0][2] * m[1][0] - m[0][0] * m[1][2]) * inv,
            ],
            [
                (m[1][0] * m[2][1] - m[1][1] * m[2][0]) * inv,
                (m[0][1] * m[2][0] - m[0][0] * m[2][1]) * inv,
                (m[0][0] * m[1][1] - m[0][1] * m[1][0]) * inv,
            ],
        ]))
    }
    /// Whether the symmetric matrix is positive definite (Sylvester's criterion on leading minors).
    pub fn is_positive_definite(&self) -> bool {
        let m = &self.m;
        let d1 = m[0][0];
        let d2 = m[0][0] * m[1][1] - m[0][1] * m[1][0];
        d1 > R::ZERO && d2 > R::ZERO && self.determinant() > R::ZERO
    }
    /// Whether every entry is finite.
    pub fn is_finite(&self) -> bool {
        self.m.iter().all(|row| row.iter().all(|e| e.is_finite()))
    }
}

impl<R: Real> Add for Mat3<R> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        let mut r = self;
        for i in 0..3 {
            for j in 0..3 {
                r.m[i][j] += o.m[i][j];
            }
        }
        r
    }
}

impl<R: Real> Sub for Mat3<R> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        let mut r = self;
        for i in 0..3 {
            for j in 0..3 {
                r.m[i][j] -= o.m[i][j];
            }
        }
        r
    }
}

impl<R: Real> Mul<Vec3<R>> for Mat3<R> {
    type Output = Vec3<R>;
    #[inline]
    fn mul(self, v: Vec3<R>) -> Vec3<R> {
        self.mul_vec(v)
    }
}
