//! Rigid body description, validation and its block of the mass matrix.
//!
//! State of a body: position of the body frame origin (global) and a unit quaternion
//! (body → global), nq = 7; velocity of the origin (global) and angular velocity (body axes),
//! nv = 6. Mass properties are given about the centre of gravity (CG); the shift to the body
//! origin is done here, so joints and loads refer to body-frame points.

use crate::math::{Mat3, Quat, Vec3};
use crate::{BuildError, Real};

/// Which side of a joint or force: the ground or a body (by index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BodyRef {
    /// The fixed global frame.
    Ground,
    /// The body with this index (in the order bodies were added).
    Body(usize),
}

/// A rigid body: mass properties and initial state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body<R> {
    /// Mass (kg), > 0.
    pub mass: R,
    /// Centre of gravity in body coordinates.
    pub cg: Vec3<R>,
    /// Inertia tensor about the CG in body axes (kg·m²), symmetric positive definite.
    pub inertia: Mat3<R>,
    /// Initial position of the body frame origin (global).
    pub position: Vec3<R>,
    /// Initial orientation (body → global).
    pub orientation: Quat<R>,
    /// Initial velocity of the body frame origin (global).
    pub velocity: Vec3<R>,
    /// Initial angular velocity (body axes).
    pub angular_velocity: Vec3<R>,
}

impl<R: Real> Body<R> {
    /// A body at rest at the origin, CG at the body origin.
    pub fn new(mass: R, inertia: Mat3<R>) -> Self {
        Self {
            mass,
            cg: Vec3::ZERO,
            inertia,
            position: Vec3::ZERO,
            orientation: Quat::IDENTITY,
            velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
        }
    }
    /// A uniform slender rod of `length` along the body x axis with its CG at the body origin,
    /// modelled as a thin cylinder of `radius` (I_xx = m r²/2, I_yy = I_zz = m(3r² + L²)/12).
    pub fn rod(mass: R, length: R, radius: R) -> Self {
        let r2 = radius * radius;
        let ixx = mass * r2 * R::HALF;
        let iyy = mass * (R::from_f64(3.0) * r2 + length * length) / R::from_f64(12.0);
        Self::new(mass, Mat3::diagonal(Vec3::new(ixx, iyy, iyy)))
    }
    /// A solid sphere of `radius` (I = 2/5 m r²).
    pub fn sphere(mass: R, radius: R) -> Self {
        let i = R::from_f64(0.4) * mass * radius * radius;
        Self::new(mass, Mat3::diagonal(Vec3::new(i, i, i)))
    }
    /// Sets the CG offset (body coordinates).
    pub fn with_cg(mut self, cg: Vec3<R>) -> Self {
        self.cg = cg;
        self
    }
    /// Sets the initial pose.
    pub fn at(mut self, position: Vec3<R>, orientation: Quat<R>) -> Self {
        self.position = position;
        self.orientation = orientation;
        self
    }
    /// Sets the initial velocities (origin velocity global, angular velocity in body axes).
    pub fn moving(mut self, velocity: Vec3<R>, angular_velocity: Vec3<R>) -> Self {
        self.velocity = velocity;
        self.angular_velocity = angular_velocity;
        self
    }

    /// Checks the mass properties and initial state of body `index`.
    pub fn validate(&self, index: usize) -> Result<(), BuildError> {
        self.checked(index, false)
    }

    /// [`Body::validate`] for a tree link: any symmetric positive semi-definite inertia about
    /// the CG, as Pinocchio accepts: singular (a point mass, a thin rod) or with principal
    /// moments violating I1 + I2 ≥ I3 (no rigid body's, but the tree needs only M positive
    /// definite, which holds while each joint moves some inertia: its pivot gets inertia from
    /// the link's mass off the axis and from its subtree, and a step that finds a zero pivot
    /// fails naming the joint).
    pub fn validate_tree_inertia(&self, index: usize) -> Result<(), BuildError> {
        self.checked(index, true)
    }

