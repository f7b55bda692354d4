//! Model checks before and after a run, in the manner of an occupant-simulation preflight:
//! degrees of freedom from the rank of Φ_q, redundant constraint rows, initial constraint
//! violation per joint, joint reaction forces, and settling under gravity.

use crate::storage::{RigidData, RigidModel};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::{self, forward, is_redundant_row, BodyRef, JointKind};
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

/// DOF report from the rank of the constraint Jacobian Φ_q at the current state, as the
/// solver sees it: the rank-revealing factorization of Φ_q M⁻¹ Φ_qᵀ that every step uses marks
/// a row redundant when it depends on the rows before it, so `check` and `run` name the same
/// rows.
pub fn dof_report(model: &RigidModel, data: &mut RigidData) -> Result<DofReport, KernelError> {
    forward(model, data)?;
    let redundant = redundant_rows(model, data);
    let rank = model.constraint_rows() - redundant.len();
    Ok(DofReport {
        gruebler: model.gruebler_dof(),
        rank,
        independent: 6 * model.bodies().len() - rank,
        redundant,
    })
}

/// The rows the last factorization of the constraint matrix (a step, an assembly, a
/// [`forward`]) found redundant, as (joint, row within the joint).
pub fn redundant_rows(model: &RigidModel, data: &RigidData) -> Vec<(usize, usize)> {
    (0..model.joints().len())
        .flat_map(|joint| {
            let first = model.joint_first_row(joint).unwrap_or(0);
            let rows = model.joints()[joint].kind.rows();
            (0..rows).map(move |local| (joint, local, first + local))
        })
        .filter(|&(_, _, row)| is_redundant_row(model, data, row))
        .map(|(joint, local, _)| (joint, local))
        .collect()
}

/// The note that goes with the reactions of a model with `redundant` rows (None without):
/// which rows carry no reaction, so that the split of the load is not unique.
pub fn redundant_note(joint_names: &[String], redundant: &[(usize, usize)]) -> Option<String> {
    if redundant.is_empty() {
        return None;
    }
    let rows: Vec<String> = redundant
        .iter()
        .map(|(j, row)| {
            format!(
                "\"{}\" row {row}",
                joint_names.get(*j).map_or("?", |n| n.as_str())
            )
        })
        .collect();
    Some(format!(
        "note: redundant constraint rows {} carry no reaction (zero multipliers); how the load \
         splits between them and the joints they depend on is not unique",
        rows.join(", ")
    ))
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

/// What a drive does at the current state: its generalized force on its own coordinate (the
/// angle θ of x_j from x_i about z_i, N·m; the slide along z_i, N) and that force's power (W).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DriveLoad {
    /// Generalized force on the drive's coordinate (−λ of its row: Φ_θ = cos(θ − f) = 1 on
    /// the constraint manifold).
    pub effort: f64,
    /// Power of the row's constraint force, −λ·Φ_q v (W).
    pub power: f64,
}

/// The load of every driving joint (in scene order) from the multipliers of a dynamics
/// evaluation at the current state (contacts left out, as [`joint_reactions`] leaves them).
pub fn drive_loads(model: &RigidModel, data: &mut RigidData) -> Result<Vec<DriveLoad>, KernelError> {
    forward(model, data)?;
    let (rows, lambda) = (data.constraint_rows(), data.multipliers());
    let velocity = |body: BodyRef| match body {
        BodyRef::Body(b) => {
            let (v, w) = (data.velocity(b), data.angular_velocity(b));
            [v.x, v.y, v.z, w.x, w.y, w.z]
        }
        BodyRef::Ground => [0.0; 6],
    };
    Ok(model
        .joints()
        .iter()
        .enumerate()
        .filter(|(_, j)| matches!(j.kind, JointKind::Driving { .. }))
        .map(|(k, j)| {
            let r = model.joint_first_row(k).unwrap_or(0);
            let rate: f64 = [j.body_i, j.body_j]
                .into_iter()
                .zip(&rows[r].jac)
                .map(|(body, jac)| jac.iter().zip(velocity(body)).map(|(a, b)| a * b).sum::<f64>())
                .sum();
            DriveLoad {
                effort: -lambda[r],
                power: -lambda[r] * rate,
            }
        })
        .collect())
}

/// How a settle run ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settled {
    /// Simulated time spent (s).
    pub time: f64,
    /// Times the velocities were zeroed at a kinetic-energy peak.
    pub resets: u32,
    /// Mass-weighted RMS acceleration from rest at the final state, √(2 T₁ / Σm) / dt with
    /// T₁ the kinetic energy one step after release (m/s²): the unbalanced load per mass.
    pub acceleration: f64,
}

/// Settles to static equilibrium by dynamic relaxation with kinetic damping (Cundall's
/// method, as in Topping & Khan, *Parallel Finite Element Computations*, 1996): the model
/// moves freely until its kinetic energy passes a peak, is put back at the state before the
/// peak with all velocities zeroed, and released again. At rest it is in equilibrium when the
/// RMS acceleration of the first step from rest is at most `tolerance` (m/s²); the state left
/// in `data` is that rest state (velocities zero). Fails after `max_time` of simulated time.
pub fn settle<I: Integrator<f64>>(
    model: &RigidModel,
    data: &mut RigidData,
    integrator: &mut I,
    dt: f64,
    tolerance: f64,
    max_time: f64,
) -> Result<Settled, anyhow::Error> {
    let total_mass: f64 = model.bodies().iter().map(|b| b.mass).sum();
    let start = data.time();
    let mut resets = 0;
    // Released from rest: the first step measures the acceleration.
    let (mut peak, mut from_rest) = (0.0, true);
    let mut before = data.state().to_vec();
    stop_bodies(model, data);
    loop {
        before.copy_from_slice(data.state());
        model.step(data, integrator, dt)?;
        let kinetic = rigid::energy(model, data).kinetic;
        if from_rest {
            let acceleration = (2.0 * kinetic / total_mass).sqrt() / dt;
            if acceleration <= tolerance {
                model.set_state(data, &before)?;
                return Ok(Settled {
                    time: data.time() - start,
                    resets,
                    acceleration,
                });
            }
        }
        from_rest = false;
        if kinetic < peak {
            // Past the peak: the state before this step is nearer the energy minimum.
            model.set_state(data, &before)?;
            stop_bodies(model, data);
            (peak, from_rest) = (0.0, true);
            resets += 1;
        } else {
            peak = kinetic;
        }
        if data.time() - start >= max_time {
            anyhow::bail!(
                "not at rest after {max_time} s of settling ({resets} velocity resets): \
                 is the model free to move without end (no stable equilibrium)?"
            );
        }
    }
}

/// Zeroes every body velocity.
fn stop_bodies(model: &RigidModel, data: &mut RigidData) {
    for b in 0..model.bodies().len() {
        data.set_velocity(b, Vec3::ZERO, Vec3::ZERO);
    }
}
