//! Loops closed on a tree: a joint between two links (or a link and the ground) that the tree's
//! own joints do not carry is a set of constraint rows Φ(q) = 0 on the joint coordinates.
//!
//! The rows are the Cartesian model's ([`crate::rigid::Joint`], one source of the joint
//! equations) at the links' poses and velocities from the tree kinematics; each row's
//! Jacobian on the two sides becomes a spatial force F, whose products with the joints' motion
//! subspaces along the paths to the ground are its row of Φ_q, and whose product with the
//! links' velocity-product accelerations (q̈ = 0) moves γ to the tree's coordinates. With the
//! joint-space mass matrix M (composite rigid bodies, world axes; LDLᵀ) and the unconstrained
//! accelerations q̈₀ of the articulated-body algorithm:
//!
//!   M q̈ + Φ_qᵀ λ = τ,  Φ_q q̈ = γ  ⇒  (Φ_q M⁻¹ Φ_qᵀ) λ = Φ_q q̈₀ − γ,  q̈ = q̈₀ − M⁻¹ Φ_qᵀ λ,
//!
//! the few loop rows solved densely with diagonal pivoting that leaves out the redundant rows
//! (a planar four-bar modelled spatially has three), chosen anew at every factorization so
//! that a folded pose passes; a row the tree's coordinates all but stop moving (a
//! parallelogram lying flat) is left out near that pose ([`leave_out_degenerate_rows`]). After every accepted step q is projected onto Φ = 0 (Newton with
//! the mass-weighted minimal correction M⁻¹Φ_qᵀ(Φ_q M⁻¹Φ_qᵀ)⁺Φ) and v onto Φ̇ = 0, as the
//! Cartesian model does.
//!
//! Coordinate rows (couplings and drives, [`super::coordinate_rows`]) follow the loop rows in
//! the same matrices: their Φ_q rows are unit rows on the coordinates, and a drive's Φ_t enters
//! the velocity projection (Φ̇ = Φ_q v + Φ_t = 0).

use super::coordinate_rows::CoordinateRow;
use super::dynamics::{
    advance_coordinates, first_acceleration, kinematics, link_state, normalize_quaternions, parent_pose,
    rigid_inertia, LinkWork,
};
use super::joint::{Subspace, MAX_DOF};
use super::shape::LinkShape;
use super::spatial::Spatial;
use super::{Data, Link, Model};
use crate::math::dense_ldl::{self, packed, packed_len};
use crate::math::{Mat3, Vec3};
use crate::rigid::{evaluate_joint, BodyRef, ConstraintRow, Joint, SideState, Stabilization};
use crate::storage::{resize, sized, List, Storage};
use crate::{Item, KernelError, Real};

/// Reals of the dense workspace for nv velocity coordinates and m loop rows (0 without loops):
/// M, Φ_q (m × nv), M⁻¹Φ_qᵀ (m × nv), Φ_q M⁻¹Φ_qᵀ, m scales and an nv vector.
pub(crate) fn workspace_len(nv: usize, m: usize) -> usize {
    match m {
        0 => 0,
        m => packed_len(nv) + 2 * m * nv + packed_len(m) + m + nv,
    }
}

/// The loop rows of a tree's data: rows, multipliers, the rows kept and the dense matrices.
pub(crate) struct LoopData<R: Real, St: Storage> {
    rows: St::Rows<ConstraintRow<R>>,
    lambda: St::Rows<R>,
    order: St::Rows<usize>,
    rank: usize,
    /// Whether `order[..rank]` holds a choice of rows made on the manifold, to keep over a step.
    held: bool,
    matrix: St::Skyline<R>,
}

impl<R: Real, St: Storage> Clone for LoopData<R, St> {
    fn clone(&self) -> Self {
        Self {
            rows: self.rows.clone(),
            lambda: self.lambda.clone(),
            order: self.order.clone(),
            rank: self.rank,
            held: self.held,
            matrix: self.matrix.clone(),
        }
    }
}

