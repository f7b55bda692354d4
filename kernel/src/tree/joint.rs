//! Joints of several degrees of freedom ([`MultiJoint`]): the link pose they give, their motion
//! subspace S and its rate of change, and the small LDLᵀ factorisation of D = Sᵀ I^A S that the
//! articulated-body algorithm needs for them (Featherstone 2008, §4.4 and §7.3).
//!
//! Everything is in world axes about the world origin, as in [`super::spatial`]. A column of
//! S fixed in the parent changes as v_parent ×ₘ S_j, one fixed in the link as v_link ×ₘ S_j;
//! with the parent-fixed columns first, the velocity-product acceleration Ṡ q̇ is
//! v_link ×ₘ (S q̇) + (S_P q̇_P) ×ₘ (S_C q̇_C) (P parent-fixed, C link-fixed columns).

use super::dynamics::Pose;
use super::spatial::Spatial;
use super::{Link, MultiJoint};
use crate::math::{Mat3, Quat, Vec3};
use crate::Real;

/// The most degrees of freedom of a joint.
pub(crate) const MAX_DOF: usize = 6;

/// The unit quaternion stored at `q[at..at + 4]`, normalised (as the Cartesian model reads its
/// bodies' quaternions between steps); NaN for a zero, short or non-finite one, so that the
/// step fails naming the joint.
pub(crate) fn quaternion_at<R: Real>(q: &[R], at: usize) -> Quat<R> {
    let nan = R::from_f64(f64::NAN);
    match q.get(at..at + 4) {
        Some(&[w, x, y, z]) => Quat::new(w, x, y, z)
            .normalized()
            .unwrap_or(Quat::new(nan, nan, nan, nan)),
        _ => Quat::new(nan, nan, nan, nan),
    }
}

/// The 3-vector at `v[at..at + 3]` (zero if short).
pub(crate) fn vec_at<R: Real>(v: &[R], at: usize) -> Vec3<R> {
    match v.get(at..at + 3) {
        Some(&[x, y, z]) => Vec3::new(x, y, z),
        _ => Vec3::ZERO,
    }
}

/// The coordinate `q[at]` (zero if short).
fn at<R: Real>(q: &[R], at: usize) -> R {
    q.get(at).copied().unwrap_or(R::ZERO)
}

/// The pose of a link on the multi-DOF `joint` with position coordinates `q`, its parent at
/// `frame`.
pub(crate) fn pose<R: Real>(link: &Link<R>, joint: MultiJoint, frame: &Pose<R>, q: &[R]) -> Pose<R> {
    match joint {
        MultiJoint::Cylindrical => {
            let (sin, cos) = at(q, 0).sin_cos();
            Pose {
                origin: frame.point(link.origin + link.axis * at(q, 1)),
                rotation: frame.rotation.mul_mat(&Mat3::rotation(link.axis, sin, cos)),
            }
        }
        MultiJoint::Universal => {
            let (sin1, cos1) = at(q, 0).sin_cos();
            let (sin2, cos2) = at(q, 1).sin_cos();
            let relative =
                Mat3::rotation(link.axis, sin1, cos1).mul_mat(&Mat3::rotation(link.second_axis, sin2, cos2));
            Pose {
                origin: frame.point(link.origin),
                rotation: frame.rotation.mul_mat(&relative),
            }
        }
        MultiJoint::Spherical => Pose {
            origin: frame.point(link.origin),
            rotation: frame.rotation.mul_mat(&quaternion_at(q, 0).to_matrix()),
        },
        MultiJoint::Free => Pose {
            origin: frame.point(link.origin + vec_at(q, 0)),
            rotation: frame.rotation.mul_mat(&quaternion_at(q, 3).to_matrix()),
        },
    }
}

/// The motion subspace S of a multi-DOF joint: the link's spatial velocity relative to its
/// parent per unit of each velocity coordinate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Subspace<R> {
    /// The columns (the first `dof`).
    pub columns: [Spatial<R>; MAX_DOF],
    /// Number of columns k.
    pub dof: usize,
    /// The first `parent_fixed` columns are fixed in the parent, the rest in the link.
    parent_fixed: usize,
}

impl<R: Real> Subspace<R> {
    /// S of `joint` on `link`, its parent at `frame` and the link at `pose`.
    pub fn of(link: &Link<R>, joint: MultiJoint, frame: &Pose<R>, pose: &Pose<R>) -> Self {
        let mut columns = [Spatial::ZERO; MAX_DOF];
        let o = pose.origin;
        // Rotation about the line through the link origin along `axis` (world).
        let turn = |axis: Vec3<R>| Spatial::new(axis, o.cross(axis));
        let slide = |axis: Vec3<R>| Spatial::new(Vec3::ZERO, axis);
        let (dof, parent_fixed) = match joint {
            MultiJoint::Cylindrical => {
                let axis = frame.rotation.mul_vec(link.axis);
                columns[0] = turn(axis);
                columns[1] = slide(axis);
                (2, 2)
            }
            MultiJoint::Universal => {
                columns[0] = turn(frame.rotation.mul_vec(link.axis));
                // The second axis is fixed in the intermediate frame and in the link alike.
                columns[1] = turn(pose.rotation.mul_vec(link.second_axis));
                (2, 1)
            }
            MultiJoint::Spherical => {
                for (j, c) in columns.iter_mut().take(3).enumerate() {
                    *c = turn(pose.rotation.column(j));
                }
                (3, 0)
            }
            MultiJoint::Free => {
                let (translation, rotation) = columns.split_at_mut(3);
                for (j, c) in translation.iter_mut().enumerate() {
                    *c = slide(frame.rotation.column(j));
                }
                for (j, c) in rotation.iter_mut().enumerate() {
                    *c = turn(pose.rotation.column(j));
                }
                (6, 3)
            }
        };
        Self {
            columns,
            dof,
            parent_fixed,
        }
    }

