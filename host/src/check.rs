//! Model checks before and after a run, in the manner of an occupant-simulation preflight:
//! degrees of freedom from the rank of Φ_q, redundant constraint rows, initial constraint
//! violation per joint, joint reaction forces, and settling under gravity.

use crate::storage::{RigidData, RigidModel};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::{self, evaluate_constraints, forward, BodyRef};
use ferrodyn_kernel::{Dynamics, Integrator, KernelError};

/// Mobility of a model at its current state.
#[derive(Clone, Debug, PartialEq)]
pub struct DofReport {
    /// 6·bodies − constraint rows (Grübler–Kutzbach count).
    pub gruebler: isize,
    /// Numerical rank of Φ_q.
    pub rank: usize,
    /// Independent degrees of freedom: 6·bodies − rank.
    pub independent: usize,
    /// Rows that depend on earlier rows, as (joint, row within the joint).
    pub redundant: Vec<(usize, usize)>,
}

/// Relative size below which a row's component orthogonal to the earlier rows counts as zero.
const RANK_TOLERANCE: f64 = 1e-9;

/// DOF report from the rank of the velocity Jacobian Φ_q (rows in joint order, columns the 6
/// velocities of each body), by modified Gram–Schmidt: a row that lies (to 1e-9 relative) in the
/// span of the rows before it is redundant and is listed with its joint.
pub fn dof_report(model: &RigidModel, data: &mut RigidData) -> Result<DofReport, KernelError> {
    evaluate_constraints(model, data)?;
    let columns = 6 * model.bodies().len();
    let mut basis: Vec<Vec<f64>> = Vec::new();
    let mut redundant = Vec::new();
    for (joint, j) in model.joints().iter().enumerate() {
        let first = model.joint_first_row(joint).unwrap_or(0);
        for local in 0..j.kind.rows() {
            let Some(row) = data.constraint_rows().get(first + local) else {
                continue;
            };
            let mut v = vec![0.0; columns];
            for (side, body) in [j.body_i, j.body_j].into_iter().enumerate() {
                if let BodyRef::Body(b) = body {
                    for (c, x) in row.jac[side].iter().enumerate() {
                        v[6 * b + c] += x;
                    }
                }
            }
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            for q in &basis {
                let d: f64 = q.iter().zip(&v).map(|(a, b)| a * b).sum();
                v.iter_mut().zip(q).for_each(|(x, qi)| *x -= d * qi);
            }
            let rest = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            if norm == 0.0 || rest <= RANK_TOLERANCE * norm {
                redundant.push((joint, local));
            } else {
                basis.push(v.iter().map(|x| x / rest).collect());
            }
        }
    }
    Ok(DofReport {
        gruebler: model.gruebler_dof(),
        rank: basis.len(),
        independent: columns - basis.len(),
        redundant,
    })
}

/// Largest |Φ| of each joint at the current state.
pub fn joint_violations(model: &RigidModel, data: &RigidData) -> Vec<f64> {
    (0..model.joints().len())
        .map(|j| rigid::joint_violation(model, data, j).position)
        .collect()
}

/// Force and torque a joint exerts on one of its bodies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reaction {
    /// Force on the body (global axes), N.
    pub force: Vec3<f64>,
    /// Torque about the body origin (body axes), N·m.
    pub torque: Vec3<f64>,
}

/// Reactions of every joint on its body j (or body i when j is the ground), from the multipliers
/// of a dynamics evaluation at the current state: the constraint force is −Φ_qᵀ λ.
pub fn joint_reactions(model: &RigidModel, data: &mut RigidData) -> Result<Vec<Reaction>, KernelError> {
    forward(model, data)?;
    let (rows, lambda) = (data.constraint_rows(), data.multipliers());
    Ok(model
        .joints()
        .iter()
        .enumerate()
        .map(|(k, j)| {
            let side = if matches!(j.body_j, BodyRef::Body(_)) {
                1
            } else {
                0
            };
            let first = model.joint_first_row(k).unwrap_or(0);
            let mut w = [0.0; 6];
            for r in first..first + j.kind.rows() {
                for (wc, jc) in w.iter_mut().zip(rows[r].jac[side]) {
                    *wc -= jc * lambda[r];
                }
            }
            Reaction {
                force: Vec3::new(w[0], w[1], w[2]),
                torque: Vec3::new(w[3], w[4], w[5]),
            }
        })
        .collect())
}

/// How a gravity-settle run ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settled {
    /// Simulated time to rest (s).
    pub time: f64,
    /// Kinetic energy left (J).
    pub kinetic: f64,
}

/// Runs to rest by dynamic relaxation: after every step all body velocities are scaled by
/// (1 − `damping`·dt), until the kinetic energy falls below `rest_energy` (or `max_time`).
pub fn settle<I: Integrator<f64>>(
    model: &RigidModel,
    data: &mut RigidData,
    integrator: &mut I,
    dt: f64,
    damping: f64,
    rest_energy: f64,
    max_time: f64,
) -> Result<Settled, KernelError> {
    let factor = 1.0 - damping * dt;
    let start = data.time();
    loop {
        model.step(data, integrator, dt)?;
        for b in 0..model.bodies().len() {
            let (v, w) = (data.velocity(b), data.angular_velocity(b));
            data.set_velocity(b, v * factor, w * factor);
        }
        let kinetic = rigid::energy(model, data).kinetic;
        if kinetic < rest_energy || data.time() - start >= max_time {
            return Ok(Settled {
                time: data.time() - start,
                kinetic,
            });
        }
    }
}