impl<R: Real, St: Storage> LoopData<R, St> {
    /// Sized for `model`.
    pub(crate) fn new(model: &Model<R, St>) -> Self {
        let m = model.constraint_rows();
        Self {
            rows: sized(m, ConstraintRow::default()),
            lambda: sized(m, R::ZERO),
            order: sized(m, 0),
            rank: 0,
            held: false,
            matrix: sized(model.loop_workspace(), R::ZERO),
        }
    }
    /// Empty (no loops).
    pub(crate) fn empty() -> Self {
        Self {
            rows: List::empty(),
            lambda: List::empty(),
            order: List::empty(),
            rank: 0,
            held: false,
            matrix: List::empty(),
        }
    }
    /// Resized for `model`, in place.
    pub(crate) fn reset(&mut self, model: &Model<R, St>) {
        let m = model.constraint_rows();
        resize(&mut self.rows, m, ConstraintRow::default());
        resize(&mut self.lambda, m, R::ZERO);
        resize(&mut self.order, m, 0);
        self.rank = 0;
        self.held = false;
        resize(&mut self.matrix, model.loop_workspace(), R::ZERO);
    }
    /// Whether the data fits `model`'s loops.
    pub(crate) fn fits(&self, model: &Model<R, St>) -> bool {
        self.rows.len() == model.constraint_rows() && self.matrix.len() == model.loop_workspace()
    }
    /// The rows' multipliers (loop rows, then coordinate rows) of the last dynamics evaluation.
    pub(crate) fn multipliers(&self) -> &[R] {
        &self.lambda
    }
}

/// The loops of a tree as one evaluation of the dynamics or one projection sees them.
pub(crate) struct Loops<'a, R> {
    joints: &'a [Joint<R>],
    coordinate_rows: &'a [CoordinateRow<R>],
    stabilization: &'a Stabilization<R>,
    pub(super) rows: &'a mut [ConstraintRow<R>],
    pub(super) lambda: &'a mut [R],
    pub(super) order: &'a mut [usize],
    pub(super) rank: &'a mut usize,
    held: &'a mut bool,
    pub(super) matrix: &'a mut [R],
}

/// Which loop rows a factorization keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Choice {
    /// The rows chosen last, while they stay well conditioned (over a step's stages and a
    /// projection's iterations: off the manifold a redundant row keeps a pivot of the order of
    /// its distance, and taking it there would make the accelerations jump with the stage).
    Held,
    /// Chosen anew, on (or O(h⁵) off) the manifold.
    Anew,
}

/// The dense workspace cut into its matrices.
pub(super) struct Parts<'a, R> {
    mass: &'a mut [R],
    pub(super) jacobian: &'a mut [R],
    pub(super) weighted: &'a mut [R],
    pub(super) schur: &'a mut [R],
    scale: &'a mut [R],
    vector: &'a mut [R],
}

impl<'a, R: Real> Loops<'a, R> {
    /// The loops of `model` with their rows in `data` (`None` without loops).
    pub(crate) fn of<St: Storage>(model: &'a Model<R, St>, data: &'a mut LoopData<R, St>) -> Option<Self> {
        (model.constraint_rows() > 0).then_some(Self {
            joints: &model.loops,
            coordinate_rows: &model.coordinate_rows,
            stabilization: &model.stabilization,
            rows: &mut data.rows,
            lambda: &mut data.lambda,
            order: &mut data.order,
            rank: &mut data.rank,
            held: &mut data.held,
            matrix: &mut data.matrix,
        })
    }

