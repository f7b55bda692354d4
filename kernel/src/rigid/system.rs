//! Forward dynamics of the constrained system and projection onto the constraint manifold.
//!
//! Index-3 DAE  M a + Φ_qᵀ λ = Q,  Φ(q, t) = 0, solved at acceleration level:
//!   (Φ_q M⁻¹ Φ_qᵀ) λ = Φ_q M⁻¹ Q − γ,   a = M⁻¹ (Q − Φ_qᵀ λ),
//! with M block diagonal (solved body by body, see `MassProperties::solve`) and the Schur
//! complement in skyline storage (see `skyline`). Drift is removed after every accepted step
//! by a mass-weighted Newton–Raphson projection of q onto Φ = 0 and of v onto Φ̇ = 0
//! (coordinate projection; Hairer & Wanner, *Solving ODEs II*, VII.2), optionally helped by
//! Baumgarte terms in γ.

use super::body::{BodyRef, MassProperties};
use super::constraint::{evaluate_joint, ConstraintRow, SideState};
use super::data::{Factor, WorkView};
use super::force::{side_or, Wrench};
use super::joint::{DrivenCoordinate, JointKind, MOST_ROWS};
use super::model::{ModelView, Stabilization};
use crate::loads::{ExternalForces, ExternalLoads};
use crate::math::{Mat3, Quat, Vec3};
use crate::{math::skyline, Item, KernelError, OdeSystem, Real};

/// Packed LDLᵀ factor of a body's 6×6 mass block when it is not the plain rigid-body block
/// (a body carrying attached flexible coordinates, see `coupled`): 21 entries, dense profile.
pub(crate) type MassOverride<R> = Option<[R; 21]>;

/// Skyline layout of a dense 6×6 symmetric matrix (row r stores columns 0..=r).
pub(crate) const DENSE6_FIRST: [usize; 6] = [0; 6];
/// Diagonal positions of the dense 6×6 layout.
pub(crate) const DENSE6_DIAG: [usize; 6] = [0, 2, 5, 9, 14, 20];

/// The rigid multibody model as an ODE for the integrators.
pub(crate) struct RigidSystem<'a, R> {
    pub model: ModelView<'a, R>,
    pub work: WorkView<'a, R>,
    /// Index in the state of the first body velocity (7·bodies when the state is rigid only).
    pub v_base: usize,
    /// Per-body mass blocks replacing the rigid-body block (empty: none).
    pub mass_override: &'a mut [MassOverride<R>],
    /// Caller-supplied forces added at every evaluation (None: none).
    pub external: Option<&'a mut dyn ExternalForces<R>>,
}

fn vec_at<R: Real>(y: &[R], i: usize) -> Option<Vec3<R>> {
    Some(Vec3::new(*y.get(i)?, *y.get(i + 1)?, *y.get(i + 2)?))
}

fn add_at<R: Real>(y: &mut [R], i: usize, d: Vec3<R>) {
    if let Some(s) = y.get_mut(i..i + 3) {
        s[0] += d.x;
        s[1] += d.y;
        s[2] += d.z;
    }
}

/// Σ a_k b_k of two 6-blocks as two sums, over the even and over the odd k: they do not wait
/// on each other (two lanes of one register on x86-64) as one chain of five additions would.
#[inline(always)]
fn lanes<R: Real>(a: &[R; 6], b: &[R; 6]) -> [R; 2] {
    [
        a[0] * b[0] + a[2] * b[2] + a[4] * b[4],
        a[1] * b[1] + a[3] * b[3] + a[5] * b[5],
    ]
}

/// Σ a_k b_k of two 6-blocks (even and odd sums, then their sum).
#[inline(always)]
fn dot6<R: Real>(a: &[R; 6], b: &[R; 6]) -> R {
    let [even, odd] = lanes(a, b);
    even + odd
}

/// A body's mass block as solved for its constraint rows and wrench.
enum MassBlock<'a, R> {
    /// The ground: nothing moves.
    Ground,
    /// The rigid-body block at rotation (body → global).
    Rigid(&'a MassProperties<R>, &'a Mat3<R>),
    /// A rigid body whose origin is its CG: diag(m I, J_cg), with 1/m and J_cg⁻¹.
    Centred(R, &'a Mat3<R>),
    /// A packed dense factor (see `MassOverride`).
    Override(&'a [R; 21]),
}

impl<R: Real> MassBlock<'_, R> {
    /// M⁻¹ (f, τ), force global and torque body axes.
    #[inline(always)]
    fn solve(&self, ft: &[R; 6]) -> [R; 6] {
        match self {
            Self::Ground => [R::ZERO; 6],
            Self::Rigid(mp, rot) => {
                let (a, alpha) = mp.solve(
                    rot,
                    Vec3::new(ft[0], ft[1], ft[2]),
                    Vec3::new(ft[3], ft[4], ft[5]),
                );
                [a.x, a.y, a.z, alpha.x, alpha.y, alpha.z]
            }
            Self::Centred(inv_mass, inertia_inv) => {
                let alpha = inertia_inv.mul_vec(Vec3::new(ft[3], ft[4], ft[5]));
                [
                    ft[0] * *inv_mass,
                    ft[1] * *inv_mass,
                    ft[2] * *inv_mass,
                    alpha.x,
                    alpha.y,
                    alpha.z,
                ]
            }
            Self::Override(factor) => {
                let layout = skyline::SkylineLayout {
                    first: &DENSE6_FIRST,
                    diag: &DENSE6_DIAG,
                };
                let mut x = *ft;
                skyline::solve(&layout, *factor, &mut x);
                x
            }
        }
    }
}

