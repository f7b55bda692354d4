//! Energies, momenta and constraint violation of the current state.

use super::constraint::SideState;
use super::data::Data;
use super::joint::MOST_ROWS;
use super::model::Model;
use super::{BodyRef, JointKind, MassProperties};
use crate::math::Vec3;
use crate::storage::Storage;
use crate::{Energy, Real};

/// Largest constraint violations.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Violation<R> {
    /// max |Φ| (m, or dimensionless for the angular rows).
    pub position: R,
    /// max |Φ̇| = |Φ_q v + Φ_t|.
    pub velocity: R,
}

impl<R: Real> Violation<R> {
    /// The larger position and the larger velocity violation of the two.
    pub fn max(self, other: Self) -> Self {
        Self {
            position: self.position.max(other.position),
            velocity: self.velocity.max(other.velocity),
        }
    }
}

/// Per-body kinematics: CG position, CG velocity, angular velocity (global), all global.
struct BodyMotion<R> {
    cg: Vec3<R>,
    cg_velocity: Vec3<R>,
    omega_body: Vec3<R>,
    side: SideState<R>,
}

/// Kinematics of body `i` from the state in `data`.
fn body_motion<R: Real, St: Storage>(mp: &MassProperties<R>, data: &Data<R, St>, i: usize) -> BodyMotion<R> {
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
    BodyMotion {
        cg: side.x + lever,
        cg_velocity: side.v + w.cross(lever),
        omega_body,
        side,
    }
}

fn motions<'a, R: Real, St: Storage>(
    model: &'a Model<R, St>,
    data: &'a Data<R, St>,
) -> impl Iterator<Item = (usize, BodyMotion<R>)> + 'a {
    model
        .mass
        .iter()
        .enumerate()
        .map(move |(i, mp)| (i, body_motion(mp, data, i)))
}

/// Side state (pose and velocities) of a body reference at the state in `data`.
fn side_of<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>, b: BodyRef) -> SideState<R> {
    match b {
        BodyRef::Body(i) => model
            .mass
            .get(i)
            .map_or(SideState::GROUND, |mp| body_motion(mp, data, i).side),
        BodyRef::Ground => SideState::GROUND,
    }
}

/// Kinetic and potential energy (no strain: rigid).
pub fn energy<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> Energy<R> {
    let mut e = Energy::default();
    for (i, m) in motions(model, data) {
        let mp = &model.mass[i];
        e.kinetic += R::HALF * mp.mass * m.cg_velocity.norm_squared()
            + R::HALF * m.omega_body.dot(mp.inertia_cg.mul_vec(m.omega_body));
        e.potential -= mp.mass * model.gravity.dot(m.cg);
    }
    for f in model.forces.iter() {
        e.potential += f.potential_energy(&model.joints, |b| side_of(model, data, b));
    }
    e
}

/// Total linear momentum Σ m v_cg and angular momentum about the global origin
/// Σ (x_cg × m v_cg + R J_cg ω), both global.
pub fn momentum<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> (Vec3<R>, Vec3<R>) {
    let (mut p, mut l) = (Vec3::ZERO, Vec3::ZERO);
    for (i, m) in motions(model, data) {
        let mp = &model.mass[i];
        let pi = m.cg_velocity * mp.mass;
        p += pi;
        l += m.cg.cross(pi) + m.side.rot.mul_vec(mp.inertia_cg.mul_vec(m.omega_body));
    }
    (p, l)
}

/// Angle θ (rad, x axis of frame i to x axis of frame j about z of frame i, in (−π, π]) and its
/// rate θ̇ (rad/s) of a revolute or cylindrical joint: what an encoder on the joint reads.
/// `None` for other joint kinds or an unknown joint.
pub fn joint_angle<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &Data<R, St>,
    joint: usize,
) -> Option<(R, R)> {
    let j = model.joints.get(joint)?;
    if !matches!(j.kind, JointKind::Revolute | JointKind::Cylindrical) {
        return None;
    }
    let (si, sj) = (side_of(model, data, j.body_i), side_of(model, data, j.body_j));
    let (theta, rate, _) = super::force::joint_angle(j, &si, &sj);
    Some((theta, rate))
}

/// The coordinate a joint limit ([`super::Force::JointLimit`]) measures and its rate: the angle
/// of a revolute joint (as [`joint_angle`]) or the slide (m) of a prismatic joint's origin j from
/// origin i along z of frame i. `None` for other joint kinds or an unknown joint.
pub fn joint_coordinate<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &Data<R, St>,
    joint: usize,
) -> Option<(R, R)> {
    let j = model.joints.get(joint)?;
    let (si, sj) = (side_of(model, data, j.body_i), side_of(model, data, j.body_j));
    super::force::limited_coordinate(j, &si, &sj)
}

/// Largest position and velocity constraint violation at the current state.
pub fn violation<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> Violation<R> {
    (0..model.joints.len()).fold(Violation::default(), |v, joint| {
        v.max(joint_violation(model, data, joint))
    })
}

/// Largest position and velocity violation of one joint's constraint equations at the current
/// state (zero for an unknown joint).
pub fn joint_violation<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &Data<R, St>,
    joint: usize,
) -> Violation<R> {
    let mut v = Violation::<R>::default();
    let Some(joint) = model.joints.get(joint) else {
        return v;
    };
    let mut rows = [super::constraint::ConstraintRow::default(); MOST_ROWS];
    let (si, sj) = (
        side_of(model, data, joint.body_i),
        side_of(model, data, joint.body_j),
    );
    let n = joint.kind.rows();
    let functions = &model.functions;
    super::constraint::evaluate_joint(joint, functions, &si, &sj, data.clock.time, &mut rows[..n]);
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
    v
}