    pub(super) fn parts(matrix: &mut [R], nv: usize, m: usize) -> Result<Parts<'_, R>, KernelError> {
        fn cut<R>(s: &mut [R], n: usize) -> Result<(&mut [R], &mut [R]), KernelError> {
            s.split_at_mut_checked(n).ok_or(KernelError::StateSizeMismatch)
        }
        let (mass, rest) = cut(matrix, packed_len(nv))?;
        let (jacobian, rest) = cut(rest, m * nv)?;
        let (weighted, rest) = cut(rest, m * nv)?;
        let (schur, rest) = cut(rest, packed_len(m))?;
        let (scale, vector) = cut(rest, m)?;
        Ok(Parts {
            mass,
            jacobian,
            weighted,
            schur,
            scale,
            vector,
        })
    }

    /// The constrained accelerations: `accel` holds the unconstrained q̈₀ (nv) of the
    /// coordinates `q`, `rate` and leaves with q̈; the multipliers stay in the data.
    pub(crate) fn constrain(
        &mut self,
        t: R,
        (links, shapes): (&[Link<R>], &[LinkShape]),
        (q, rate): (&[R], &[R]),
        work: &mut [LinkWork<R>],
        accel: &mut [R],
    ) -> Result<(), KernelError> {
        kinematics(links, shapes, q, rate, work);
        velocity_products(links, rate, work);
        self.evaluate(t, links, (q, work), true);
        self.factor(links, shapes, work, rate.len(), Choice::Held)?;
        let (nv, m) = (rate.len(), self.rows.len());
        let p = Self::parts(self.matrix, nv, m)?;
        for ((l, row), g) in self
            .lambda
            .iter_mut()
            .zip(self.rows.iter())
            .zip(p.jacobian.chunks(nv))
        {
            *l = dot(g, accel) - row.gamma;
        }
        dense_ldl::solve_pivoted(m, p.schur, self.order, *self.rank, self.lambda);
        for (l, w) in self.lambda.iter().zip(p.weighted.chunks(nv)) {
            for (a, w) in accel.iter_mut().zip(w) {
                *a -= *w * *l;
            }
        }
        Ok(())
    }

    /// Projects the state `y` = [q | v] (nq positions) onto Φ = 0 and Φ̇ = 0; returns the
    /// Newton iterations.
    pub(crate) fn project(
        &mut self,
        t: R,
        (links, shapes): (&[Link<R>], &[LinkShape]),
        nq: usize,
        work: &mut [LinkWork<R>],
        y: &mut [R],
    ) -> Result<u32, KernelError> {
        if !self.stabilization.project {
            return Ok(0);
        }
        let st = *self.stabilization;
        let nv = y.len().saturating_sub(nq);
        let first_loop = links.len();
        let mut iterations = 0;
        let mut previous = R::INFINITY;
        loop {
            let (q, rate) = y.split_at(nq.min(y.len()));
            kinematics(links, shapes, q, rate, work);
            self.evaluate(t, links, (q, work), false);
            let (worst, residual) = self
                .rows
                .iter()
                .enumerate()
                .fold((0, R::ZERO), |(w, m), (r, row)| {
                    match row.phi.abs() > m || !row.phi.is_finite() {
                        true => (r, row.phi.abs()),
                        false => (w, m),
                    }
                });
            let joint = self.joint_of(worst, first_loop);
            if !residual.is_finite() {
                return Err(KernelError::NonFinite {
                    item: Item::Joint(joint),
                    time: t.to_f64(),
                });
            }
            // The rows are chosen anew where the step ends (O(h⁵) off the manifold with RK4)
            // and where the projection converged, and kept over the iterations between.
            // Newton stalls where the rows kept and a redundant row meet at a tangent (passing
            // the folded poses of a spatial loop, a redundant row's |Φ| of 2–5·10⁻¹² stays,
            // which no choice of rows removes): see `Stabilization::projection_converged`.
            let converged = st.projection_converged(residual, previous);
            let choice = match converged || iterations == 0 {
                true => Choice::Anew,
                false => Choice::Held,
            };
            self.factor(links, shapes, work, nv, choice)?;
            if converged {
                break;
            }
            previous = residual;
            if iterations >= st.max_projection_iterations {
                return Err(KernelError::ProjectionNotConverged {
                    iterations,
                    residual: residual.to_f64(),
                    joint,
                });
            }
            iterations += 1;
            for (l, row) in self.lambda.iter_mut().zip(self.rows.iter()) {
                *l = -row.phi;
            }
            let p = self.correction(nv)?;
            let (q, _) = y.split_at_mut(nq.min(y.len()));
            advance_coordinates(links, q, p, R::ONE);
            normalize_quaternions(links, y);
        }
        // Velocities: v ← v − M⁻¹Φ_qᵀ (Φ_q M⁻¹Φ_qᵀ)⁺ (Φ_q v + Φ_t) at the projected q.
        let m = self.rows.len();
        let rate = y.get(nq..).unwrap_or_default();
        let p = Self::parts(self.matrix, nv, m)?;
        for ((l, g), row) in self
            .lambda
            .iter_mut()
            .zip(p.jacobian.chunks(nv))
            .zip(self.rows.iter())
        {
            *l = -(dot(g, rate) + row.phi_t);
        }
        let p = self.correction(nv)?;
        for (v, d) in y.iter_mut().skip(nq).zip(p.iter()) {
            *v += *d;
        }
        Ok(iterations)
    }

    /// Solves for the multipliers of the right sides in `lambda` and returns M⁻¹Φ_qᵀ λ.
    fn correction(&mut self, nv: usize) -> Result<&[R], KernelError> {
        let m = self.rows.len();
        let p = Self::parts(self.matrix, nv, m)?;
        dense_ldl::solve_pivoted(m, p.schur, self.order, *self.rank, self.lambda);
        p.vector.fill(R::ZERO);
        for (l, w) in self.lambda.iter().zip(p.weighted.chunks(nv)) {
            for (d, w) in p.vector.iter_mut().zip(w) {
                *d += *w * *l;
            }
        }
        Ok(p.vector)
    }

    /// The joint owning row `row` (loop joint ℓ is joint `first_loop` + ℓ; a coordinate row's
    /// is its link's).
    fn joint_of(&self, row: usize, first_loop: usize) -> usize {
        let mut start = 0;
        for (j, joint) in self.joints.iter().enumerate() {
            start += joint.kind.rows();
            if row < start {
                return first_loop + j;
            }
        }
        let coordinate = self.coordinate_rows.get(row.saturating_sub(start));
        coordinate.map_or(first_loop, |r| r.link)
    }

    /// Φ, Φ_q (tree coordinates, into the workspace) and, with `dynamics`, γ of every row at
    /// the coordinates `q` and the motions in `work` (and their velocity products,
    /// [`velocity_products`]).
    pub(super) fn evaluate(
        &mut self,
        t: R,
        links: &[Link<R>],
        (q, work): (&[R], &[LinkWork<R>]),
        dynamics: bool,
    ) {
        let nv: usize = links.iter().map(Link::velocity_count).sum();
        let m = self.rows.len();
        let Ok(p) = Self::parts(self.matrix, nv, m) else {
            return;
        };
        p.jacobian.fill(R::ZERO);
        let side = |b: BodyRef| match b {
            BodyRef::Body(k) => work
                .get(k)
                .map_or(SideState::GROUND, |w| link_state(&w.motion).side()),
            BodyRef::Ground => SideState::GROUND,
        };
        let mut start = 0;
        for joint in self.joints {
            let rows = start..start + joint.kind.rows();
            start = rows.end;
            let sides = [joint.body_i, joint.body_j];
            let states = sides.map(side);
            let Some(out) = self.rows.get_mut(rows.clone()) else {
                return;
            };
            // No drives among the loop joints (`Builder::close_loop` refuses them).
            evaluate_joint(joint, &[], &states[0], &states[1], t, out);
            for (k, (&body, state)) in sides.iter().zip(&states).enumerate() {
                let BodyRef::Body(link) = body else { continue };
                let motion = work
                    .get(link)
                    .map(|w| (w.motion.velocity.angular, w.bias_acceleration));
                let (omega, products) = motion.unwrap_or((Vec3::ZERO, Spatial::ZERO));
                let origin_velocity = state.v;
                let mut at_v = 0;
                for (l, of) in links.iter().enumerate() {
                    let count = of.velocity_count();
                    if on_path(links, l, link) {
                        let (columns, dof) = columns(links, work, l);
                        for (row, g) in out.iter().zip(p.jacobian.chunks_mut(nv).skip(rows.start)) {
                            let force = covector(&row.jac[k], state);
                            for (c, s) in columns.iter().take(dof).enumerate() {
                                if let Some(g) = g.get_mut(at_v + c) {
                                    *g += force.dot(*s);
                                }
                            }
                        }
                    }
                    at_v += count;
                }
                if dynamics {
                    for row in out.iter_mut() {
                        let j = &row.jac[k];
                        let linear = Vec3::new(j[0], j[1], j[2]);
                        row.gamma -=
                            covector(j, state).dot(products) + linear.dot(omega.cross(origin_velocity));
                    }
                }
            }
        }
        let rows = self.rows.iter_mut().skip(start);
        let jacobian = p.jacobian.chunks_mut(nv).skip(start);
        for ((row, out), g) in self.coordinate_rows.iter().zip(rows).zip(jacobian) {
            *out = row.evaluate(t, q);
            row.jacobian(g);
        }
    }

    /// M (composite rigid bodies), its factor, M⁻¹Φ_qᵀ and the pivoted factor of the loop
    /// rows' matrix, at the motions in `work` and the Φ_q of [`Self::evaluate`], its rows kept
    /// as `choice` says.
    pub(super) fn factor(
        &mut self,
        links: &[Link<R>],
        shapes: &[LinkShape],
        work: &mut [LinkWork<R>],
        nv: usize,
        choice: Choice,
    ) -> Result<(), KernelError> {
        let m = self.rows.len();
        let p = Self::parts(self.matrix, nv, m)?;
        mass_matrix(links, shapes, work, p.mass);
        dense_ldl::factorize(nv, p.mass).map_err(|row| KernelError::SingularMatrix { row, joint: row })?;
        p.weighted.copy_from_slice(p.jacobian);
        for w in p.weighted.chunks_mut(nv) {
            dense_ldl::solve(nv, p.mass, w);
        }
        for (r, g) in p.jacobian.chunks(nv).enumerate() {
            for (c, w) in p.weighted.chunks(nv).enumerate().take(r + 1) {
                if let Some(a) = p.schur.get_mut(packed(r, c)) {
                    *a = dot(g, w);
                }
            }
        }
        leave_out_degenerate_rows((self.joints, self.rows), links, work, p.schur);
        // A row chosen keeps at least ε^⅓ of its diagonal entry, and a choice is held while its
        // rows keep ε^¼, as the Cartesian model's rows.
        let bounds = (
            Stabilization::<R>::chosen_row_bound(),
            Stabilization::<R>::held_row_bound(),
        );
        let kept = match (choice, *self.held) {
            (Choice::Held, true) => *self.rank,
            _ => 0,
        };
        *self.rank = dense_ldl::factorize_pivoted(m, p.schur, self.order, p.scale, bounds, kept);
        *self.held = true;
        Ok(())
    }
}