/// Where a factorization of the constraint matrix is made, which sets how small a part of its
/// diagonal entry a row chosen again by pivoting may keep (`RigidSystem::choose_redundant_rows`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Poses {
    /// An evaluation of the dynamics (an integrator stage, O(h) off the manifold).
    Stage,
    /// The projection's iterates, within its tolerance of the manifold.
    Projection,
}

/// The block of the constraint matrix between the rows of two joints (lower triangle).
struct JointBlock {
    rows: core::ops::Range<usize>,
    columns: core::ops::Range<usize>,
}

impl JointBlock {
    /// Sets entry (r, c) to `entry(J_r, W_c)` for c ≤ r.
    #[inline(always)]
    fn fill<R: Real>(
        self,
        layout: skyline::SkylineLayout<'_>,
        jac: &[ConstraintRow<R>],
        minv_jt: &[[[R; 6]; 2]],
        matrix: &mut [R],
        entry: impl Fn(&[[R; 6]; 2], &[[R; 6]; 2]) -> R,
    ) {
        for r in self.rows {
            let (Some(row), Some(&dr)) = (jac.get(r), layout.diag.get(r)) else {
                continue;
            };
            // Entry (r, c) is stored at diag[r] − r + c.
            let base = dr - r;
            for c in self.columns.start..self.columns.end.min(r + 1) {
                if let (Some(w), Some(out)) = (minv_jt.get(c), matrix.get_mut(base + c)) {
                    *out = entry(&row.jac, w);
                }
            }
        }
    }
}

/// The mass block of `side` (an unknown body is taken as the ground).
fn mass_block<'a, R: Real>(
    mass: &'a [MassProperties<R>],
    sides: &'a [SideState<R>],
    overrides: &'a [MassOverride<R>],
    side: BodyRef,
) -> MassBlock<'a, R> {
    let BodyRef::Body(b) = side else {
        return MassBlock::Ground;
    };
    if let Some(Some(factor)) = overrides.get(b) {
        return MassBlock::Override(factor);
    }
    match (mass.get(b), sides.get(b)) {
        // Same values as `MassProperties::solve` with c = 0, 1/m formed once for all rows.
        (Some(mp), Some(_)) if mp.centred() => MassBlock::Centred(R::ONE / mp.mass, &mp.inertia_cg_inv),
        (Some(mp), Some(s)) => MassBlock::Rigid(mp, &s.rot),
        _ => MassBlock::Ground,
    }
}

impl<'a, R: Real> RigidSystem<'a, R> {
    /// A system whose state is `[q | v]` of the rigid bodies only.
    pub fn new(model: ModelView<'a, R>, work: WorkView<'a, R>) -> Self {
        let v_base = 7 * model.bodies.len();
        Self {
            model,
            work,
            v_base,
            mass_override: &mut [],
            external: None,
        }
    }

    fn body_count(&self) -> usize {
        self.model.bodies.len()
    }

    /// Offsets of body `i`'s position and velocity in the state.
    #[inline]
    pub fn offsets(&self, i: usize) -> (usize, usize) {
        (7 * i, self.v_base + 6 * i)
    }

    /// Solves body `b`'s mass block for a wrench (force global, torque body axes).
    fn solve_body(&self, b: usize, force: Vec3<R>, torque: Vec3<R>) -> (Vec3<R>, Vec3<R>) {
        let x = mass_block(
            self.model.mass,
            self.work.sides,
            self.mass_override,
            BodyRef::Body(b),
        )
        .solve(&[force.x, force.y, force.z, torque.x, torque.y, torque.z]);
        (Vec3::new(x[0], x[1], x[2]), Vec3::new(x[3], x[4], x[5]))
    }

    /// Body poses and velocities from the state `y` into `work.sides`.
    pub fn kinematics(&mut self, t: R, y: &[R]) -> Result<(), KernelError> {
        let v_base = self.v_base;
        for (i, s) in self.work.sides.iter_mut().enumerate() {
            let (qi, vi) = (7 * i, v_base + 6 * i);
            let bad = KernelError::NonFinite {
                item: Item::Body(i),
                time: t.to_f64(),
            };
            let q = y.get(qi + 3..qi + 7).ok_or(bad)?;
            let quat = Quat::new(q[0], q[1], q[2], q[3]).normalized().ok_or(bad)?;
            let (x, v, w) = (
                vec_at(y, qi).ok_or(bad)?,
                vec_at(y, vi).ok_or(bad)?,
                vec_at(y, vi + 3).ok_or(bad)?,
            );
            if !(x.is_finite() && v.is_finite() && w.is_finite()) {
                return Err(bad);
            }
            let rot = quat.to_matrix();
            if (s.x != x || s.rot != rot) && matches!(self.work.factor, Factor::Current(_)) {
                *self.work.factor = Factor::Nearby;
            }
            *s = SideState {
                x,
                rot,
                v,
                w: rot.mul_vec(w),
            };
        }
        Ok(())
    }

    /// Φ, Φ_q, Φ_t, γ of every joint into `work.rows`.
    pub fn constraints(&mut self, t: R) {
        let (m, ground) = (&self.model, SideState::GROUND);
        for (joint, &start) in m.joints.iter().zip(m.joint_start) {
            let (si, sj) = (
                side_or(self.work.sides, joint.body_i, &ground),
                side_or(self.work.sides, joint.body_j, &ground),
            );
            if let Some(out) = self.work.rows.get_mut(start..start + joint.kind.rows()) {
                evaluate_joint(joint, m.functions, si, sj, t, out);
            }
        }
    }