    /// The columns in use.
    pub fn used(&self) -> &[Spatial<R>] {
        self.columns.get(..self.dof).unwrap_or_default()
    }

    /// S `rate` (the first `dof` entries of `rate`).
    pub fn times(&self, rate: &[R]) -> Spatial<R> {
        self.used()
            .iter()
            .zip(rate)
            .fold(Spatial::ZERO, |sum, (c, &r)| sum.add(c.scale(r)))
    }

    /// The velocity-product acceleration Ṡ q̇ of a link moving with `velocity` at joint rates
    /// `rate`.
    pub fn bias(&self, velocity: Spatial<R>, rate: &[R]) -> Spatial<R> {
        let split = self.parent_fixed.min(self.dof);
        let (parent, link) = self.used().split_at(split);
        let (parent_rate, link_rate) = rate.split_at(split.min(rate.len()));
        let combine = |cols: &[Spatial<R>], rates: &[R]| {
            cols.iter()
                .zip(rates)
                .fold(Spatial::ZERO, |sum, (c, &r)| sum.add(c.scale(r)))
        };
        let (m_parent, m_link) = (combine(parent, parent_rate), combine(link, link_rate));
        velocity
            .cross_motion(m_parent.add(m_link))
            .add(m_parent.cross_motion(m_link))
    }
}

/// The LDLᵀ factors of a symmetric positive definite k × k matrix (k ≤ 6): unit lower
/// triangular L (below the diagonal of `lower`) and the diagonal `pivots`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ldl<R> {
    pub lower: [[R; MAX_DOF]; MAX_DOF],
    pub pivots: [R; MAX_DOF],
    dof: usize,
}

// Triangular loops read as the textbook's with indices (all below `dof` ≤ 6, the arrays' size).
#[allow(clippy::needless_range_loop)]
impl<R: Real> Ldl<R> {
    /// Factors the leading `dof` × `dof` block of `m` (its lower triangle is read). Fails with
    /// the index of the first pivot that is not positive, or at round-off level relative to its
    /// diagonal entry (a singular or indefinite matrix), or not finite.
    pub fn factor(m: &[[R; MAX_DOF]; MAX_DOF], dof: usize) -> Result<Self, usize> {
        let dof = dof.min(MAX_DOF);
        let mut f = Self {
            lower: [[R::ZERO; MAX_DOF]; MAX_DOF],
            pivots: [R::ZERO; MAX_DOF],
            dof,
        };
        for j in 0..dof {
            let mut pivot = m[j][j];
            for i in 0..j {
                pivot -= f.lower[j][i] * f.lower[j][i] * f.pivots[i];
            }
            let floor = R::from_f64(64.0) * R::EPSILON * m[j][j].abs();
            if !(pivot.is_finite() && pivot > floor) {
                return Err(j);
            }
            f.pivots[j] = pivot;
            for r in j + 1..dof {
                let mut sum = m[r][j];
                for i in 0..j {
                    sum -= f.lower[r][i] * f.lower[j][i] * f.pivots[i];
                }
                f.lower[r][j] = sum / pivot;
            }
        }
        Ok(f)
    }

    /// Solves (L D Lᵀ) x = b for the first `dof` entries of `b`.
    pub fn solve(&self, b: &[R; MAX_DOF]) -> [R; MAX_DOF] {
        let dof = self.dof.min(MAX_DOF);
        let mut x = *b;
        for j in 0..dof {
            for i in 0..j {
                x[j] -= self.lower[j][i] * x[i];
            }
        }
        for j in 0..dof {
            x[j] /= self.pivots[j];
        }
        for j in (0..dof).rev() {
            for i in j + 1..dof {
                x[j] -= self.lower[i][j] * x[i];
            }
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ldl_solves_a_symmetric_positive_definite_system_and_rejects_a_singular_one() {
        // Reference: A x = b with A = Mᵀ M + I (SPD) and x chosen; the residual must vanish.
        let mut a = [[0.0f64; 6]; 6];
        for (i, row) in a.iter_mut().enumerate() {
            for (j, e) in row.iter_mut().enumerate() {
                let m = |r: usize, c: usize| ((r * 7 + c * 3) % 5) as f64 - 2.0;
                *e = (0..6).map(|k| m(k, i) * m(k, j)).sum::<f64>() + if i == j { 1.0 } else { 0.0 };
            }
        }
        let x = [1.0, -2.0, 0.5, 3.0, -1.5, 0.25];
        let mut b = [0.0; 6];
        for (i, bi) in b.iter_mut().enumerate() {
            *bi = (0..6).map(|j| a[i][j] * x[j]).sum();
        }
        let solved = Ldl::factor(&a, 6).unwrap().solve(&b);
        for (s, e) in solved.iter().zip(x) {
            assert!((s - e).abs() < 1e-12, "{solved:?}");
        }
        // A rank-one 2×2 block [[1, 2], [2, 4]]: the second pivot is zero.
        let mut singular = [[0.0f64; 6]; 6];
        singular[0][0] = 1.0;
        singular[1][0] = 2.0;
        singular[0][1] = 2.0;
        singular[1][1] = 4.0;
        assert_eq!(Ldl::factor(&singular, 2).unwrap_err(), 1);
    }
}