/// Empties the row and column of the loop rows matrix `schur` of each loop row that the
/// tree has all but lost: the factorization then takes it as redundant (zero multiplier)
/// and the projection leaves its Φ alone.
///
/// Where Φ_q itself loses rank (a parallelogram lying flat: its coupler pins' rows along the
/// ground line), such a row's Jacobian on the tree's coordinates vanishes like the angle θ to
/// that pose, while its pivot stays a fair part of its own diagonal entry, so no rank test
/// sees it. Kept, it holds the links on the branch they follow (the parallelogram, not the
/// crossed one that meets it there) only to its Φ's round-off over θ, and the velocity
/// projection and the constrained accelerations divide by θ again: the energy jumped by more
/// the closer a step landed to the flat pose, so by more the smaller the step.
///
/// The measure, free of units: the row's diagonal entry Φ_q M⁻¹ Φ_qᵀ against the one its
/// links would give as free bodies, J M_free⁻¹ Jᵀ (never smaller: the tree only takes
/// freedom away), about θ² at such a pose. Left out below ε^(5/12) (3e-7 in f64, θ ≈ 5·10⁻⁴
/// for the double parallelogram), what the row carried, a force whose work is θ times
/// smaller, moves the links by O(θ³) while it is out; nearer the pose its round-off wins.
/// On the double parallelogram, 1e-7 to 4e-7 gave energy jumps that shrink with the step
/// (5e-8 and ε^½ did not; host/tests/suite/tree_loops.rs). Rows with a side massless or of
/// singular inertia (a point mass, a thin rod) are kept.
fn leave_out_degenerate_rows<R: Real>(
    (joints, rows): (&[Joint<R>], &[ConstraintRow<R>]),
    links: &[Link<R>],
    work: &[LinkWork<R>],
    schur: &mut [R],
) {
    let bound = Stabilization::<R>::degenerate_row_bound();
    let mut start = 0;
    for joint in joints {
        let range = start..start + joint.kind.rows();
        start = range.end;
        let [Some(i), Some(j)] = [joint.body_i, joint.body_j].map(|side| FreeBody::of(side, links, work))
        else {
            continue;
        };
        for r in range {
            let (Some(row), Some(&diagonal)) = (rows.get(r), schur.get(packed(r, r))) else {
                continue;
            };
            // A row the tree does not move at all is left out by the factorization as it is.
            if diagonal > R::ZERO
                && diagonal < bound * (i.compliance(&row.jac[0]) + j.compliance(&row.jac[1]))
            {
                for c in 0..rows.len() {
                    if let Some(a) = schur.get_mut(packed(r.max(c), r.min(c))) {
                        *a = R::ZERO;
                    }
                }
            }
        }
    }
}