    /// Whether `matrix` and `minv_jt` already hold the factor for the poses in `sides` at time
    /// t: the factor depends on the poses only (and on t through rotation drives), so the one
    /// made by the projection after a step serves the first evaluation of the next step, bit
    /// for bit. Never with mass overrides (they change with the flexible coordinates).
    fn factor_is_current(&self, t: R) -> bool {
        let time_dependent = || {
            self.model.joints.iter().any(|j| {
                matches!(
                    j.kind,
                    JointKind::Driving {
                        coordinate: DrivenCoordinate::Rotation,
                        ..
                    }
                )
            })
        };
        // Never current with mass overrides: `factor_constraint_matrix` leaves those Nearby.
        matches!(*self.work.factor, Factor::Current(factored) if factored == t || !time_dependent())
    }

    /// W = M⁻¹ Φ_qᵀ (per row and side) and the skyline matrix Φ_q M⁻¹ Φ_qᵀ, factorized
    /// (kept when `factor_is_current`). Needs `kinematics` at the same poses first.
    fn factor_constraint_matrix(&mut self, t: R, at: Poses) -> Result<(), KernelError> {
        if self.factor_is_current(t) {
            return Ok(());
        }
        *self.work.factor = Factor::None;
        self.build_and_factor(at)?;
        *self.work.factor = match self.mass_override.is_empty() {
            true => Factor::Current(t),
            // The masses move with the flexible coordinates: never exact at the next call.
            false => Factor::Nearby,
        };
        Ok(())
    }

    /// W = M⁻¹ Φ_qᵀ and the constraint matrix, factorized; in a model with a closed loop, its
    /// redundant rows chosen so that the rows kept are not nearly dependent
    /// ([`Self::choose_redundant_rows`]).
    fn build_and_factor(&mut self, at: Poses) -> Result<(), KernelError> {
        self.fill_minv_jt();
        self.fill_matrix();
        self.factor_matrix(&[])?;
        if self.model.closes_loop {
            self.choose_redundant_rows(at)?;
        }
        Ok(())
    }

    /// W = M⁻¹ Φ_qᵀ, per row and body side.
    fn fill_minv_jt(&mut self) {
        let m = self.model;
        let (jac_rows, minv_jt) = (&*self.work.rows, &mut *self.work.minv_jt);
        for (_, sides, rows) in m.joint_rows() {
            for (k, side) in sides.into_iter().enumerate() {
                // Fetched once for all the rows the side carries.
                let block = mass_block(m.mass, self.work.sides, self.mass_override, side);
                for (row, w) in jac_rows
                    .get(rows.clone())
                    .unwrap_or(&[])
                    .iter()
                    .zip(minv_jt.get_mut(rows.clone()).unwrap_or(&mut []))
                {
                    w[k] = block.solve(&row.jac[k]);
                }
            }
        }
    }

    /// The skyline matrix Φ_q M⁻¹ Φ_qᵀ, assembled joint block by joint block: entry (r, c) sums
    /// J_r·W_c over the bodies the two joints share, which are found once per pair of joints.
    fn fill_matrix(&mut self) {
        let m = self.model;
        let (jac_rows, minv_jt) = (&*self.work.rows, &*self.work.minv_jt);
        let (layout, matrix) = (m.layout, &mut *self.work.matrix);
        for (a, sides_a, rows_a) in m.joint_rows() {
            let first = m.joint_first.get(a).copied().unwrap_or(a);
            for (_, sides_b, rows_b) in m.joint_rows_in(first..a + 1) {
                let mut pairs = [(0, 0); 4];
                let mut shared = 0;
                for (ka, side_a) in sides_a.iter().enumerate() {
                    for (kb, side_b) in sides_b.iter().enumerate() {
                        if matches!(side_a, BodyRef::Body(_)) && side_a == side_b {
                            pairs[shared] = (ka, kb);
                            shared += 1;
                        }
                    }
                }
                let block = JointBlock {
                    rows: rows_a.clone(),
                    columns: rows_b,
                };
                // Entry (r, c) = Σ over the shared bodies of J_r·W_c, the even and odd sums
                // ([`lanes`]) kept apart until the end. A chain's joints share one body with
                // their neighbours and two with themselves: those cases get loops of their own,
                // without the loop over pairs (the same sums; `& 1` tells the compiler a side
                // index is 0 or 1, so no bounds check).
                match pairs[..shared] {
                    [(ka, kb)] => block.fill(layout, jac_rows, minv_jt, matrix, |j, w| {
                        dot6(&j[ka & 1], &w[kb & 1])
                    }),
                    [(ka, kb), (kc, kd)] => block.fill(layout, jac_rows, minv_jt, matrix, |j, w| {
                        let ([e1, o1], [e2, o2]) =
                            (lanes(&j[ka & 1], &w[kb & 1]), lanes(&j[kc & 1], &w[kd & 1]));
                        (e1 + e2) + (o1 + o2)
                    }),
                    ref pairs => block.fill(layout, jac_rows, minv_jt, matrix, |j, w| {
                        pairs
                            .iter()
                            .map(|&(ka, kb)| lanes(&j[ka], &w[kb]))
                            .reduce(|[e1, o1], [e2, o2]| [e1 + e2, o1 + o2])
                            .map_or(R::ZERO, |[even, odd]| even + odd)
                    }),
                }
            }
        }
    }