    /// Whether the principal moments of the inertia about the CG satisfy I1 + I2 ≥ I3 (to a
    /// relative 1e-9), as every rigid body's do; a tree link may carry one that does not
    /// ([`Body::validate_tree_inertia`]), the Cartesian model may not.
    pub fn inertia_is_physical(&self) -> bool {
        let m = &self.inertia.m;
        let scale = m[0][0].abs().max(m[1][1].abs()).max(m[2][2].abs());
        scale == R::ZERO || satisfies_triangle_inequality(&self.inertia.scale(R::ONE / scale))
    }

    /// `singular`: the tree link's rule ([`Body::validate_tree_inertia`]).
    fn checked(&self, index: usize, singular: bool) -> Result<(), BuildError> {
        let item = crate::Item::Body(index);
        if !(self.mass.is_finite() && self.mass > R::ZERO) {
            return Err(BuildError::InvalidMass {
                body: index,
                mass: self.mass.to_f64(),
            });
        }
        let finite = self.cg.is_finite()
            && self.inertia.is_finite()
            && self.position.is_finite()
            && self.velocity.is_finite()
            && self.angular_velocity.is_finite()
            && self.orientation.to_array().iter().all(|c| c.is_finite());
        if !finite {
            return Err(BuildError::NonFinite { item });
        }
        if self.orientation.normalized().is_none() {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "orientation quaternion is zero",
            });
        }
        // Checked on J / scale, so the tests hold at any magnitude (the minors of a 1e300
        // kg·m² tensor overflow); a zero scale gives NaN entries, which fail them.
        let m = &self.inertia.m;
        let scale = m[0][0].abs().max(m[1][1].abs()).max(m[2][2].abs());
        if singular && self.inertia == Mat3::ZERO {
            return Ok(());
        }
        let j = &self.inertia.scale(R::ONE / scale);
        let tol = R::from_f64(1e-9);
        let symmetric = (j.m[0][1] - j.m[1][0]).abs() <= tol
            && (j.m[0][2] - j.m[2][0]).abs() <= tol
            && (j.m[1][2] - j.m[2][1]).abs() <= tol;
        let definite = match singular {
            true => is_positive_semidefinite(j, tol),
            false => j.is_positive_definite(),
        };
        if !symmetric || !definite {
            return Err(BuildError::InertiaNotPositiveDefinite { body: index });
        }
        if !singular && !satisfies_triangle_inequality(j) {
            return Err(BuildError::InertiaTriangleInequality { body: index });
        }
        Ok(())
    }
}

/// Whether the symmetric `j` (scaled to a largest diagonal entry of 1) is positive
/// semi-definite: all its principal minors ≥ −`tol`.
fn is_positive_semidefinite<R: Real>(j: &Mat3<R>, tol: R) -> bool {
    let minor2 = |a: usize, b: usize| j.m[a][a] * j.m[b][b] - j.m[a][b] * j.m[b][a];
    (0..3).all(|i| j.m[i][i] >= -tol)
        && minor2(0, 1) >= -tol
        && minor2(0, 2) >= -tol
        && minor2(1, 2) >= -tol
        && j.determinant() >= -tol
}

/// I1 + I2 ≥ I3 for the principal moments ⟺ λ_max(J) ≤ tr(J)/2 ⟺ tr(J)/2·I − J is positive
/// semi-definite, checked by all its principal minors (with a relative tolerance so that a
/// flat plate, where equality holds, passes).
fn satisfies_triangle_inequality<R: Real>(j: &Mat3<R>) -> bool {
    let half_trace = (j.m[0][0] + j.m[1][1] + j.m[2][2]) * R::HALF;
    let n = Mat3::IDENTITY.scale(half_trace) + j.scale(-R::ONE);
    let t = R::from_f64(1e-9);
    let s = half_trace;
    let minor2 = |a: usize, b: usize| n.m[a][a] * n.m[b][b] - n.m[a][b] * n.m[b][a];
    (0..3).all(|i| n.m[i][i] >= -t * s)
        && minor2(0, 1) >= -t * s * s
        && minor2(0, 2) >= -t * s * s
        && minor2(1, 2) >= -t * s * s
        && n.determinant() >= -t * s * s * s
}

/// Inertia of a point `mass` at `c` about the origin, m(|c|² I − c cᵀ): the parallel-axis
/// shift from the CG to the origin.
pub(crate) fn point_mass_inertia<R: Real>(mass: R, c: Vec3<R>) -> Mat3<R> {
    let shift = Mat3::IDENTITY.scale(c.norm_squared()) + Mat3::outer(c, c).scale(-R::ONE);
    shift.scale(mass)
}