/// A row's side as a free body: its link's rotation, CG (link axes), inverse mass and inverse
/// inertia about the CG (link axes); no link for the ground.
struct FreeBody<R> {
    link: Option<FreeLink<R>>,
}

/// What [`FreeBody`] keeps of a link.
struct FreeLink<R> {
    rotation: Mat3<R>,
    cg: Vec3<R>,
    inverse_mass: R,
    inverse_inertia: Mat3<R>,
}

impl<R: Real> FreeBody<R> {
    /// Side `side` at the motions in `work`; `None` for a link massless or of singular inertia.
    fn of(side: BodyRef, links: &[Link<R>], work: &[LinkWork<R>]) -> Option<Self> {
        let BodyRef::Body(l) = side else {
            return Some(Self { link: None });
        };
        let (link, w) = (links.get(l)?, work.get(l)?);
        let inverse_inertia = link.inertia.inverse().filter(|_| link.mass > R::ZERO)?;
        Some(Self {
            link: Some(FreeLink {
                rotation: w.motion.pose.rotation,
                cg: link.cg,
                inverse_mass: R::ONE / link.mass,
                inverse_inertia,
            }),
        })
    }

    /// J M⁻¹ Jᵀ of a row's block `jac` on this body (velocity of the link origin in world
    /// axes, angular velocity in link axes): its force through the CG over the mass, its moment
    /// about the CG through the inverse inertia.
    fn compliance(&self, jac: &[R; 6]) -> R {
        let Some(f) = &self.link else {
            return R::ZERO;
        };
        let linear = Vec3::new(jac[0], jac[1], jac[2]);
        let moment = Vec3::new(jac[3], jac[4], jac[5]) - f.cg.cross(f.rotation.tr_mul_vec(linear));
        linear.dot(linear) * f.inverse_mass + moment.dot(f.inverse_inertia.mul_vec(moment))
    }
}