    /// Factorizes the filled matrix, the rows `forced` taken as redundant; returns the number of
    /// redundant rows. Redundant rows (consistent over-constraint, e.g. a planar four-bar of
    /// revolutes) are found here and get zero multipliers; they are checked for consistency in
    /// `project`.
    fn factor_matrix(&mut self, forced: &[usize]) -> Result<usize, KernelError> {
        skyline::factorize_semidefinite(&self.model.layout, self.work.matrix, forced).map_err(|row| {
            KernelError::SingularMatrix {
                row,
                joint: self.joint_of(row),
            }
        })
    }

    /// Rows found redundant in order are the ones that depend on the rows before them: the rows
    /// kept are a basis, but near a pose where that basis degenerates (a spatial loop folding)
    /// one of them is nearly dependent, the kept set is ill-conditioned (and a dependent row
    /// after it may even pass for independent on round-off), although another choice of the
    /// same joint's rows is well conditioned. So when a kept row's pivot is a small part of its
    /// diagonal entry, that joint's rows are chosen again by pivoting: one after another, the
    /// row whose pivot is largest against the rows before the joint and those already chosen,
    /// while it keeps a fair part of its diagonal entry (the rank revealed as by a pivoted
    /// Cholesky factorization); the others are taken as redundant. Then the same for the joint
    /// of the weakest kept row left, up to four joints: where several loops lose rank at once
    /// (the double parallelogram lying flat) each has a row kept with a pivot of θ², and one
    /// such row kept let round-off over θ into the velocities (the energy jump at the flat pose
    /// grew from 3.3e-9 J at RK4 1/16 ms to 4.2e-8 J at 1/32 ms). Made anew at each
    /// factorization, the choice follows the motion, and leaves every well-conditioned
    /// factorization as it was.
    fn choose_redundant_rows(&mut self, at: Poses) -> Result<(), KernelError> {
        const MOST: usize = 6;
        const JOINTS: usize = 4;
        // A row chosen keeps at least ε^⅓ of its diagonal entry. Below that lie the rows that
        // are redundant on the constraint manifold but, at a state slightly off it (an
        // integrator stage, a projection iterate), keep a pivot of the order of its distance,
        // above the bound that finds dependent rows in order; above it lie the independent
        // rows of slender bodies.
        // At the projection's poses (within its tolerance of the manifold) down to ε^(5/12)
        // (3e-7 in f64), the tree's bound for the rows it leaves out: near a pose where Φ_q
        // itself loses rank an independent row keeps only θ² of its diagonal entry; left out
        // from ε^⅓ its |Φ| grew step by step beyond removal, kept down to ε^½ (θ ≈ 1e-4) its
        // round-off over θ made the energy jump at the pose grow as the step shrank.
        let bound = match at {
            Poses::Stage => Stabilization::<R>::chosen_row_bound(),
            Poses::Projection => Stabilization::<R>::degenerate_row_bound(),
        };
        let mut forced = [0; MOST * JOINTS];
        let (mut fixed, mut done) = (0, [usize::MAX; JOINTS]);
        for pass in 0..JOINTS {
            let Some(weak) = self.weakest_kept_row(&done[..pass]) else {
                break;
            };
            let joint = self.joint_of(weak);
            let Some((_, sides, rows)) = self.model.joint_rows_in(joint..joint + 1).next() else {
                break;
            };
            let n = rows.len();
            if n > MOST {
                break;
            }
            // No more rows than the factorization in order kept independent (its test, ε^⅔ of
            // the terms that cancelled, tells a dependent row apart at any pose): a row
            // redundant on the manifold may keep ε^⅔ of its diagonal entry just off it.
            let independent = (0..n)
                .filter(|&k| self.pivot_part(rows.start + k, sides).is_some())
                .count();
            let mut chosen = [false; MOST];
            while chosen.iter().filter(|&&c| c).count() < independent {
                let mut best: Option<(usize, R)> = None;
                for candidate in (0..n).filter(|&c| !chosen[c]) {
                    let count = self.force_all_but(&rows, &chosen, Some(candidate), &mut forced[fixed..]);
                    self.fill_matrix();
                    self.factor_matrix(&forced[..fixed + count])?;
                    // The rows chosen and the candidate must all come out independent.
                    let part = (0..n)
                        .filter(|&k| chosen[k] || k == candidate)
                        .map(|k| self.pivot_part(rows.start + k, sides).unwrap_or(R::ZERO))
                        .fold(R::INFINITY, |a, b| if b < a { b } else { a });
                    if part >= bound && best.is_none_or(|(_, b)| part > b) {
                        best = Some((candidate, part));
                    }
                }
                match best {
                    Some((candidate, _)) => chosen[candidate] = true,
                    None => break,
                }
            }
            let count = self.force_all_but(&rows, &chosen, None, &mut forced[fixed..]);
            self.fill_matrix();
            self.factor_matrix(&forced[..fixed + count])?;
            fixed += count;
            done[pass] = joint;
        }
        Ok(())
    }

    /// Writes into `forced` the rows of `rows` neither `chosen` nor `candidate`; returns their
    /// number.
    fn force_all_but(
        &self,
        rows: &core::ops::Range<usize>,
        chosen: &[bool],
        candidate: Option<usize>,
        forced: &mut [usize],
    ) -> usize {
        let mut count = 0;
        for (k, row) in rows.clone().enumerate() {
            if !chosen.get(k).copied().unwrap_or(false) && candidate != Some(k) {
                if let Some(f) = forced.get_mut(count) {
                    *f = row;
                    count += 1;
                }
            }
        }
        count
    }