/// Constant mass data of a body, precomputed at build time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties<R> {
    /// Mass.
    pub mass: R,
    /// CG in body coordinates.
    pub cg: Vec3<R>,
    /// Inertia about the CG (body axes).
    pub inertia_cg: Mat3<R>,
    /// Its inverse.
    pub inertia_cg_inv: Mat3<R>,
    /// Inertia about the body origin: J_cg + m(|c|² I − c cᵀ) (parallel-axis theorem).
    pub inertia_origin: Mat3<R>,
}

impl<R: Real> MassProperties<R> {
    /// Precomputes from a validated body.
    pub fn of(body: &Body<R>) -> Option<Self> {
        Some(Self {
            mass: body.mass,
            cg: body.cg,
            inertia_cg: body.inertia,
            // The determinant of a tensor of 1e103 kg·m² or more overflows: then inverted as
            // (J / s)⁻¹ / s (only then, so the bits of every other inverse are unchanged).
            inertia_cg_inv: body.inertia.inverse().or_else(|| {
                let m = &body.inertia.m;
                let s = m[0][0].abs().max(m[1][1].abs()).max(m[2][2].abs());
                Some(body.inertia.scale(R::ONE / s).inverse()?.scale(R::ONE / s))
            })?,
            inertia_origin: body.inertia + point_mass_inertia(body.mass, body.cg),
        })
    }

    /// The mass properties of this body and `other` welded together, both given in the same
    /// frame: the masses add, the CG is their mass-weighted mean, and each inertia is shifted
    /// from its own CG to the common one (parallel-axis theorem) before they add. `None` if
    /// the sum is singular (it cannot be for two valid bodies).
    pub fn combined(&self, other: &Self) -> Option<Self> {
        let mass = self.mass + other.mass;
        let cg = (self.cg * self.mass + other.cg * other.mass) * (R::ONE / mass);
        let inertia = self.inertia_cg
            + point_mass_inertia(self.mass, self.cg - cg)
            + other.inertia_cg
            + point_mass_inertia(other.mass, other.cg - cg);
        Self::of(&Body::new(mass, inertia).with_cg(cg))
    }

    /// Whether the body's origin is its CG (a chain's rods): its mass block is diag(m I, J_cg)
    /// and gravity has no moment about the origin, so the lever products can be skipped.
    pub fn centred(&self) -> bool {
        self.cg == Vec3::ZERO
    }

    /// The 6×6 mass block in (origin velocity global, angular velocity body) coordinates,
    /// \[\[m I, −m R\[c\]×\], \[m \[c\]× Rᵀ, J_o\]\], with `rot` body → global.
    pub fn matrix(&self, rot: &Mat3<R>) -> [[R; 6]; 6] {
        let mut m = [[R::ZERO; 6]; 6];
        let rc = rot.mul_mat(&Mat3::skew(self.cg)).scale(self.mass);
        for i in 0..3 {
            m[i][i] = self.mass;
            for j in 0..3 {
                m[i][3 + j] = -rc.m[i][j];
                m[3 + j][i] = -rc.m[i][j];
                m[3 + i][3 + j] = self.inertia_origin.m[i][j];
            }
        }
        m
    }

