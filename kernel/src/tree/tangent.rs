//! What an implicit integrator's analytic iteration matrix needs from a tree, at the state of
//! a [`Data`]: the joint-space mass matrix M(q) (composite rigid bodies, the one the loop rows
//! factor), the Jacobian of a point moving with a link (its world velocity per velocity
//! coordinate), and the constrained response Π: the map from unconstrained accelerations
//! q̈₀ = M⁻¹τ to the accelerations the loop and coordinate rows allow,
//! Π a = a − M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁺Φ_q a, with the rows kept by the same pivoted factorization
//! as the dynamics ([`super::loops`]). A host builds J = I + Π M⁻¹(c_v D + c_q K) from them.
//!
//! Each call evaluates the kinematics at the data's state; the data is a scratch copy (its
//! loop workspace is overwritten). No allocation.

use super::dynamics::kinematics;
use super::loops::{columns, mass_matrix, Choice, Loops};
use super::{Data, Model};
use crate::math::dense_ldl::{self, packed, packed_len};
use crate::math::Vec3;
use crate::storage::Storage;
use crate::{KernelError, Real};

/// Writes the joint-space mass matrix M(q) at the state of `data` into `out`, row-major
/// nv × nv (`out` holds at least nv² values, else [`KernelError::StateSizeMismatch`]).
pub fn mass_matrix_at<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    out: &mut [R],
) -> Result<(), KernelError> {
    let (nq, nv) = (data.count, data.input.len());
    let out = out.get_mut(..nv * nv).ok_or(KernelError::StateSizeMismatch)?;
    let state = data.state.as_flattened();
    let (q, rate) = (
        state.get(..nq).unwrap_or_default(),
        state.get(nq..nq + nv).unwrap_or_default(),
    );
    kinematics(&model.links, &model.shapes, q, rate, &mut data.work);
    // The packed lower triangle first, then spread in place from the last row back (a full
    // entry's index is never below its packed one, so nothing unread is overwritten).
    let packed_part = out
        .get_mut(..packed_len(nv))
        .ok_or(KernelError::StateSizeMismatch)?;
    mass_matrix(&model.links, &model.shapes, &mut data.work, packed_part);
    let mut copy = |from: usize, to: usize| {
        if let Some(value) = out.get(from).copied() {
            if let Some(e) = out.get_mut(to) {
                *e = value;
            }
        }
    };
    for i in (0..nv).rev() {
        for j in (0..=i).rev() {
            copy(packed(i, j), i * nv + j);
        }
    }
    for i in 0..nv {
        for j in 0..i {
            copy(i * nv + j, j * nv + i);
        }
    }
    Ok(())
}

/// Writes the Jacobian of the world point `point` moving with link `link` at the state of
/// `data` into `out`, row-major 3 × nv: its world velocity is `out` · v. Zero columns for the
/// joints not on the link's path to the ground.
pub fn point_jacobian<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    link: usize,
    point: Vec3<R>,
    out: &mut [R],
) -> Result<(), KernelError> {
    let (nq, nv) = (data.count, data.input.len());
    let out = out.get_mut(..3 * nv).ok_or(KernelError::StateSizeMismatch)?;
    out.fill(R::ZERO);
    let state = data.state.as_flattened();
    let (q, rate) = (
        state.get(..nq).unwrap_or_default(),
        state.get(nq..nq + nv).unwrap_or_default(),
    );
    let links = &model.links;
    kinematics(links, &model.shapes, q, rate, &mut data.work);
    let mut at = Some(link);
    while let Some(k) = at {
        let first: usize = links.iter().take(k).map(|l| l.velocity_count()).sum();
        let (cols, dof) = columns(links, &data.work, k);
        for (c, s) in cols.iter().take(dof).enumerate() {
            // A spatial motion (ω, v at the world origin) moves the point at v + ω × p.
            let velocity = s.linear + s.angular.cross(point);
            for (row, value) in velocity.to_array().into_iter().enumerate() {
                if let Some(e) = out.get_mut(row * nv + first + c) {
                    *e = value;
                }
            }
        }
        at = links.get(k).and_then(|l| l.parent);
    }
    Ok(())
}

/// Applies the constrained response Π to each of `count` columns (nv values each, one after
/// the other in `columns`) at time `t` and the state of `data`; nothing to do without loop or
/// coordinate rows.
pub fn constrain_columns<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    t: R,
    columns: &mut [R],
    count: usize,
) -> Result<(), KernelError> {
    let (nq, nv) = (data.count, data.input.len());
    let columns = columns
        .get_mut(..count * nv)
        .ok_or(KernelError::StateSizeMismatch)?;
    let state = data.state.as_flattened();
    let (q, rate) = (
        state.get(..nq).unwrap_or_default(),
        state.get(nq..nq + nv).unwrap_or_default(),
    );
    let Some(mut loops) = Loops::of(model, &mut data.loops) else {
        return Ok(());
    };
    kinematics(&model.links, &model.shapes, q, rate, &mut data.work);
    loops.evaluate(t, &model.links, (q, &data.work), false);
    loops.factor(&model.links, &model.shapes, &mut data.work, nv, Choice::Anew)?;
    for column in columns.chunks_mut(nv) {
        loops.respond(nv, column)?;
    }
    Ok(())
}

impl<R: Real> Loops<'_, R> {
    /// a ← a − M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁺Φ_q a with the factors of the last [`Loops::factor`].
    fn respond(&mut self, nv: usize, a: &mut [R]) -> Result<(), KernelError> {
        let m = self.rows.len();
        let p = Self::parts(self.matrix, nv, m)?;
        for (l, g) in self.lambda.iter_mut().zip(p.jacobian.chunks(nv)) {
            *l = g.iter().zip(a.iter()).fold(R::ZERO, |s, (g, a)| s + *g * *a);
        }
        dense_ldl::solve_pivoted(m, p.schur, self.order, *self.rank, self.lambda);
        for (l, w) in self.lambda.iter().zip(p.weighted.chunks(nv)) {
            for (a, w) in a.iter_mut().zip(w) {
                *a -= *w * *l;
            }
        }
        Ok(())
    }
}