    /// The kept row of the last factorization whose pivot is the smallest part of its diagonal
    /// entry, when that part is below ε^¼. A dependent row's pivot is round-off of the size
    /// ε / (the smallest part kept before it), which must stay well below the bound that finds
    /// dependent rows, ε^⅔: 20× below it at a part of ε^¼ in f64.
    fn weakest_kept_row(&self, done: &[usize]) -> Option<usize> {
        let bound = Stabilization::<R>::held_row_bound();
        let mut weakest: Option<(usize, R)> = None;
        for (joint, sides, rows) in self.model.joint_rows() {
            if done.contains(&joint) {
                continue;
            }
            for r in rows {
                match self.pivot_part(r, sides) {
                    Some(part) if part < bound && weakest.is_none_or(|(_, p)| part < p) => {
                        weakest = Some((r, part));
                    }
                    _ => {}
                }
            }
        }
        weakest.map(|(r, _)| r)
    }

    /// The pivot of row `r` in the last factorization as a part of its diagonal entry
    /// J_r·M⁻¹J_rᵀ (1: independent of the rows before it; None: taken as redundant), for a
    /// row of a joint between `sides`.
    fn pivot_part(&self, r: usize, sides: [BodyRef; 2]) -> Option<R> {
        let inverse = *self
            .model
            .layout
            .diag
            .get(r)
            .and_then(|&d| self.work.matrix.get(d))?;
        let (row, w) = (self.work.rows.get(r)?, self.work.minv_jt.get(r)?);
        if inverse == R::ZERO {
            return None;
        }
        let mut diagonal = R::ZERO;
        for (k, side) in sides.iter().enumerate() {
            if matches!(side, BodyRef::Body(_)) {
                diagonal += dot6(&row.jac[k], &w[k]);
            }
        }
        Some(R::ONE / (inverse * diagonal))
    }

    /// The joint owning constraint row `row`.
    fn joint_of(&self, row: usize) -> usize {
        self.model.row_joint.get(row).copied().unwrap_or(0)
    }

    /// The row with the largest |Φ| among the independent rows (`dependent` false) or the
    /// redundant ones (true) of the last factorization, and that |Φ| (0 when there is none).
    fn worst_row(&self, dependent: bool) -> (usize, R) {
        let layout = &self.model.layout;
        let mut worst = (0, R::ZERO);
        for (r, row) in self.work.rows.iter().enumerate() {
            let size = row.phi.abs();
            if skyline::is_dependent(layout, self.work.matrix, r) == dependent && size > worst.1 {
                worst = (r, size);
            }
        }
        worst
    }

    /// Calls `out(body, W_r, x_r)` for every row r and body side: used to apply −W x.
    fn apply_correction(&self, x: &[R], mut out: impl FnMut(usize, &[R; 6], R)) {
        for (_, sides, rows) in self.model.joint_rows() {
            for r in rows {
                for (k, side) in sides.into_iter().enumerate() {
                    if let (BodyRef::Body(b), Some(&xr)) = (side, x.get(r)) {
                        out(b, &self.work.minv_jt[r][k], xr);
                    }
                }
            }
        }
    }

    /// Φ_q v + Φ_t for row r of a joint between `sides`, with velocities from `y`.
    fn row_rate(&self, sides: [BodyRef; 2], r: usize, y: &[R]) -> R {
        self.rate(&self.work.rows[r], sides, y)
    }

    /// Φ_q v + Φ_t of `row`, a row between the bodies `sides`, at the velocities of `y`.
    fn rate(&self, row: &ConstraintRow<R>, sides: [BodyRef; 2], y: &[R]) -> R {
        let mut rate = row.phi_t;
        for (k, side) in sides.into_iter().enumerate() {
            if let BodyRef::Body(b) = side {
                let (_, vi) = self.offsets(b);
                if let Some(v) = y.get(vi..vi + 6) {
                    for (j, vc) in row.jac[k].iter().zip(v) {
                        rate += *j * *vc;
                    }
                }
            }
        }
        rate
    }

    /// Accelerations (into `work.accel`) and multipliers (into `work.lambda`) at (t, y).
    pub fn forward(&mut self, t: R, y: &[R]) -> Result<(), KernelError> {
        self.kinematics(t, y)?;
        self.applied_wrenches(t, y);
        self.solve_accelerations(t, y)
    }

    /// Gravity, velocity (Newton–Euler) terms and force elements into `work.wrench`; needs
    /// `kinematics` first.
    pub fn applied_wrenches(&mut self, t: R, y: &[R]) {
        let m = self.model;
        let v_base = self.v_base;
        for ((w, s), (mp, body_index)) in self
            .work
            .wrench
            .iter_mut()
            .zip(self.work.sides.iter())
            .zip(m.mass.iter().zip(0..))
        {
            let omega = vec_at(y, v_base + 6 * body_index + 3).unwrap_or(Vec3::ZERO);
            // Velocity terms of Newton–Euler written at the origin: −m R(ω×(ω×c)), −ω×J_o ω.
            let spin = omega.cross(mp.inertia_origin.mul_vec(omega));
            *w = if mp.centred() {
                // Origin at the CG (the chains' rods): gravity has no moment and ω×(ω×c) = 0.
                Wrench {
                    force: m.gravity * mp.mass,
                    torque: -spin,
                }
            } else {
                let mut wr = Wrench::default();
                wr.add_force_at(s, s.rot.mul_vec(mp.cg), m.gravity * mp.mass);
                wr.force -= s.rot.mul_vec(omega.cross(omega.cross(mp.cg))) * mp.mass;
                wr.torque -= spin;
                wr
            };
        }
        for f in m.forces {
            f.apply(t, m.joints, self.work.sides, self.work.wrench);
        }
        if let Some(external) = self.external.as_deref_mut() {
            external.apply(t, &mut ExternalLoads::bodies(self.work.sides, self.work.wrench));
        }
    }

