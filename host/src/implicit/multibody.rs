//! Implicit integration of rigid bodies with joints and flexible bodies attached to them, in one
//! sparse Newton matrix: the index-3 formulation of HHT-α / generalized-α (Negrut, Rampalli,
//! Ottarsson & Sajdak 2007; Arnold & Brüls 2007) with rotations on the Lie group.
//!
//! Unknowns of a step: the accelerations ẍ of every body (6: origin acceleration in global
//! axes, angular acceleration in body axes) and of every flexible coordinate that is not held,
//! and the multipliers of every constraint row: the joints' rows (the kernel's Φ, Φ_q) and
//! the attachment rows e_a − (x + R s) = 0, e_g − R g = 0 of flexible nodes attached to a body.
//! Positions follow from [`Scheme`] (q ⊕ Δ: x + Δ_x, R exp(Δ_θ)). Newton solves
//!
//!   r = M ẍ + Φ_qᵀμ − c_f Q + (1 − c_f) f_n = 0,   Φ(q_{n+1}) / β' = 0
//!
//! (μ = c_f λ, β' = ∂Δ/∂ẍ) with the matrix [[M + c_f(β' K + γ' D), Φ_qᵀ], [Φ_q, −δ I]]:
//! K the kernel's analytic ANCF element tangent, D Rayleigh damping, the rigid bodies' mass
//! blocks; the rigid force Jacobians are left out (a modified Newton in those terms, exact in
//! the residual). δ = 10⁻¹⁰/max diag M keeps the matrix quasi-definite, so the sparse LDLᵀ
//! with its symbolic factorization done once needs no pivoting, and a redundant joint row
//! (a dependent row of Φ_q) does not make it singular.
//!
//! Convergence, after at least one Newton correction: ‖r‖∞ ≤ tol · F, F the largest of the
//! force terms (|M ẍ|, |Q| of the flexible elastic, damping and external forces, |Q| of the
//! bodies, |Φ_qᵀμ|) over all equations; and ‖Φ‖∞ ≤ the constraint tolerance (m, rad). The
//! unmoved state of a loaded system has r = −Q, ratio 1: no tolerance below 1 accepts it.

use super::assembly::{add_damping_force, elastic_force_and_scaled_tangent, Nonzeros, Pattern};
use super::contact_tangent::{add_contact_tangent, BodyCoupling, Triple};
use super::redundant::RedundantRows;
use super::scheme::{Coefficients, Scheme};
use super::sparse::SparseLdlt;
use super::ImplicitError;
use crate::simulation::ContactModel;
use crate::storage::{FlexData, FlexModel, RigidData, RigidModel};
use ferrodyn_kernel::ancf::{ELEMENT_COORDS, NODE_COORDS};
use ferrodyn_kernel::coupled::Attachment;
use ferrodyn_kernel::flex::{Fixity, FIXED};
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use ferrodyn_kernel::rigid::{self, BodyRef, MassProperties};
use ferrodyn_kernel::{Dynamics, Energy, KernelError};

/// Newton settings of the multibody solver.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Convergence {
    /// ‖r‖∞ ≤ tolerance · F (dimensionless, in (0, 0.1]).
    pub tolerance: f64,
    /// ‖Φ‖∞ ≤ this (m for positions, rad for angles, 1 for gradients).
    pub constraint_tolerance: f64,
    /// Newton iterations allowed per step.
    pub max_iterations: u32,
    /// A step whose Newton iteration fails is retried as two halves, down this many levels.
    pub max_halvings: u32,
}

impl Default for Convergence {
    fn default() -> Self {
        Self {
            tolerance: 1e-8,
            constraint_tolerance: 1e-10,
            max_iterations: 25,
            max_halvings: 0,
        }
    }
}

impl Convergence {
    /// Checks the settings.
    pub fn validate(&self) -> Result<(), ImplicitError> {
        let bad = |name, reason: String| Err(ImplicitError::InvalidOption { name, reason });
        if !(self.tolerance > 0.0 && self.tolerance <= 0.1) {
            return bad(
                "newton_tol",
                format!("{} is outside (0, 0.1] (a ratio of forces)", self.tolerance),
            );
        }
        if !(self.constraint_tolerance > 0.0 && self.constraint_tolerance.is_finite()) {
            return bad(
                "constraint_tol",
                format!("{} must be positive", self.constraint_tolerance),
            );
        }
        if self.max_iterations == 0 {
            return bad("max_newton_iter", "must be at least 1".into());
        }
        Ok(())
    }
}

/// A flexible body attached to rigid bodies (or free), as the solver holds it.
pub struct FlexPart {
    /// The body.
    pub model: FlexModel,
    /// Its nodes attached to rigid bodies.
    pub attachments: Vec<Attachment<f64>>,
}

/// One attachment row: coordinate `coordinate` (of 12·nodes) follows body `body`; `local` is
/// the body-fixed vector it equals (in body axes) and `point` whether the body's origin is
/// added (positions) or not (gradients).
#[derive(Clone, Copy, Debug)]
struct AttachmentRow {
    coordinate: usize,
    component: usize,
    body: usize,
    local: Vec3<f64>,
    point: bool,
}

/// What one [`MultibodyHht::step`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MultibodyReport {
    /// Newton iterations (linear solves).
    pub newton_iterations: u32,
}