    /// Solves M a = (f, τ) for this body's 6×6 mass block in (origin velocity, body angular
    /// velocity) coordinates. M = Tᵀ diag(m I, J_cg) T with T the origin→CG velocity map, so
    /// M⁻¹ = T⁻¹ diag(1/m, J_cg⁻¹) T⁻ᵀ: three cheap steps, no 6×6 factorization.
    /// `force` is global, `torque` about the origin in body axes; `rot` is body → global.
    #[inline]
    pub fn solve(&self, rot: &Mat3<R>, force: Vec3<R>, torque: Vec3<R>) -> (Vec3<R>, Vec3<R>) {
        let torque_cg = torque - self.cg.cross(rot.tr_mul_vec(force));
        let alpha = self.inertia_cg_inv.mul_vec(torque_cg);
        let accel = force * (R::ONE / self.mass) + rot.mul_vec(self.cg.cross(alpha));
        (accel, alpha)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(mass: f64) -> Body<f64> {
        Body::new(mass, Mat3::diagonal(Vec3::new(1.0, 1.0, 1.0)))
    }

    #[test]
    fn invalid_mass_properties_are_named() {
        assert_eq!(
            cube(0.0).validate(4),
            Err(BuildError::InvalidMass { body: 4, mass: 0.0 })
        );
        assert_eq!(
            cube(-1.0).validate(1),
            Err(BuildError::InvalidMass { body: 1, mass: -1.0 })
        );
        let not_pd = Body::new(1.0, Mat3::diagonal(Vec3::new(1.0, -1.0, 1.0)));
        assert_eq!(
            not_pd.validate(2),
            Err(BuildError::InertiaNotPositiveDefinite { body: 2 })
        );
        // Principal moments 1, 1, 3: 1 + 1 < 3 is impossible for a real mass distribution.
        let impossible = Body::new(1.0, Mat3::diagonal(Vec3::new(1.0, 1.0, 3.0)));
        assert_eq!(
            impossible.validate(0),
            Err(BuildError::InertiaTriangleInequality { body: 0 })
        );
        // A flat plate sits exactly on the bound (Iz = Ix + Iy) and is valid.
        let plate = Body::new(1.0, Mat3::diagonal(Vec3::new(1.0, 2.0, 3.0)));
        assert_eq!(plate.validate(0), Ok(()));
    }

    #[test]
    fn welded_bodies_have_the_inertia_of_their_union() {
        // Reference: two unit point-like cubes (J = 1/6 each, side 1) at x = 0 and x = 2 form
        // a 2 kg body with its CG at x = 1; about it, each cube adds J + m·1² about y and z.
        let cube = |x: f64| {
            let body = Body::new(1.0, Mat3::diagonal(Vec3::new(1.0, 1.0, 1.0) * (1.0 / 6.0)));
            MassProperties::of(&body.with_cg(Vec3::new(x, 0.0, 0.0))).unwrap()
        };
        let both = cube(0.0).combined(&cube(2.0)).unwrap();
        assert_eq!(both.mass, 2.0);
        assert_eq!(both.cg, Vec3::new(1.0, 0.0, 0.0));
        let expected = Mat3::diagonal(Vec3::new(2.0 / 6.0, 2.0 / 6.0 + 2.0, 2.0 / 6.0 + 2.0));
        for (row, want) in both.inertia_cg.m.iter().zip(expected.m) {
            for (got, want) in row.iter().zip(want) {
                assert!((got - want).abs() < 1e-15, "{both:?}");
            }
        }
        // The inertia about the common origin is the sum of the parts' (frame independent).
        let origin = cube(0.0).inertia_origin + cube(2.0).inertia_origin;
        assert!((both.inertia_origin.m[1][1] - origin.m[1][1]).abs() < 1e-14);
    }

    #[test]
    fn mass_block_solve_inverts_the_shifted_mass_matrix() {
        // Reference: build the 6×6 M = [[m I, −m R[c]×], [m[c]×Rᵀ, J_o]] explicitly and check
        // that M·solve(f, τ) reproduces (f, τ).
        let body = Body::new(2.0, Mat3::symmetric(Vec3::new(0.3, 0.4, 0.5), 0.01, -0.02, 0.03))
            .with_cg(Vec3::new(0.1, -0.2, 0.3));
        let mp = MassProperties::of(&body).unwrap();
        let rot = Quat::from_roll_pitch_yaw(0.2, 0.5, -0.9).to_matrix();
        let (f, tau) = (Vec3::new(1.0, -2.0, 0.5), Vec3::new(0.3, 0.1, -0.7));
        let (a, alpha) = mp.solve(&rot, f, tau);
        let c = mp.cg;
        let f_back = a * mp.mass - rot.mul_vec(c.cross(alpha)) * mp.mass;
        let tau_back = c.cross(rot.tr_mul_vec(a)) * mp.mass + mp.inertia_origin.mul_vec(alpha);
        assert!((f_back - f).norm() < 1e-13, "{f_back:?}");
        assert!((tau_back - tau).norm() < 1e-13, "{tau_back:?}");
    }
}