/// Σ a_k b_k.
fn dot<R: Real>(a: &[R], b: &[R]) -> R {
    a.iter().zip(b).fold(R::ZERO, |s, (a, b)| s + *a * *b)
}

/// The spatial force (about the world origin, world axes) whose product with a link's spatial
/// velocity is the rate of a row with Jacobian block `jac` on that side (origin velocity in
/// world axes, angular velocity in link axes): (x × J_v + R J_ω, J_v).
fn covector<R: Real>(jac: &[R; 6], side: &SideState<R>) -> Spatial<R> {
    let linear = Vec3::new(jac[0], jac[1], jac[2]);
    let angular = side.rot.mul_vec(Vec3::new(jac[3], jac[4], jac[5]));
    Spatial::new(side.x.cross(linear) + angular, linear)
}

/// Whether link `l` is link `k` or one of its ancestors.
fn on_path<R: Real>(links: &[Link<R>], l: usize, k: usize) -> bool {
    let mut at = Some(k);
    while let Some(c) = at {
        if c == l {
            return true;
        }
        if c < l {
            return false;
        }
        at = links.get(c).and_then(|link| link.parent);
    }
    false
}

/// The motion subspace of link `k`'s joint at the motions in `work`: its columns and number.
pub(super) fn columns<R: Real>(
    links: &[Link<R>],
    work: &[LinkWork<R>],
    k: usize,
) -> ([Spatial<R>; MAX_DOF], usize) {
    let (Some(link), Some(w)) = (links.get(k), work.get(k)) else {
        return ([Spatial::ZERO; MAX_DOF], 0);
    };
    match link.multi {
        None => {
            let mut columns = [Spatial::ZERO; MAX_DOF];
            columns[0] = w.motion.axis;
            (columns, 1)
        }
        Some(joint) => {
            let done = work.get(..k).unwrap_or_default();
            let subspace = Subspace::of(link, joint, &parent_pose(link, done), &w.motion.pose);
            (subspace.columns, subspace.dof)
        }
    }
}

