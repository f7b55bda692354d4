//! Unit quaternion for orientations.

use super::{Mat3, Vec3};
use crate::Real;

/// A quaternion `w + x i + y j + z k`; orientations use unit quaternions (body → global).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quat<R> {
    /// Scalar part.
    pub w: R,
    /// i part.
    pub x: R,
    /// j part.
    pub y: R,
    /// k part.
    pub z: R,
}

impl<R: Real> Default for Quat<R> {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl<R: Real> Quat<R> {
    /// The identity rotation.
    pub const IDENTITY: Self = Self {
        w: R::ONE,
        x: R::ZERO,
        y: R::ZERO,
        z: R::ZERO,
    };

    /// Builds from components (not normalised).
    #[inline]
    pub const fn new(w: R, x: R, y: R, z: R) -> Self {
        Self { w, x, y, z }
    }
    /// Rotation by `angle` about the unit `axis`.
    pub fn from_axis_angle(axis: Vec3<R>, angle: R) -> Self {
        let h = angle * R::HALF;
        let s = h.sin();
        Self::new(h.cos(), axis.x * s, axis.y * s, axis.z * s)
    }
    /// Rotation from roll (x), pitch (y), yaw (z) angles, applied as R = Rz(yaw) Ry(pitch) Rx(roll).
    pub fn from_roll_pitch_yaw(roll: R, pitch: R, yaw: R) -> Self {
        let qx = Self::from_axis_angle(Vec3::X, roll);
        let qy = Self::from_axis_angle(Vec3::Y, pitch);
        let qz = Self::from_axis_angle(Vec3::Z, yaw);
        qz.mul(&qy).mul(&qx)
    }
    /// The rotation (exponential map) by the rotation vector `theta` (axis × angle).
    pub fn from_rotation_vector(theta: Vec3<R>) -> Self {
        let angle = theta.norm();
        let h = angle * R::HALF;
        // sin(h)/angle, with its Taylor series near zero to stay exact and finite.
        let k = if angle < R::from_f64(1e-4) {
            R::HALF - angle * angle / R::from_f64(48.0)
        } else {
            h.sin() / angle
        };
        Self::new(h.cos(), theta.x * k, theta.y * k, theta.z * k)
    }
    /// Hamilton product `self ⊗ o`.
    #[allow(clippy::should_implement_trait)]
    pub fn mul(&self, o: &Self) -> Self {
        Self::new(
            self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
            self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
            self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
            self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w,
        )
    }
    /// Conjugate (the inverse rotation for a unit quaternion).
    pub fn conjugate(&self) -> Self {
        Self::new(self.w, -self.x, -self.y, -self.z)
    }
    /// Euclidean norm of the four components.
    pub fn norm(&self) -> R {
        (self.w * self.w + self.x * self.x + self.y * self.y + self.z * self.z).sqrt()
    }
    /// The unit quaternion along `self`, or `None` for a zero or non-finite quaternion.
    pub fn normalized(&self) -> Option<Self> {
        let n = self.norm();
        if n > R::ZERO && n.is_finite() {
            let k = R::ONE / n;
            Some(Self::new(self.w * k, self.x * k, self.y * k, self.z * k))
        } else {
            None
        }
    }
    /// Rotation matrix (body → global) of a unit quaternion.
    pub fn to_matrix(&self) -> Mat3<R> {
        let (w, x, y, z) = (self.w, self.x, self.y, self.z);
        let two = R::TWO;
        Mat3::from_rows([
            [
                R::ONE - two * (y * y + z * z),
                two * (x * y - w * z),
                two * (x * z + w * y),
            ],
            [
                two * (x * y + w * z),
                R::ONE - two * (x * x + z * z),
                two * (y * z - w * x),
            ],
            [
                two * (x * z - w * y),
                two * (y * z + w * x),
                R::ONE - two * (x * x + y * y),
            ],
        ])
    }
    /// The unit quaternion of a rotation matrix (body → global), by Shepperd's method: from
    /// the largest of w², x², y², z² (the diagonal's best-conditioned combination), so it
    /// stays accurate near 180° where the trace alone loses w. `w ≥ 0` when the largest is w².
    pub fn from_matrix(r: &Mat3<R>) -> Self {
        let m = &r.m;
        let trace = m[0][0] + m[1][1] + m[2][2];
        let quarter = R::HALF * R::HALF;
        let q = if trace >= m[0][0] && trace >= m[1][1] && trace >= m[2][2] {
            let s = (R::ONE + trace).sqrt() * R::TWO; // 4w
            Self::new(
                quarter * s,
                (m[2][1] - m[1][2]) / s,
                (m[0][2] - m[2][0]) / s,
                (m[1][0] - m[0][1]) / s,
            )
        } else if m[0][0] >= m[1][1] && m[0][0] >= m[2][2] {
            let s = (R::ONE + m[0][0] - m[1][1] - m[2][2]).sqrt() * R::TWO; // 4x
            Self::new(
                (m[2][1] - m[1][2]) / s,
                quarter * s,
                (m[0][1] + m[1][0]) / s,
                (m[0][2] + m[2][0]) / s,
            )
        } else if m[1][1] >= m[2][2] {
            let s = (R::ONE + m[1][1] - m[0][0] - m[2][2]).sqrt() * R::TWO; // 4y
            Self::new(
                (m[0][2] - m[2][0]) / s,
                (m[0][1] + m[1][0]) / s,
                quarter * s,
                (m[1][2] + m[2][1]) / s,
            )
        } else {
            let s = (R::ONE + m[2][2] - m[0][0] - m[1][1]).sqrt() * R::TWO; // 4z
            Self::new(
                (m[1][0] - m[0][1]) / s,
                (m[0][2] + m[2][0]) / s,
                (m[1][2] + m[2][1]) / s,
                quarter * s,
            )
        };
        q.normalized().unwrap_or(Self::IDENTITY)
    }
    /// Rotates a vector.
    pub fn rotate(&self, v: Vec3<R>) -> Vec3<R> {
        self.to_matrix().mul_vec(v)
    }
    /// Components as `[w, x, y, z]`.
    pub fn to_array(&self) -> [R; 4] {
        [self.w, self.x, self.y, self.z]
    }
    /// Builds from `[w, x, y, z]`.
    pub fn from_array(a: [R; 4]) -> Self {
        Self::new(a[0], a[1], a[2], a[3])
    }
    /// Time derivative `½ q ⊗ (0, ω)` for an angular velocity ω in body axes.
    pub fn derivative(&self, omega_body: Vec3<R>) -> Self {
        let p = self.mul(&Self::new(R::ZERO, omega_body.x, omega_body.y, omega_body.z));
        Self::new(p.w * R::HALF, p.x * R::HALF, p.y * R::HALF, p.z * R::HALF)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_matrix_is_orthonormal_and_matches_axis_angle() {
        // Reference: rotation by 90° about z maps x to y.
        let q = Quat::<f64>::from_axis_angle(Vec3::Z, core::f64::consts::FRAC_PI_2);
        let v = q.rotate(Vec3::X);
        assert!((v - Vec3::Y).norm() < 1e-15);
        let r = Quat::<f64>::from_roll_pitch_yaw(0.3, -0.7, 1.1).to_matrix();
        let rtr = r.transpose().mul_mat(&r);
        for i in 0..3 {
            for j in 0..3 {
                let e = if i == j { 1.0 } else { 0.0 };
                assert!((rtr.m[i][j] - e).abs() < 1e-15);
            }
        }
        assert!((r.determinant() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn rotation_vector_matches_axis_angle() {
        let axis = Vec3::<f64>::from_f64(1.0, 2.0, -0.5).normalized().unwrap();
        let a = Quat::from_rotation_vector(axis.scale(0.8));
        let b = Quat::from_axis_angle(axis, 0.8);
        assert!((a.w - b.w).abs() < 1e-15 && (a.x - b.x).abs() < 1e-15);
        let small = Quat::from_rotation_vector(axis.scale(1e-6));
        assert!((small.norm() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn from_matrix_inverts_to_matrix_in_every_branch() {
        // Each case makes another of w², x², y², z² the largest (angles near 0 and near 180°
        // about x, y, z); the round trip must give the same rotation (q or −q).
        let axis = Vec3::<f64>::from_f64(0.3, -0.5, 0.8).normalized().unwrap();
        let cases = [
            Quat::from_axis_angle(axis, 0.4),
            Quat::from_axis_angle(Vec3::X, 3.1),
            Quat::from_axis_angle(Vec3::Y, -3.0),
            Quat::from_axis_angle(Vec3::Z, core::f64::consts::PI - 1e-5),
            Quat::from_roll_pitch_yaw(2.9, 0.1, -2.8),
        ];
        for q in cases {
            let back = Quat::from_matrix(&q.to_matrix());
            let sign = if back.w * q.w + back.x * q.x + back.y * q.y + back.z * q.z < 0.0 {
                -1.0
            } else {
                1.0
            };
            for (a, b) in back.to_array().iter().zip(q.to_array()) {
                assert!((a * sign - b).abs() < 1e-15, "{q:?} -> {back:?}");
            }
        }
    }
}