/// The implicit multibody integrator and its state.
pub struct MultibodyHht {
    rigid: RigidModel,
    rigid_data: RigidData,
    mass: Vec<MassProperties<f64>>,
    flex: Option<(FlexPart, FlexData)>,
    scheme: Scheme,
    convergence: Convergence,
    /// Contact forces, evaluated with the applied forces (their Jacobian is left out of the
    /// matrix: explicit in the Newton matrix, exact in the residual).
    contact: Option<ContactModel>,
    /// Unknown index of each flexible coordinate (FIXED: held).
    unknown_of: Vec<usize>,
    bodies: usize,
    /// Unknowns before the multipliers: 6 per body, then the flexible ones.
    dynamics: usize,
    joint_rows: usize,
    /// The joint rows left out of the Newton matrix (redundant; zero multipliers).
    redundant: RedundantRows,
    /// Each joint's sides and rows (constant).
    joints: Vec<JointRows>,
    attachment_rows: Vec<AttachmentRow>,
    pattern: Pattern,
    /// Where each unknown's diagonal entry is stored in `matrix`.
    diagonal: Vec<usize>,
    solver: SparseLdlt,
    /// Flexible mass in the pattern, one copy per distinct Rayleigh α (with that α).
    flex_mass: Vec<(f64, Vec<f64>)>,
    /// The whole flexible mass, for M ẍ.
    flex_mass_product: Nonzeros,
    matrix: Vec<f64>,
    /// The step size the factorization held by `solver` was made for (None: none valid).
    factored_for: Option<f64>,
    time: f64,
    /// `[rigid q | flexible e | rigid v | flexible ė]`, as the kernel's coupled model.
    state: Vec<f64>,
    /// ẍ, a and μ of the last accepted step, and f = Φ_qᵀλ − Q there (per unknown).
    accel: Vec<f64>,
    pseudo: Vec<f64>,
    multipliers: Vec<f64>,
    force: Vec<f64>,
    /// Newton iterations so far.
    pub iterations: u64,
    /// Steps so far.
    pub steps: u64,
}

/// The terms of one evaluation, per unknown row (multiplier rows: Φ, or γ).
struct Evaluation {
    /// Q (applied, elastic, damping, external), per dynamics unknown.
    applied: Vec<f64>,
    /// Φ_qᵀμ per dynamics unknown.
    reaction: Vec<f64>,
    /// M ẍ per dynamics unknown.
    inertia: Vec<f64>,
    /// Φ per constraint row, and γ (for consistent accelerations).
    phi: Vec<f64>,
    gamma: Vec<f64>,
}