/// Each link's velocity-product acceleration (its spatial acceleration at q̈ = 0 without
/// gravity) into `bias_acceleration`, at the motions in `work`.
fn velocity_products<R: Real>(links: &[Link<R>], rate: &[R], work: &mut [LinkWork<R>]) {
    let mut at_v = 0;
    for (k, link) in links.iter().enumerate() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return;
        };
        let parent = link.parent.and_then(|p| done.get(p));
        let nv = link.velocity_count();
        let rates = rate.get(at_v..at_v + nv).unwrap_or_default();
        at_v += nv;
        w.bias_acceleration = match link.multi {
            None => {
                let r = rates.first().copied().unwrap_or(R::ZERO);
                first_acceleration(parent, w.motion.velocity, w.motion.axis.scale(r), Spatial::ZERO)
            }
            Some(joint) => {
                let a = parent.map_or(Spatial::ZERO, |p| p.bias_acceleration);
                let subspace = Subspace::of(link, joint, &parent_pose(link, done), &w.motion.pose);
                a.add(subspace.bias(w.motion.velocity, rates))
            }
        };
    }
}

/// The joint-space mass matrix (packed lower) at the motions in `work` by the composite rigid
/// body algorithm in world axes (Featherstone 2008, §6.2): the composite inertias need no
/// transforms, and M_ij = S_jᵀ I^c_i S_i for joint j on the path of link i, plus the joint's
/// armature on the diagonal.
pub(super) fn mass_matrix<R: Real>(
    links: &[Link<R>],
    shapes: &[LinkShape],
    work: &mut [LinkWork<R>],
    mass: &mut [R],
) {
    for ((link, &shape), w) in links.iter().zip(shapes).zip(work.iter_mut()) {
        w.inertia = rigid_inertia(link, shape, &w.motion.pose).0;
    }
    for (k, link) in links.iter().enumerate().rev() {
        if let (Some(p), Some((done, [w, ..]))) = (link.parent, work.split_at_mut_checked(k)) {
            if let Some(parent) = done.get_mut(p) {
                parent.inertia.add_assign(&w.inertia);
            }
        }
    }
    mass.fill(R::ZERO);
    let mut at_i = 0;
    for (i, link) in links.iter().enumerate() {
        let (cols_i, dof_i) = columns(links, work, i);
        let composite = work.get(i).map(|w| w.inertia);
        for (c, s) in cols_i.iter().take(dof_i).enumerate() {
            let force = composite.map_or(Spatial::ZERO, |inertia| inertia.apply(*s));
            // Joint i itself, then each ancestor j (their coordinates come before i's).
            let mut at_j = at_i;
            let mut j = Some(i);
            while let Some(jl) = j {
                let (cols_j, dof_j) = columns(links, work, jl);
                if jl != i {
                    at_j = links.iter().take(jl).map(Link::velocity_count).sum();
                }
                for (cj, sj) in cols_j.iter().take(dof_j).enumerate() {
                    if jl == i && cj > c {
                        break;
                    }
                    if let Some(e) = mass.get_mut(packed(at_i + c, at_j + cj)) {
                        *e = sj.dot(force);
                        if jl == i && cj == c {
                            // The joint's rotor inertia, on the diagonal alone.
                            *e += link.armature;
                        }
                    }
                }
                j = links.get(jl).and_then(|l| l.parent);
            }
        }
        at_i += link.velocity_count();
    }
}