    /// Unconstrained accelerations from `work.wrench`, then the constraint solve.
    pub fn solve_accelerations(&mut self, t: R, y: &[R]) -> Result<(), KernelError> {
        let m = self.model;
        for b in 0..self.body_count() {
            let w = self.work.wrench[b];
            let (lin, ang) = self.solve_body(b, w.force, w.torque);
            self.work.accel[b] = [lin.x, lin.y, lin.z, ang.x, ang.y, ang.z];
        }
        if self.work.rows.is_empty() {
            return Ok(());
        }
        self.constraints(t);
        self.factor_constraint_matrix(t, Poses::Stage)?;
        let st = m.stabilization;
        let two_alpha = R::TWO * st.baumgarte_alpha;
        let beta2 = st.baumgarte_beta * st.baumgarte_beta;
        for (_, sides, rows) in m.joint_rows() {
            for r in rows {
                let row = self.work.rows[r];
                let mut rhs = -row.gamma;
                if two_alpha != R::ZERO || beta2 != R::ZERO {
                    rhs += two_alpha * self.row_rate(sides, r, y) + beta2 * row.phi;
                }
                for (k, side) in sides.into_iter().enumerate() {
                    if let BodyRef::Body(b) = side {
                        rhs += dot6(&row.jac[k], &self.work.accel[b]);
                    }
                }
                self.work.lambda[r] = rhs;
            }
        }
        skyline::solve(&m.layout, self.work.matrix, self.work.lambda);
        // Taken out of `work` (and put back) so the closure may write them while `self` is read.
        let lambda = core::mem::take(&mut self.work.lambda);
        let accel = core::mem::take(&mut self.work.accel);
        self.apply_correction(lambda, |b, w, x| {
            if let Some(a) = accel.get_mut(b) {
                for c in 0..6 {
                    a[c] -= w[c] * x;
                }
            }
        });
        self.work.lambda = lambda;
        self.work.accel = accel;
        Ok(())
    }

    /// Newton–Raphson on Φ(q) = 0 with the mass-weighted minimal correction
    /// Δ = −M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁺Φ (redundant rows skipped), then the exact velocity
    /// projection onto Φ̇ = 0. Redundant rows must come out satisfied with the others: a
    /// redundant row left violated when the independent ones converged is a conflict.
    ///
    /// The first correction takes the factor already made at nearby poses (the step's last
    /// evaluation, O(h) away: one step of modified Newton), every later one the factor at the
    /// poses reached (Newton's own quadratic convergence, whatever the first step left). The
    /// converged poses always get their own factor: the velocity projection and the next step's
    /// first evaluation use it, exactly. After an RK4 step of 1 ms along a 20-link chain this
    /// saves the second factorization that 86 % of the steps made.
    pub fn project(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        let st = *self.model.stabilization;
        let n = self.body_count();
        let v_base = self.v_base;
        let mut iterations = 0;
        let mut previous = R::INFINITY;
        loop {
            self.kinematics(t, y)?;
            self.constraints(t);
            let residual = self.work.rows.iter().fold(R::ZERO, |m, r| m.max(r.phi.abs()));
            if !residual.is_finite() {
                let row = self
                    .work
                    .rows
                    .iter()
                    .position(|r| !r.phi.is_finite())
                    .unwrap_or(0);
                return Err(KernelError::NonFinite {
                    item: Item::Joint(self.joint_of(row)),
                    time: t.to_f64(),
                });
            }
            if st.projection_converged(residual, previous) {
                self.factor_constraint_matrix(t, Poses::Projection)?;
                break;
            }
            // A stall counts only after a correction with the projection's own factor (the
            // step's nearby one may have left out a row the projection keeps).
            previous = match iterations == 0 && *self.work.factor == Factor::Nearby {
                true => R::INFINITY,
                false => {
                    self.factor_constraint_matrix(t, Poses::Projection)?;
                    residual
                }
            };
            if iterations >= st.max_projection_iterations {
                let (independent, worst) = (self.worst_row(false), self.worst_row(true));
                return Err(
                    if worst.1 > independent.1 && independent.1 <= st.projection_tolerance {
                        KernelError::InconsistentConstraints {
                            row: worst.0,
                            joint: self.joint_of(worst.0),
                            residual: worst.1.to_f64(),
                        }
                    } else {
                        let row = if worst.1 > independent.1 {
                            worst.0
                        } else {
                            independent.0
                        };
                        KernelError::ProjectionNotConverged {
                            iterations,
                            residual: residual.to_f64(),
                            joint: self.joint_of(row),
                        }
                    },
                );
            }
            iterations += 1;
            let lambda = core::mem::take(&mut self.work.lambda);
            for (l, row) in lambda.iter_mut().zip(self.work.rows.iter()) {
                *l = -row.phi;
            }
            skyline::solve(&self.model.layout, self.work.matrix, lambda);
            self.apply_correction(lambda, |b, w, x| {
                let qi = 7 * b;
                add_at(y, qi, Vec3::new(w[0], w[1], w[2]) * x);
                let dtheta = Vec3::new(w[3], w[4], w[5]) * x;
                if let Some(q) = y.get_mut(qi + 3..qi + 7) {
                    // Rotation vector in body axes: q ← q ⊗ exp(Δθ/2).
                    let updated = Quat::new(q[0], q[1], q[2], q[3]).mul(&Quat::from_rotation_vector(dtheta));
                    q.copy_from_slice(&updated.to_array());
                }
            });
            self.work.lambda = lambda;
            normalize_quaternions(n, y);
        }
        // Velocities: v ← v − W (Φ_q W)⁻¹ (Φ_q v + Φ_t), at the projected q (matrix is current).
        let lambda = core::mem::take(&mut self.work.lambda);
        for (_, sides, rows) in self.model.joint_rows() {
            for r in rows {
                if let Some(l) = lambda.get_mut(r) {
                    *l = -self.row_rate(sides, r, y);
                }
            }
        }
        skyline::solve(&self.model.layout, self.work.matrix, lambda);
        self.apply_correction(lambda, |b, w, x| {
            let vi = v_base + 6 * b;
            add_at(y, vi, Vec3::new(w[0], w[1], w[2]) * x);
            add_at(y, vi + 3, Vec3::new(w[3], w[4], w[5]) * x);
        });
        self.work.lambda = lambda;
        Ok(iterations)
    }
}

