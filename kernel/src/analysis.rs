//! Energies, momenta and constraint violation of the current state.

use crate::constraint::SideState;
use crate::data::Data;
use crate::force::side;
use crate::math::Vec3;
use crate::model::Model;
use crate::{BodyRef, Real};

/// Energy and momentum summary of a state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Energy<R> {
    /// Kinetic energy ½ vᵀ M v.
    pub kinetic: R,
    /// Potential energy: gravity (zero at the global origin) plus springs.
    pub potential: R,
}

impl<R: Real> Energy<R> {
    /// Kinetic + potential.
    pub fn total(&self) -> R {
        self.kinetic + self.potential
    }
}

/// Largest constraint violations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Violation<R> {
    /// max |Φ| (m, or dimensionless for the angular rows).
    pub position: R,
    /// max |Φ̇| = |Φ_q v + Φ_t|.
    pub velocity: R,
}

/// Per-body kinematics: CG position, CG velocity, angular velocity (global), all global.
struct BodyMotion<R> {
    cg: Vec3<R>,
    cg_velocity: Vec3<R>,
    omega_body: Vec3<R>,
    side: SideState<R>,
}

fn motions<'a, R: Real, const B: usize, const J: usize, const F: usize, const C: usize, const S: usize>(
    model: &'a Model<R, B, J, F, C, S>,
    data: &'a Data<R, B, C, S>,
) -> impl Iterator<Item = (usize, BodyMotion<R>)> + 'a {
    model.mass.iter().enumerate().map(move |(i, mp)| {
        let rot = data.orientation(i).normalized().unwrap_or_default().to_matrix();
        let omega_body = data.angular_velocity(i);
        let w = rot.mul_vec(omega_body);
        let lever = rot.mul_vec(mp.cg);
        let side = SideState {
            x: data.position(i),
            rot,
            v: data.velocity(i),
            w,
        };
        (
            i,
            BodyMotion {
                cg: side.x + lever,
                cg_velocity: side.v + w.cross(lever),
                omega_body,
                side,
            },
        )
    })
}

/// Kinetic and potential energy.
pub fn energy<R: Real, const B: usize, const J: usize, const F: usize, const C: usize, const S: usize>(
    model: &Model<R, B, J, F, C, S>,
    data: &Data<R, B, C, S>,
) -> Energy<R> {
    let mut e = Energy::default();
    let mut sides = [SideState::GROUND; B];
    for (i, m) in motions(model, data) {
        let mp = &model.mass[i];
        e.kinetic += R::HALF * mp.mass * m.cg_velocity.norm_squared()
            + R::HALF * m.omega_body.dot(mp.inertia_cg.mul_vec(m.omega_body));
        e.potential -= mp.mass * model.gravity.dot(m.cg);
        sides[i] = m.side;
    }
    for f in model.forces.iter() {
        e.potential += f.potential_energy(&model.joints, &sides[..model.bodies.len()]);
    }
    e
}

/// Total linear momentum Σ m v_cg and angular momentum about the global origin
/// Σ (x_cg × m v_cg + R J_cg ω), both global.
pub fn momentum<R: Real, const B: usize, const J: usize, const F: usize, const C: usize, const S: usize>(
    model: &Model<R, B, J, F, C, S>,
    data: &Data<R, B, C, S>,
) -> (Vec3<R>, Vec3<R>) {
    let (mut p, mut l) = (Vec3::ZERO, Vec3::ZERO);
    for (i, m) in motions(model, data) {
        let mp = &model.mass[i];
        let pi = m.cg_velocity * mp.mass;
        p += pi;
        l += m.cg.cross(pi) + m.side.rot.mul_vec(mp.inertia_cg.mul_vec(m.omega_body));
    }
    (p, l)
}

/// Largest position and velocity constraint violation at the current state.
pub fn violation<R: Real, const B: usize, const J: usize, const F: usize, const C: usize, const S: usize>(
    model: &Model<R, B, J, F, C, S>,
    data: &Data<R, B, C, S>,
) -> Violation<R> {
    let mut sides = [SideState::GROUND; B];
    for (i, m) in motions(model, data) {
        sides[i] = m.side;
    }
    let sides = &sides[..model.bodies.len()];
    let mut v = Violation::<R>::default();
    let mut rows = [crate::constraint::ConstraintRow::default(); 6];
    for joint in model.joints.iter() {
        let (si, sj) = (side(sides, joint.body_i), side(sides, joint.body_j));
        let n = joint.kind.rows();
        crate::constraint::evaluate_joint(joint, &si, &sj, data.clock.time, &mut rows[..n]);
        for row in &rows[..n] {
            let mut rate = row.phi_t;
            for (k, b) in [joint.body_i, joint.body_j].into_iter().enumerate() {
                if let BodyRef::Body(b) = b {
                    let (vel, w) = (data.velocity(b), data.angular_velocity(b));
                    let vb = [vel.x, vel.y, vel.z, w.x, w.y, w.z];
                    rate += (0..6).fold(R::ZERO, |s, c| s + row.jac[k][c] * vb[c]);
                }
            }
            v.position = v.position.max(row.phi.abs());
            v.velocity = v.velocity.max(rate.abs());
        }
    }
    v
}