/// The largest |Φ| of the loop and coordinate rows of `model` at the state of `data` (0
/// without rows).
pub fn loop_residual<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> R {
    let coordinates = super::coordinate_rows::residual(&model.coordinate_rows, data.time(), data.positions());
    loop_rows(model, data)
        .iter()
        .fold(coordinates, |m, r| m.max(r.phi.abs()))
}

/// The loop rows of `model` (Φ and the Jacobian blocks on their two links) at the state of
/// `data`, in the order of the loop joints.
pub fn loop_rows<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &Data<R, St>,
) -> St::Rows<ConstraintRow<R>> {
    let mut rows: St::Rows<ConstraintRow<R>> = sized(model.loop_rows(), ConstraintRow::default());
    let mut work: St::Bodies<LinkWork<R>> = sized(model.links.len(), LinkWork::default());
    kinematics(
        &model.links,
        &model.shapes,
        data.positions(),
        data.velocities(),
        &mut work,
    );
    let mut start = 0;
    for joint in model.loops.iter() {
        let side = |b: BodyRef| match b {
            BodyRef::Body(k) => work
                .get(k)
                .map_or(SideState::GROUND, |w| link_state(&w.motion).side()),
            BodyRef::Ground => SideState::GROUND,
        };
        let end = start + joint.kind.rows();
        if let Some(out) = rows.get_mut(start..end) {
            let (si, sj) = (side(joint.body_i), side(joint.body_j));
            evaluate_joint(joint, &[], &si, &sj, data.time(), out);
        }
        start = end;
    }
    rows
}

/// Which rows of `model` are redundant at the state of `data` (consistent over-constraint,
/// e.g. three of a planar four-bar's when modelled spatially): `true` for each row left out by
/// the pivoted factorization, in the order of the loop joints' rows, then the coordinate rows.
pub fn redundant_loop_rows<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &Data<R, St>,
) -> Result<St::Rows<bool>, KernelError> {
    let mut scratch = data.loops.clone();
    let mut work: St::Bodies<LinkWork<R>> = sized(model.links.len(), LinkWork::default());
    let (q, rate) = (data.positions(), data.velocities());
    let mut loops = Loops::of(model, &mut scratch).ok_or(KernelError::StateSizeMismatch)?;
    kinematics(&model.links, &model.shapes, q, rate, &mut work);
    loops.evaluate(data.time(), &model.links, (q, &work), false);
    loops.factor(&model.links, &model.shapes, &mut work, rate.len(), Choice::Anew)?;
    let kept = loops.order.get(..*loops.rank).unwrap_or_default();
    let mut redundant: St::Rows<bool> = sized(model.constraint_rows(), true);
    for &r in kept {
        if let Some(x) = redundant.get_mut(r) {
            *x = false;
        }
    }
    Ok(redundant)
}

#[cfg(test)]
#[path = "loops_tests.rs"]
mod tests;
