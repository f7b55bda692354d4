//! Rigid placements of model frames: a position and a unit quaternion, composed parent → child.

use ferrodyn_kernel::math::{Mat3, Quat, Vec3};

/// A frame placed in another: `x_outer = p + q·x_inner`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Origin of the inner frame in the outer one.
    pub p: Vec3<f64>,
    /// Orientation of the inner frame in the outer one (unit).
    pub q: Quat<f64>,
}

impl Pose {
    /// The frame itself.
    pub const IDENTITY: Self = Self {
        p: Vec3 {
            x: 0.0,
            y: 0.0,
            z: 0.0,
        },
        q: Quat::IDENTITY,
    };

    /// A placement by position and orientation.
    pub fn new(p: Vec3<f64>, q: Quat<f64>) -> Self {
        Self { p, q }
    }

    /// URDF's `<origin xyz rpy>`: R = Rz(yaw) Ry(pitch) Rx(roll).
    pub fn from_xyz_rpy(xyz: [f64; 3], rpy: [f64; 3]) -> Self {
        Self::new(
            Vec3::from_array(xyz),
            Quat::from_roll_pitch_yaw(rpy[0], rpy[1], rpy[2]),
        )
    }

    /// `inner` placed in this frame, seen from this frame's outer frame.
    pub fn then(&self, inner: &Self) -> Self {
        Self::new(self.p + self.q.rotate(inner.p), self.q.mul(&inner.q))
    }

    /// The inverse placement.
    pub fn inverse(&self) -> Self {
        let qi = self.q.conjugate();
        Self::new(qi.rotate(self.p).scale(-1.0), qi)
    }

    /// The quaternion as `[w, x, y, z]`, sign fixed so that w ≥ 0 (one spelling per rotation).
    pub fn quaternion(&self) -> [f64; 4] {
        let q = self.q;
        let s = if q.w < 0.0 { -1.0 } else { 1.0 };
        [s * q.w, s * q.x, s * q.y, s * q.z]
    }
}

/// The shortest rotation taking z onto the unit vector `axis` (a joint frame whose z is the
/// joint axis).
pub fn z_onto(axis: Vec3<f64>) -> Quat<f64> {
    let c = axis.z;
    if c < -1.0 + 1e-12 {
        // Opposite: half a turn about x.
        return Quat::new(0.0, 1.0, 0.0, 0.0);
    }
    // q ∝ (1 + z·a, z × a)
    Quat::new(1.0 + c, -axis.y, axis.x, 0.0)
        .normalized()
        .unwrap_or(Quat::IDENTITY)
}

/// The inertia tensor `i` given in a frame turned by `q`, expressed in the outer frame:
/// R I Rᵀ.
pub fn rotate_inertia(q: &Quat<f64>, i: &Mat3<f64>) -> Mat3<f64> {
    let r = q.to_matrix();
    r.mul_mat(i).mul_mat(&r.transpose())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn z_onto_maps_z_to_the_axis() {
        for a in [
            [1.0, 0.0, 0.0],
            [0.0, 0.0, -1.0],
            [0.0, 0.0, 1.0],
            [0.3, -0.4, 0.5],
        ] {
            let a = Vec3::from_array(a).normalized().unwrap();
            let z = z_onto(a).rotate(Vec3::Z);
            assert!((z - a).norm() < 1e-15, "{a:?} → {z:?}");
        }
    }

    #[test]
    fn composition_and_inverse_cancel() {
        let a = Pose::from_xyz_rpy([0.1, -0.2, 0.3], [0.4, -0.5, 0.6]);
        let b = Pose::from_xyz_rpy([1.0, 2.0, -3.0], [-1.0, 0.2, 2.5]);
        let back = a.then(&b).then(&b.inverse());
        assert!((back.p - a.p).norm() < 1e-14);
        let x = Vec3::new(0.3, 0.7, -0.1);
        assert!((back.q.rotate(x) - a.q.rotate(x)).norm() < 1e-14);
    }

    #[test]
    fn rotated_inertia_keeps_its_invariants() {
        // A rotation keeps the trace and the determinant (the principal moments).
        let i = Mat3::symmetric(Vec3::new(1.0, 2.0, 3.0), 0.1, -0.2, 0.3);
        let j = rotate_inertia(&Quat::from_roll_pitch_yaw(0.3, 1.1, -0.7), &i);
        let trace = |m: &Mat3<f64>| m.m[0][0] + m.m[1][1] + m.m[2][2];
        assert!((trace(&i) - trace(&j)).abs() < 1e-14);
        assert!((i.determinant() - j.determinant()).abs() < 1e-13);
        // A quarter turn about z swaps Ixx and Iyy.
        let d = Mat3::diagonal(Vec3::new(1.0, 2.0, 3.0));
        let k = rotate_inertia(
            &Quat::from_roll_pitch_yaw(0.0, 0.0, std::f64::consts::FRAC_PI_2),
            &d,
        );
        assert!((k.m[0][0] - 2.0).abs() < 1e-15 && (k.m[1][1] - 1.0).abs() < 1e-15);
    }
}