impl MultibodyHht {
    /// The integrator at the state `state` (the layout of [`Self::state`]) at t = 0, the bodies
    /// assembled, with the contact forces `contact`; the accelerations and multipliers are made
    /// consistent with it.
    pub fn new(
        rigid: RigidModel,
        flex: Option<FlexPart>,
        state: &[f64],
        scheme: Scheme,
        convergence: Convergence,
        contact: Option<ContactModel>,
    ) -> Result<Self, ImplicitError> {
        convergence.validate()?;
        let bodies = rigid.bodies().len();
        let mass = rigid
            .bodies()
            .iter()
            .enumerate()
            .map(|(b, body)| {
                MassProperties::of(body).ok_or_else(|| ImplicitError::InvalidOption {
                    name: "body",
                    reason: format!("body {b}: singular inertia"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let nodes = flex.as_ref().map_or(0, |f| f.model.node_count());
        let mut unknown_of = vec![FIXED; NODE_COORDS * nodes];
        let mut next = 6 * bodies;
        if let Some(f) = &flex {
            for node in 0..nodes {
                let attached = matches!(
                    f.model.fixity(node),
                    Fixity::Attached | Fixity::AttachedFace { .. }
                );
                for c in 0..NODE_COORDS {
                    if attached || f.model.dof()[node][c] != FIXED {
                        unknown_of[NODE_COORDS * node + c] = next;
                        next += 1;
                    }
                }
            }
        }
        let dynamics = next;
        let joint_rows = rigid.constraint_rows();
        let joints = joint_row_sides(&rigid);
        let attachment_rows = flex
            .as_ref()
            .map_or(Vec::new(), |f| attachment_rows(&f.attachments));
        let n = dynamics + joint_rows + attachment_rows.len();
        if state.len() != 13 * bodies + 2 * NODE_COORDS * nodes {
            return Err(ImplicitError::InvalidOption {
                name: "state",
                reason: format!(
                    "need {} values, got {}",
                    13 * bodies + 2 * NODE_COORDS * nodes,
                    state.len()
                ),
            });
        }
        // The pattern: body blocks, element blocks, constraint rows with their bodies' and
        // coordinates' columns, and the multipliers' diagonal.
        let mut extra = Vec::new();
        for b in 0..bodies {
            for i in 0..6 {
                extra.extend((0..6).map(|j| (6 * b + i, 6 * b + j)));
            }
        }
        for (sides, rows) in &joints {
            for r in rows.clone() {
                let m = dynamics + r;
                extra.push((m, m));
                for side in sides.iter().copied().flatten() {
                    extra.extend((0..6).map(|i| (6 * side + i, m)));
                }
            }
        }
        for (k, row) in attachment_rows.iter().enumerate() {
            let m = dynamics + joint_rows + k;
            extra.push((m, m));
            extra.push((unknown_of[row.coordinate], m));
            extra.extend((0..6).map(|i| (6 * row.body + i, m)));
        }
        let element_dofs: Vec<[usize; ELEMENT_COORDS]> = flex.as_ref().map_or(Vec::new(), |f| {
            f.model
                .connectivity()
                .iter()
                .map(|nodes| {
                    let mut d = [FIXED; ELEMENT_COORDS];
                    for (k, &node) in nodes.iter().enumerate() {
                        for c in 0..NODE_COORDS {
                            d[NODE_COORDS * k + c] = unknown_of[NODE_COORDS * node + c];
                        }
                    }
                    d
                })
                .collect()
        });
        // A shape on a body may touch flexible nodes: their positions couple with the body.
        let shapes = contact
            .as_ref()
            .and_then(|c| c.flexible())
            .and_then(|c| c.shapes.as_ref());
        for (b, node) in shapes.map_or(Vec::new(), |s| s.body_node_pairs()) {
            for i in 0..3 {
                if let Some(&u) = unknown_of.get(NODE_COORDS * node + i).filter(|&&u| u != FIXED) {
                    extra.extend((0..6).map(|j| (6 * b + j, u)));
                }
            }
        }
        let pattern = Pattern::from_element_dofs(n, &element_dofs, &extra)?;
        let solver = SparseLdlt::new(&pattern)?;
        // Every unknown has its diagonal in the pattern (mass blocks, multipliers' δ).
        let diagonal = (0..n)
            .map(|i| pattern.position(i, i))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| ImplicitError::Factorization {
                reason: "an unknown without a diagonal entry".into(),
            })?;
        let flex_mass = match &flex {
            Some(f) => {
                let mut alphas: Vec<f64> = f.model.materials().iter().map(|m| m.rayleigh_mass).collect();
                alphas.sort_by(f64::total_cmp);
                alphas.dedup();
                alphas
                    .into_iter()
                    .map(|a| (a, pattern.mass_of(&f.model, |m| m.rayleigh_mass == a)))
                    .collect()
            }
            None => Vec::new(),
        };
        let flex_mass_product = match &flex {
            Some(f) => pattern.nonzeros(&pattern.mass(&f.model)),
            None => Nonzeros::default(),
        };
        let rigid_data = RigidData::new(&rigid);
        let flex = flex.map(|f| {
            let data = f.model.new_data();
            (f, data)
        });
        let mut s = Self {
            rigid,
            rigid_data,
            mass,
            flex,
            scheme,
            convergence,
            contact,
            unknown_of,
            bodies,
            dynamics,
            joint_rows,
            redundant: RedundantRows::none(joint_rows),
            joints,
            attachment_rows,
            matrix: vec![0.0; pattern.nnz()],
            factored_for: None,
            diagonal,
            pattern,
            solver,
            flex_mass,
            flex_mass_product,
            time: 0.0,
            state: state.to_vec(),
            accel: vec![0.0; dynamics],
            pseudo: vec![0.0; dynamics],
            multipliers: vec![0.0; n - dynamics],
            force: vec![0.0; dynamics],
            iterations: 0,
            steps: 0,
        };
        // The contacts see the initial state as accepted.
        s.accept_contact(0.0)?;
        s.consistent_accelerations()?;
        // Rigid bodies alone: the kernel's rank-revealing factorization of the initial state in
        // their data, as the explicit path leaves it after assembly, so `run`'s redundant-row
        // note and `check` name the rows this model's joints make redundant.
        if s.flex.is_none() && !s.rigid.bodies().is_empty() {
            rigid::forward(&s.rigid, &mut s.rigid_data).map_err(|e| ImplicitError::Factorization {
                reason: format!("the rigid bodies' dynamics at t = 0: {e}"),
            })?;
        }
        Ok(s)
    }

    /// The contacts, if any.
    pub fn contacts(&self) -> Option<&ContactModel> {
        self.contact.as_ref()
    }

    /// Exchanges the contacts (with their memory) with `other`'s.
    pub fn swap_contact(&mut self, other: &mut Self) {
        std::mem::swap(&mut self.contact, &mut other.contact);
    }

    /// Current time (s).
    pub fn time(&self) -> f64 {
        self.time
    }
    /// The state `[rigid q (7 a body) | flexible e (12 a node) | rigid v (6) | flexible ė (12)]`.
    pub fn state(&self) -> &[f64] {
        &self.state
    }
    /// The rigid model and its data at the current state.
    pub fn rigid(&self) -> (&RigidModel, &RigidData) {
        (&self.rigid, &self.rigid_data)
    }
    /// The rigid model and its data to evaluate in place: the data is overwritten from the
    /// state at the next evaluation.
    pub fn rigid_mut(&mut self) -> (&RigidModel, &mut RigidData) {
        (&self.rigid, &mut self.rigid_data)
    }
    /// The flexible body and its data at the current state.
    pub fn flex(&self) -> Option<(&FlexModel, &FlexData)> {
        self.flex.as_ref().map(|(f, d)| (&f.model, d))
    }
    /// Stored entries of the matrix and of its factor.
    pub fn sparsity(&self) -> (usize, usize) {
        (self.pattern.nnz(), self.solver.factor_entries())
    }
    /// Numeric factorizations so far.
    pub fn factorizations(&self) -> u64 {
        self.solver.factorizations()
    }
    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Energy at the current state: the rigid bodies' and the flexible body's.
    pub fn energy(&self) -> Result<Energy<f64>, KernelError> {
        let r = rigid::energy(&self.rigid, &self.rigid_data);
        let f = match &self.flex {
            Some((f, d)) => f.model.energy(d)?,
            None => Energy::default(),
        };
        Ok(Energy {
            kinetic: r.kinetic + f.kinetic,
            potential: r.potential + f.potential,
            strain: f.strain,
        })
    }

    /// Sets the state (same layout) at the current time and makes the accelerations consistent.
    pub fn set_state(&mut self, state: &[f64]) -> Result<(), ImplicitError> {
        if state.len() != self.state.len() || state.iter().any(|x| !x.is_finite()) {
            return Err(ImplicitError::InvalidOption {
                name: "state",
                reason: format!("need {} finite values", self.state.len()),
            });
        }
        self.state.copy_from_slice(state);
        self.consistent_accelerations()
    }

    /// Sets time and state (as [`Self::set_state`]).
    pub fn set_time_and_state(&mut self, time: f64, state: &[f64]) -> Result<(), ImplicitError> {
        self.time = time;
        self.set_state(state)
    }

    /// Offsets of e and ė in the state.
    fn flex_offsets(&self) -> (usize, usize) {
        let (nb, nc) = (self.bodies, self.unknown_of.len());
        (7 * nb, 7 * nb + nc + 6 * nb)
    }

    /// Solves [[M, Φ_qᵀ], [Φ_q, −δ]] [ẍ; λ] = [Q; γ] at the current state.
    fn consistent_accelerations(&mut self) -> Result<(), ImplicitError> {
        let state = self.state.clone();
        self.mirror(self.time, &state);
        self.choose_redundant_rows()?;
        let eval = self.evaluate(self.time, &state, None, true)?;
        self.factored_for = None;
        let n = self.dynamics;
        let mut rhs = eval.applied.clone();
        rhs.extend(eval.gamma.iter().enumerate().map(|(r, g)| self.kept(r, *g)));
        self.regularize();
        self.solver.factorize(&self.matrix)?;
        self.solver.solve(&mut rhs)?;
        let cf = self.scheme.coefficients(1.0).force_weight;
        self.accel.copy_from_slice(&rhs[..n]);
        self.pseudo.copy_from_slice(&rhs[..n]);
        for (m, l) in self.multipliers.iter_mut().zip(&rhs[n..]) {
            *m = cf * l;
        }
        // f = Φ_qᵀλ − Q = −M ẍ.
        let inertia = self.inertia(&self.accel);
        for (f, m) in self.force.iter_mut().zip(&inertia) {
            *f = -m;
        }
        Ok(())
    }

    /// Advances by `h`; a step whose Newton iteration fails is retried as two halves (down
    /// `max_halvings` levels). On error the state is left at the start of the step (the
    /// contacts' memory of the halves taken is not undone).
    pub fn step(&mut self, h: f64) -> Result<MultibodyReport, ImplicitError> {
        let start = self.snapshot();
        let result = self.step_halving(h, self.convergence.max_halvings);
        if result.is_err() {
            self.restore(start);
        }
        result
    }

    fn step_halving(&mut self, h: f64, levels: u32) -> Result<MultibodyReport, ImplicitError> {
        match self.attempt(h) {
            Err(ImplicitError::NotConverged { .. }) if levels > 0 => {
                let first = self.step_halving(0.5 * h, levels - 1)?;
                let second = self.step_halving(0.5 * h, levels - 1)?;
                Ok(MultibodyReport {
                    newton_iterations: first.newton_iterations + second.newton_iterations,
                })
            }
            result => result,
        }
    }

    /// What a step changes: time, state, accelerations, multipliers and forces.
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            time: self.time,
            vectors: [
                self.state.clone(),
                self.accel.clone(),
                self.pseudo.clone(),
                self.multipliers.clone(),
                self.force.clone(),
            ],
        }
    }

    fn restore(&mut self, s: Snapshot) {
        let [state, accel, pseudo, multipliers, force] = s.vectors;
        // In place: the state's buffer stays where views of it (the Python package) look.
        self.state.copy_from_slice(&state);
        (self.accel, self.pseudo, self.multipliers, self.force) = (accel, pseudo, multipliers, force);
        self.time = s.time;
        let state = std::mem::take(&mut self.state);
        self.mirror(self.time, &state);
        self.state = state;
    }

    /// One step of size `h`: Newton from the last accelerations.
    fn attempt(&mut self, h: f64) -> Result<MultibodyReport, ImplicitError> {
        if !(h > 0.0 && h.is_finite()) {
            return Err(ImplicitError::InvalidOption {
                name: "step",
                reason: format!("{h} is not a positive step"),
            });
        }
        let c = self.scheme.coefficients(h);
        let t = self.time + h;
        let n = self.dynamics;
        // The rows left out are chosen where the step starts (the data holds that state).
        let chosen_anew = self.choose_redundant_rows()?;
        let mut x = self.accel.clone();
        let mut mu: Vec<f64> = self
            .multipliers
            .iter()
            .enumerate()
            .map(|(r, m)| self.kept(r, *m))
            .collect();
        let (mut residuals, mut increments) = (Vec::new(), Vec::new());
        // Modified Newton: the factorized matrix is kept (across iterations and steps of the
        // same size) while the residual falls at least fourfold an iteration.
        let mut refresh = self.factored_for != Some(h) || chosen_anew;
        for iteration in 0..=self.convergence.max_iterations {
            let trial = self.trial_state(&c, h, &x);
            let mut unknowns = x.clone();
            unknowns.extend_from_slice(&mu);
            let eval = self.evaluate(t, &trial, Some((c, &unknowns)), refresh)?;
            // r = M ẍ + Φ_qᵀμ − c_f Q + (1 − c_f) f_n;  Φ / β'.
            let cf = c.force_weight;
            let mut r: Vec<f64> = (0..n)
                .map(|i| {
                    eval.inertia[i] + eval.reaction[i] - cf * eval.applied[i] + (1.0 - cf) * self.force[i]
                })
                .collect();
            let scale = (0..n)
                .map(|i| {
                    eval.inertia[i]
                        .abs()
                        .max(eval.reaction[i].abs())
                        .max(eval.applied[i].abs())
                        .max(((1.0 - cf) * self.force[i]).abs())
                })
                .fold(0.0, f64::max);
            let floor = self.resolution_force(&c, &trial);
            let force_residual = r.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            let phi = eval.phi.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            let ratio = force_residual / scale.max(f64::MIN_POSITIVE);
            let contracting = residuals.last().is_some_and(|&last: &f64| ratio <= 0.25 * last);
            residuals.push(ratio);
            if !force_residual.is_finite() || !phi.is_finite() {
                break;
            }
            if iteration > 0
                && force_residual <= self.convergence.tolerance * scale + floor
                && phi <= self.convergence.constraint_tolerance
            {
                self.accept(t, trial, &c, x, mu, &eval);
                self.accept_contact(t)?;
                self.iterations += u64::from(iteration);
                self.steps += 1;
                return Ok(MultibodyReport {
                    newton_iterations: iteration,
                });
            }
            if iteration == self.convergence.max_iterations {
                break;
            }
            if !refresh && iteration > 0 && !contracting {
                // Stalled on an old matrix: evaluate again with a fresh one.
                refresh = true;
                self.evaluate(t, &trial, Some((c, &unknowns)), true)?;
            }
            r.extend(
                eval.phi
                    .iter()
                    .enumerate()
                    .map(|(k, p)| self.kept(k, p / c.position)),
            );
            r.iter_mut().for_each(|v| *v = -*v);
            if refresh {
                self.regularize();
                self.solver.factorize(&self.matrix)?;
                self.factored_for = Some(h);
                refresh = false;
            }
            self.solver.solve(&mut r)?;
            increments.push(r[..n].iter().fold(0.0_f64, |m, v| m.max(v.abs())));
            for (xi, d) in x.iter_mut().zip(&r[..n]) {
                *xi += d;
            }
            for (m, d) in mu.iter_mut().zip(&r[n..]) {
                *m += d;
            }
        }
        Err(ImplicitError::NotConverged {
            time: self.time,
            step: h,
            iterations: self.convergence.max_iterations,
            tolerance: self.convergence.tolerance,
            residuals,
            increments,
        })
    }

    /// The force residual that the resolution of the coordinates of `y` leaves: a change of one
    /// unit in the last place of a coordinate q_i moves the residual by S_ii ε |q_i| / β' (S the
    /// Newton matrix, β' = ∂q/∂ẍ), so no iteration gets below it. The convergence test allows
    /// it on top of tolerance · F, which otherwise asks the impossible of a system whose loads
    /// are at the level of round-off (a beam at rest at the start of a smooth spin-up); a
    /// loaded system at rest has a residual of its loads, far above it. Rotations count with
    /// |q| = 1 rad.
    fn resolution_force(&self, c: &Coefficients, y: &[f64]) -> f64 {
        let diag = |i: usize| self.matrix[self.diagonal[i]].abs();
        let mut largest = 0.0_f64;
        for b in 0..self.bodies {
            for k in 0..6 {
                let q = if k < 3 { y[7 * b + k].abs() } else { 1.0 };
                largest = largest.max(diag(6 * b + k) * q);
            }
        }
        let (e0, _) = self.flex_offsets();
        for (k, &i) in self.unknown_of.iter().enumerate() {
            if i != FIXED {
                largest = largest.max(diag(i) * y[e0 + k].abs());
            }
        }
        // A few units in the last place: the residual sums several such terms.
        8.0 * f64::EPSILON * largest / c.position
    }

    /// The state reached with accelerations `x` (the Newmark formulas; bodies on the group).
    fn trial_state(&self, c: &Coefficients, h: f64, x: &[f64]) -> Vec<f64> {
        let mut y = self.state.clone();
        let nb = self.bodies;
        let v0 = 7 * nb + self.unknown_of.len();
        for b in 0..nb {
            let mut delta = [0.0; 6];
            for (k, dk) in delta.iter_mut().enumerate() {
                let i = 6 * b + k;
                let a = c.pseudo(x[i], self.accel[i], self.pseudo[i]);
                let (d, u) = c.advance(h, self.state[v0 + i], self.pseudo[i], a);
                *dk = d;
                y[v0 + i] = u;
            }
            for k in 0..3 {
                y[7 * b + k] += delta[k];
            }
            let q = &y[7 * b + 3..7 * b + 7];
            let rotation = Quat::from_rotation_vector(Vec3::new(delta[3], delta[4], delta[5]));
            let q = Quat::new(q[0], q[1], q[2], q[3]).mul(&rotation);
            let q = q.normalized().unwrap_or(q);
            y[7 * b + 3..7 * b + 7].copy_from_slice(&q.to_array());
        }
        let (e0, v0) = self.flex_offsets();
        for (k, &i) in self.unknown_of.iter().enumerate() {
            if i != FIXED {
                let a = c.pseudo(x[i], self.accel[i], self.pseudo[i]);
                let (d, u) = c.advance(h, self.state[v0 + k], self.pseudo[i], a);
                y[e0 + k] += d;
                y[v0 + k] = u;
            }
        }
        y
    }

    /// Commits the converged step.
    fn accept(
        &mut self,
        t: f64,
        y: Vec<f64>,
        c: &Coefficients,
        x: Vec<f64>,
        mu: Vec<f64>,
        eval: &Evaluation,
    ) {
        for (i, xi) in x.iter().enumerate() {
            self.pseudo[i] = c.pseudo(*xi, self.accel[i], self.pseudo[i]);
        }
        let cf = c.force_weight;
        for (i, f) in self.force.iter_mut().enumerate() {
            *f = eval.reaction[i] / cf - eval.applied[i];
        }
        self.accel = x;
        self.multipliers = mu;
        self.time = t;
        // In place, as in `restore`.
        self.state.copy_from_slice(&y);
        let state = std::mem::take(&mut self.state);
        self.mirror(t, &state);
        self.state = state;
    }

    /// Hands the contacts the state of the data at time `t` as accepted (impact speeds,
    /// sticking friction).
    fn accept_contact(&mut self, t: f64) -> Result<(), ImplicitError> {
        let Some(contact) = &mut self.contact else {
            return Ok(());
        };
        let (e, ed) = match &self.flex {
            Some((_, d)) => d.state().split_at(d.state().len() / 2),
            None => (&[][..], &[][..]),
        };
        rigid::accept_external(&self.rigid, &mut self.rigid_data, contact, e, ed).map_err(|e| {
            ImplicitError::Factorization {
                reason: format!("contact at t = {t} s: {e}"),
            }
        })
    }

    /// Puts time and state `y` into the kernel data the evaluations and the views read.
    fn mirror(&mut self, t: f64, y: &[f64]) {
        let nb = self.bodies;
        let (e0, v0) = self.flex_offsets();
        let vb = e0 + self.unknown_of.len();
        for b in 0..nb {
            let p = &y[7 * b..7 * b + 7];
            let v = &y[vb + 6 * b..vb + 6 * b + 6];
            self.rigid_data
                .set_pose(b, Vec3::new(p[0], p[1], p[2]), Quat::new(p[3], p[4], p[5], p[6]));
            self.rigid_data
                .set_velocity(b, Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]));
        }
        self.rigid_data.set_time(t);
        let nc = self.unknown_of.len();
        if let Some((f, d)) = &mut self.flex {
            let mut flat = Vec::with_capacity(2 * nc);
            flat.extend_from_slice(&y[e0..e0 + nc]);
            flat.extend_from_slice(&y[v0..v0 + nc]);
            // The same length and finite by construction.
            let _ = f.model.set_state(d, &flat);
        }
    }