/// Rescales every body's quaternion to unit length.
pub(crate) fn normalize_quaternions<R: Real>(n: usize, y: &mut [R]) {
    for i in 0..n {
        let qi = 7 * i;
        if let Some(q) = y.get_mut(qi + 3..qi + 7) {
            if let Some(u) = Quat::new(q[0], q[1], q[2], q[3]).normalized() {
                q.copy_from_slice(&u.to_array());
            }
        }
    }
}

impl<R: Real> OdeSystem<R> for RigidSystem<'_, R> {
    fn state_len(&self) -> usize {
        13 * self.body_count()
    }
    fn position_len(&self) -> usize {
        7 * self.body_count()
    }
    fn derivative(&mut self, t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        self.forward(t, y)?;
        self.write_derivative(y, dydt);
        Ok(())
    }
    fn advance_positions(&mut self, y: &mut [R], h: R) {
        self.advance_body_positions(y, h);
    }
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        self.accept_bodies(t, y)
    }
}

impl<R: Real> RigidSystem<'_, R> {
    /// q̇ (origin velocity, quaternion rate) and v̇ (last accelerations) into `dydt`.
    pub fn write_derivative(&self, y: &[R], dydt: &mut [R]) {
        let n = self.body_count();
        for i in 0..n {
            let (qi, vi) = self.offsets(i);
            let (Some(v), Some(q), Some(a)) =
                (y.get(vi..vi + 6), y.get(qi + 3..qi + 7), self.work.accel.get(i))
            else {
                continue;
            };
            let qd = Quat::new(q[0], q[1], q[2], q[3]).derivative(Vec3::new(v[3], v[4], v[5]));
            if let Some(dq) = dydt.get_mut(qi..qi + 7) {
                dq[..3].copy_from_slice(&v[..3]);
                dq[3..].copy_from_slice(&qd.to_array());
            }
            if let Some(dv) = dydt.get_mut(vi..vi + 6) {
                dv.copy_from_slice(a);
            }
        }
    }

    /// Moves the body positions by h with the velocities in `y` (exact rotation on SO(3)).
    pub fn advance_body_positions(&self, y: &mut [R], h: R) {
        let n = self.body_count();
        for i in 0..n {
            let (qi, vi) = self.offsets(i);
            let (Some(v), Some(w)) = (vec_at(y, vi), vec_at(y, vi + 3)) else {
                continue;
            };
            add_at(y, qi, v * h);
            if let Some(q) = y.get_mut(qi + 3..qi + 7) {
                // Exact rotation by ω·h in body axes.
                let turned = Quat::new(q[0], q[1], q[2], q[3]).mul(&Quat::from_rotation_vector(w * h));
                q.copy_from_slice(&turned.to_array());
            }
        }
    }
    /// Normalizes quaternions, checks for NaN, projects onto the constraints.
    pub fn accept_bodies(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        self.normalize_and_check(t, y)?;
        if self.model.stabilization.project && !self.work.rows.is_empty() {
            self.project(t, y)
        } else {
            Ok(0)
        }
    }

    /// Assembly of the initial configuration: [`Self::accept_bodies`], except that a state
    /// the projection would leave bit for bit as it is ([`Self::projection_keeps`]) is not
    /// projected, so the constraint matrix is not factorized: the first evaluation of a step
    /// factorizes the same matrix at the same poses. A consistent 10⁶-body chain saves
    /// W = M⁻¹Φ_qᵀ and the skyline (0.8 kB a body) and their time.
    pub fn assemble(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        self.normalize_and_check(t, y)?;
        if !self.model.stabilization.project || self.work.rows.is_empty() || self.projection_keeps(t, y)? {
            return Ok(0);
        }
        self.project(t, y)
    }

    /// Whether [`Self::project`] would leave `y` exactly as it is: Φ within the projection's
    /// tolerance at once (no position correction), every row's rate Φ_q v + Φ_t exactly zero
    /// (the velocity correction solves for zeros), and no velocity a negative zero (adding a
    /// zero correction would make it positive). Only for an open model whose masses are fixed:
    /// a closed loop's factorization also chooses its redundant rows, by where it is made.
    /// Each joint's rows are evaluated on their own, on the stack: the model's list of rows is
    /// not written (a tree's Cartesian mirror, which is never solved, leaves its rows, half a
    /// gigabyte for 10⁶ joints, untouched zeroed memory).
    fn projection_keeps(&mut self, t: R, y: &[R]) -> Result<bool, KernelError> {
        if self.model.closes_loop || !self.mass_override.is_empty() {
            return Ok(false);
        }
        self.kinematics(t, y)?;
        let (m, ground) = (self.model, SideState::GROUND);
        // Every row in the order of the model's list, as the projection would read them.
        let (mut residual, mut still) = (R::ZERO, true);
        for joint in m.joints.iter() {
            let mut rows = [ConstraintRow::default(); MOST_ROWS];
            let Some(rows) = rows.get_mut(..joint.kind.rows()) else {
                return Ok(false);
            };
            let sides = [joint.body_i, joint.body_j];
            let [si, sj] = sides.map(|side| side_or(self.work.sides, side, &ground));
            evaluate_joint(joint, m.functions, si, sj, t, rows);
            residual = rows.iter().fold(residual, |m, r| m.max(r.phi.abs()));
            still = still && rows.iter().all(|row| self.rate(row, sides, y) == R::ZERO);
        }
        // A non-finite Φ fails the comparison: the projection names its joint.
        if !m.stabilization.projection_converged(residual, R::INFINITY) {
            return Ok(false);
        }
        let velocities = y.get(self.v_base..self.v_base + 6 * self.body_count());
        if velocities.is_none_or(|v| v.iter().any(|x| *x == R::ZERO && x.to_f64().is_sign_negative())) {
            return Ok(false);
        }
        Ok(still)
    }

    /// Unit quaternions, and an error naming the first body whose state is not finite.
    fn normalize_and_check(&self, t: R, y: &mut [R]) -> Result<(), KernelError> {
        let n = self.body_count();
        normalize_quaternions(n, y);
        for i in 0..n {
            let (qi, vi) = self.offsets(i);
            let finite =
                |r: core::ops::Range<usize>| y.get(r).is_some_and(|s| s.iter().all(|x| x.is_finite()));
            if !finite(qi..qi + 7) || !finite(vi..vi + 6) {
                return Err(KernelError::NonFinite {
                    item: Item::Body(i),
                    time: t.to_f64(),
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rigid::{Body, Data, Model};
    use crate::Dynamics;

    #[test]
    fn centred_mass_block_gives_the_bits_of_the_general_solve() {
        // A body with its CG at the origin: the shortcut must not change a single bit.
        let body = Body::new(2.5, Mat3::symmetric(Vec3::new(0.3, 0.4, 0.5), 0.01, -0.02, 0.03));
        let mp = MassProperties::of(&body).unwrap();
        let rot = Quat::from_roll_pitch_yaw(0.2, 0.5, -0.9).to_matrix();
        let ft = [1.0, -2.0, 0.5, 0.3, 0.1, -0.7];
        let general = MassBlock::Rigid(&mp, &rot).solve(&ft);
        let centred = MassBlock::Centred(1.0 / mp.mass, &mp.inertia_cg_inv).solve(&ft);
        assert_eq!(general.map(f64::to_bits), centred.map(f64::to_bits));
    }

    type Chain = crate::Fixed<5, 5, 0, 25, { crate::samples::ChainSpec::<f64>::skyline_entries(5) }>;

    /// `assemble` of `data` against the projection itself (`accept_bodies`, which factorizes
    /// and solves for the corrections) from the same state: the same bits, and whether
    /// assembly factorized.
    fn assemble_against_projection(model: &Model<f64, Chain>, data: &mut Data<f64, Chain>) -> bool {
        let mut projected = data.clone();
        let t = data.clock.time;
        let (y, _, mut system) = projected.parts(model);
        system.accept_bodies(t, y).unwrap();
        crate::rigid::assemble(model, data).unwrap();
        let (assembled, projected) = (model.state(data), model.state(&projected));
        assert_eq!(assembled.len(), projected.len());
        for (a, p) in assembled.iter().zip(projected) {
            assert_eq!(a.to_bits(), p.to_bits());
        }
        data.work.factor != Factor::None
    }

    #[test]
    fn assembly_keeps_a_consistent_state_without_factorizing_and_projects_any_other() {
        use crate::samples::{revolute_chain, ChainSpec};
        let model: Model<f64, Chain> = revolute_chain(&ChainSpec::standard(5)).unwrap();
        // The chain as built: its joints closed, at rest.
        assert!(!assemble_against_projection(&model, &mut Data::new(&model)));
        // A link moving off its hinge: the velocity projection corrects it.
        let mut moving = Data::new(&model);
        moving.set_velocity(2, Vec3::new(0.0, 0.0, 0.3), Vec3::ZERO);
        assert!(assemble_against_projection(&model, &mut moving));
        // A negative zero velocity: the projection adds a zero to it, which makes it positive.
        let mut negative_zero = Data::new(&model);
        negative_zero.set_velocity(1, Vec3::new(-0.0, 0.0, 0.0), Vec3::ZERO);
        assert!(assemble_against_projection(&model, &mut negative_zero));
        // A link off its hinge by more than the tolerance: the position projection moves it.
        let mut apart = Data::new(&model);
        apart.set_pose(3, Vec3::new(3.5, 0.0, 1e-3), crate::math::Quat::IDENTITY);
        assert!(assemble_against_projection(&model, &mut apart));
    }
}