    /// M x per dynamics unknown, for x over the dynamics unknowns (or longer: the rest unused).
    fn inertia(&self, x: &[f64]) -> Vec<f64> {
        let n = self.dynamics;
        let mut out = vec![0.0; n];
        // The flexible mass couples flexible unknowns only (all below `dynamics`).
        self.flex_mass_product.times_add(&x[..n], &mut out);
        for b in 0..self.bodies {
            let rot = self.rigid_data.orientation(b).to_matrix();
            let m = self.mass[b].matrix(&rot);
            for i in 0..6 {
                out[6 * b + i] += (0..6).map(|j| m[i][j] * x[6 * b + j]).sum::<f64>();
            }
        }
        out
    }

    /// The node–body and body–body blocks of a contact between a flexible node and a shape on a
    /// body: its tangent W acts on x_n − (x_b + r), whose body part is G q_b with
    /// G = [I, −[r]× R] (origin translation global, rotation in body axes), so the blocks are
    /// −W G and Gᵀ W G (upper triangle; body unknowns come before the nodes').
    fn add_body_coupling(&mut self, k: &BodyCoupling) {
        let rotation = self.rigid_data.orientation(k.body).to_matrix();
        let lever = Mat3::skew(Vec3::from_array(k.lever)).mul_mat(&rotation);
        let g: [[f64; 6]; 3] = std::array::from_fn(|i| {
            std::array::from_fn(|j| match j {
                0..=2 => f64::from(u8::from(i == j)),
                _ => -lever.m[i][j - 3],
            })
        });
        let wg: [[f64; 6]; 3] =
            std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|l| k.w[i][l] * g[l][j]).sum()));
        let first = 6 * k.body;
        for (i, row) in wg.iter().enumerate() {
            let Some(&u) = self
                .unknown_of
                .get(NODE_COORDS * k.node + i)
                .filter(|&&u| u != FIXED)
            else {
                continue;
            };
            for (j, value) in row.iter().enumerate() {
                if let Some(p) = self.pattern.position(first + j, u) {
                    self.matrix[p] -= value;
                }
            }
        }
        for j in 0..6 {
            for l in j..6 {
                let value: f64 = g.iter().zip(&wg).map(|(gi, wgi)| gi[j] * wgi[l]).sum();
                if let Some(p) = self.pattern.position(first + j, first + l) {
                    self.matrix[p] += value;
                }
            }
        }
    }

    /// Adds −δ on the multipliers' diagonal (δ = 10⁻¹⁰ / max diag of the dynamics block).
    fn regularize(&mut self) {
        let (dynamics, multipliers) = self.diagonal.split_at(self.dynamics);
        let largest = dynamics.iter().map(|&p| self.matrix[p].abs()).fold(0.0, f64::max);
        let delta = 1e-10 / largest.max(f64::MIN_POSITIVE);
        for (r, &p) in multipliers.iter().enumerate() {
            // A row left out: −1 alone in its row and column, its multiplier held at zero.
            self.matrix[p] = match self.redundant.contains(r) {
                true => -1.0,
                false => -delta,
            };
        }
    }

    /// Chooses the joint rows left out at the state the rigid data holds; whether they changed.
    fn choose_redundant_rows(&mut self) -> Result<bool, ImplicitError> {
        let rigid_only = self.flex.is_none();
        self.redundant
            .choose(&self.rigid, &mut self.rigid_data, rigid_only)
            .map_err(|e| ImplicitError::Factorization {
                reason: format!("the rigid bodies' redundant rows at t = {} s: {e}", self.time),
            })
    }

    /// `value` for a kept constraint row `r`, zero for a row left out.
    fn kept(&self, r: usize, value: f64) -> f64 {
        match self.redundant.contains(r) {
            true => 0.0,
            false => value,
        }
    }

    /// Evaluates the terms at (t, y) and fills the matrix: with `step = Some((c, unknowns))`
    /// the Newton matrix for accelerations and multipliers `unknowns`; with `None` the matrix
    /// [[M, Φ_qᵀ], [Φ_q, ·]] of the consistent accelerations (unknowns zero).
    fn evaluate(
        &mut self,
        t: f64,
        y: &[f64],
        step: Option<(Coefficients, &[f64])>,
        fill: bool,
    ) -> Result<Evaluation, ImplicitError> {
        self.mirror(t, y);
        let n = self.dynamics;
        let total = self.pattern.n;
        let zeros = vec![0.0; total];
        let (c, unknowns) = match step {
            Some((c, u)) => (Some(c), u),
            None => (None, &zeros[..]),
        };
        let kernel = |e: KernelError| ImplicitError::Factorization {
            reason: format!("rigid model at t = {t} s: {e}"),
        };
        // Without `fill` the matrix is left as it is (its factorization is reused).
        if fill {
            self.matrix.iter_mut().for_each(|v| *v = 0.0);
        }
        let mut applied = vec![0.0; n];
        // External nodal loads, then the bodies' applied forces with the contacts' forces on
        // bodies and nodes.
        let nc = self.unknown_of.len();
        let (e0, v0) = self.flex_offsets();
        let (e, v) = (&y[e0..e0 + nc], &y[v0..v0 + nc]);
        let mut ext = vec![0.0; nc];
        if let Some((f, _)) = &self.flex {
            f.model.external_force(t, &mut ext);
        }
        let mut wrenches = vec![[0.0; 6]; self.bodies];
        match &mut self.contact {
            Some(contact) => rigid::applied_forces_with(
                &self.rigid,
                &mut self.rigid_data,
                contact,
                (e, v, &mut ext),
                &mut wrenches,
            ),
            None => rigid::applied_forces(&self.rigid, &mut self.rigid_data, &mut wrenches),
        }
        .map_err(kernel)?;
        // Rigid bodies: Q, mass blocks.
        for b in 0..self.bodies {
            applied[6 * b..6 * b + 6].copy_from_slice(&wrenches[b]);
            let rot = self.rigid_data.orientation(b).to_matrix();
            let m = self.mass[b].matrix(&rot);
            for (i, row) in m.iter().enumerate().filter(|_| fill) {
                for (j, value) in row.iter().enumerate().skip(i) {
                    if let Some(p) = self.pattern.position(6 * b + i, 6 * b + j) {
                        self.matrix[p] += value;
                    }
                }
            }
        }
        // Flexible body: Q = Q_ext + Q_e − D ė, and (1 + c_f γ' α_R) M + c_f (β' + γ' β_R) K.
        if let Some((f, _)) = &self.flex {
            let mut internal = vec![0.0; nc];
            let tangent = c.filter(|_| fill).map(|c| {
                let cf = c.force_weight;
                move |m: &ferrodyn_kernel::ancf::Material<f64>| {
                    cf * (c.position + c.velocity * m.rayleigh_stiffness)
                }
            });
            match &tangent {
                Some(scale) => elastic_force_and_scaled_tangent(
                    &f.model,
                    &self.pattern,
                    t,
                    e,
                    &mut internal,
                    Some((
                        self.matrix.as_mut_slice(),
                        scale as super::assembly::ElementScale<'_>,
                    )),
                )?,
                None => elastic_force_and_scaled_tangent(&f.model, &self.pattern, t, e, &mut internal, None)?,
            }
            add_damping_force(&f.model, t, e, v, &mut internal)?;
            for (k, &i) in self.unknown_of.iter().enumerate() {
                if i != FIXED {
                    applied[i] = ext[k] + internal[k];
                }
            }
            for (alpha, mass) in self.flex_mass.iter().filter(|_| fill) {
                let scale = c.map_or(1.0, |c| 1.0 + c.force_weight * c.velocity * alpha);
                for (s, m) in self.matrix.iter_mut().zip(mass) {
                    *s += scale * m;
                }
            }
        }
        // The flexible contacts' stiffness and damping on the nodes' triples.
        if let (Some(c), Some(contacts), true) = (c, self.contact.as_ref().and_then(|m| m.flexible()), fill) {
            let (unknown_of, pattern, matrix) = (&self.unknown_of, &self.pattern, &mut self.matrix);
            let cf = c.force_weight;
            let mut add = |a: Triple, b: Triple, value: &dyn Fn(usize, usize) -> f64| {
                let triple = |(node, k): Triple| {
                    let first = NODE_COORDS * node + 3 * k;
                    [0, 1, 2].map(|i| unknown_of.get(first + i).copied().unwrap_or(FIXED))
                };
                for (i, &r) in triple(a).iter().enumerate() {
                    for (j, &col) in triple(b).iter().enumerate() {
                        // The upper triangle; held coordinates are no unknowns.
                        if r <= col && col != FIXED {
                            if let Some(p) = pattern.position(r, col) {
                                matrix[p] += value(i, j);
                            }
                        }
                    }
                }
            };
            let mut couplings = Vec::new();
            add_contact_tangent(contacts, cf * c.position, cf * c.velocity, &mut add, &mut |k| {
                couplings.push(k)
            });
            for k in couplings {
                self.add_body_coupling(&k);
            }
        }
        // Constraint rows: the joints' from the kernel, then the attachments'.
        let rows = self.joint_rows + self.attachment_rows.len();
        let (mut phi, mut gamma) = (vec![0.0; rows], vec![0.0; rows]);
        let mut reaction = vec![0.0; n];
        rigid::evaluate_constraints(&self.rigid, &mut self.rigid_data).map_err(kernel)?;
        let kernel_rows = self.rigid_data.constraint_rows();
        for (sides, range) in &self.joints {
            for r in range.clone() {
                let row = &kernel_rows[r];
                phi[r] = row.phi;
                gamma[r] = row.gamma;
                if self.redundant.contains(r) {
                    continue;
                }
                let m = n + r;
                for (k, side) in sides.iter().copied().enumerate() {
                    if let Some(b) = side {
                        for i in 0..6 {
                            let g = row.jac[k][i];
                            if let Some(p) = self.pattern.position(6 * b + i, m).filter(|_| fill) {
                                self.matrix[p] += g;
                            }
                            reaction[6 * b + i] += g * unknowns[m];
                        }
                    }
                }
            }
        }
        let (e0, _) = self.flex_offsets();
        for (k, row) in self.attachment_rows.iter().enumerate() {
            let r = self.joint_rows + k;
            let m = n + r;
            let b = row.body;
            let (rot, w) = (
                self.rigid_data.orientation(b).to_matrix(),
                self.rigid_data.angular_velocity(b),
            );
            let target = rot.mul_vec(row.local)
                + if row.point {
                    self.rigid_data.position(b)
                } else {
                    Vec3::ZERO
                };
            let comp = |v: Vec3<f64>| v.to_array()[row.component];
            phi[r] = y[e0 + row.coordinate] - comp(target);
            gamma[r] = comp(rot.mul_vec(w.cross(w.cross(row.local))));
            // ∂Φ/∂e = 1, ∂Φ/∂x = −e_i (positions), ∂Φ/∂θ = (R [local]×)_i.
            let skew = rot.mul_mat(&Mat3::skew(row.local));
            let mut jac = [0.0; 6];
            if row.point {
                jac[row.component] = -1.0;
            }
            jac[3..].copy_from_slice(&skew.m[row.component]);
            let u = self.unknown_of[row.coordinate];
            if let Some(p) = self.pattern.position(u, m).filter(|_| fill) {
                self.matrix[p] += 1.0;
            }
            reaction[u] += unknowns[m];
            for (i, g) in jac.iter().enumerate() {
                if let Some(p) = self.pattern.position(6 * b + i, m).filter(|_| fill) {
                    self.matrix[p] += g;
                }
                reaction[6 * b + i] += g * unknowns[m];
            }
        }
        let inertia = self.inertia(unknowns);
        Ok(Evaluation {
            applied,
            reaction,
            inertia,
            phi,
            gamma,
        })
    }
}

/// The state of the integrator at the start of a step, to return to when it fails.
struct Snapshot {
    time: f64,
    vectors: [Vec<f64>; 5],
}

/// A joint's two sides (None: ground) and its constraint rows.
type JointRows = ([Option<usize>; 2], std::ops::Range<usize>);

/// Each joint's rows with the bodies of its two sides.
fn joint_row_sides(rigid: &RigidModel) -> Vec<JointRows> {
    let body = |b: BodyRef| match b {
        BodyRef::Body(i) => Some(i),
        BodyRef::Ground => None,
    };
    let mut out = Vec::new();
    let mut first = 0;
    for joint in rigid.joints() {
        let rows = joint.kind.rows();
        out.push(([body(joint.body_i), body(joint.body_j)], first..first + rows));
        first += rows;
    }
    out
}

/// The attachment rows of `attachments`: one per coordinate that follows the body.
fn attachment_rows(attachments: &[Attachment<f64>]) -> Vec<AttachmentRow> {
    let mut rows = Vec::new();
    for a in attachments {
        let axes = a.local_axes();
        for c in 0..NODE_COORDS {
            if a.mask() & (1 << c) == 0 {
                continue;
            }
            let (local, point) = match c / 3 {
                0 => (a.local_position(), true),
                k => (axes.column(k - 1), false),
            };
            rows.push(AttachmentRow {
                coordinate: NODE_COORDS * a.node + c,
                component: c % 3,
                body: a.body,
                local,
                point,
            });
        }
    }
    rows
}
