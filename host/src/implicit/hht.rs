//! HHT-α (Hilber–Hughes–Taylor 1977) and Newmark-β for a flexible body, Newton–Raphson on the
//! analytic tangent, sparse LDLᵀ with the symbolic factorization reused.
//!
//! With Q(t, q, v) = Q_e(q) + Q_ext(t) − D v the total generalized force (D = α_R M + β_R K),
//! a step from t_n to t_{n+1} = t_n + h solves for q_{n+1}
//!
//! r = M a_{n+1} − (1 + α) Q(t_{n+1}, q_{n+1}, v_{n+1}) + α Q(t_n, q_n, v_n) = 0,
//! q_{n+1} = q_n + h v_n + h² ((½ − β) a_n + β a_{n+1}),
//! v_{n+1} = v_n + h ((1 − γ) a_n + γ a_{n+1}),
//!
//! with the Newton matrix S = ∂r/∂q_{n+1} = M/(βh²) + (1 + α)(K + γ/(βh) D), K = −∂Q_e/∂q
//! from the kernel element routine. Every element has its own material, so D = Σ_e (α_R M_e +
//! β_R K_e) with the element's α_R and β_R: K_e enters S scaled by (1 + α)(1 + γβ_R/(βh)), and
//! M by 1/(βh²) + (1 + α)γα_R/(βh) per group of elements of one α_R. Contact ([`FlexContacts`]: node-to-plane with the ground,
//! node-to-surface between the body's parts, Hertz–Flores–Coulomb) adds its forces to Q and
//! (1 + α)(k_n + γ/(βh) c_n) D Dᵀ per contact to S, with k_n = ∂F_n/∂δ, c_n = ∂F_n/∂δ̇ and D
//! the gradient of the penetration (n for the ground), plus the friction's damping across the
//! slip. Node–face pairs of different parts that may meet are added to the matrix pattern (and
//! the symbolic factorization redone) when they first come near. HHT: α ∈ [−1/3, 0], β = (1 − α)²/4, γ = ½ − α
//! (unconditionally stable, second order, numerical damping of high frequencies growing as α
//! goes to −1/3); α = 0 is the trapezoidal rule (Newmark β = ¼, γ = ½), which conserves the
//! energy of linear systems.

use super::assembly::{add_damping_force, elastic_force_and_scaled_tangent, ElementScale, Pattern};
use super::contact_tangent::add_contact_tangent;
use super::sparse::SparseLdlt;
use super::ImplicitError;
use crate::contact::flex_pair::{FlexContacts, FlexPairContact};
use crate::contact::flexible::FlexGroundContact;
use crate::spec::HhtOptions;
use crate::storage::FlexModel;
use ferrodyn_kernel::ancf::{Material, ELEMENT_COORDS};
use ferrodyn_kernel::flex::{gather, Fixity};
use ferrodyn_kernel::{Energy, ExternalForces, ExternalLoads};

/// What one call of [`HhtFlex::step`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Newton iterations (linear solves), over all sub-steps and attempts.
    pub newton_iterations: u32,
    /// Numeric factorizations.
    pub factorizations: u32,
    /// Sub-steps taken (1 without halving).
    pub substeps: u32,
    /// Deepest halving level used (0 without halving).
    pub halvings: u32,
}

/// Outcome of one Newton attempt.
enum Attempt {
    Converged,
    Failed {
        residuals: Vec<f64>,
        increments: Vec<f64>,
        /// An element failure (inverted element) that ended the attempt.
        cause: Option<ImplicitError>,
    },
}

/// HHT-α / Newmark integrator of one flexible body.
pub struct HhtFlex {
    body: FlexModel,
    options: HhtOptions,
    pattern: Pattern,
    mass: Vec<f64>,
    /// The mass of the elements of each Rayleigh α_R, when the body has more than one α_R
    /// (empty: every element has that of the first).
    mass_by_alpha: Vec<(f64, Vec<f64>)>,
    solver: SparseLdlt,
    /// The Newton matrix values (pattern order).
    matrix: Vec<f64>,
    /// Step size and α of the factorization held by `solver` (modified Newton).
    factor_for: Option<f64>,
    time: f64,
    steps: u64,
    /// Body-coordinate state `[q | v]` (12 coordinates per node, then their rates).
    state: Vec<f64>,
    /// Free-coordinate acceleration and total force at the current state.
    a: Vec<f64>,
    force: Vec<f64>,
    // Workspace.
    full: Vec<f64>,
    qn: Vec<f64>,
    vn: Vec<f64>,
    residual: Vec<f64>,
    work: Vec<f64>,
    /// Node-to-plane contact with the ground and node-to-surface contact between the body's
    /// parts, committed after every accepted (sub)step.
    contacts: FlexContacts,
    /// Node pairs of different parts coupled in the pattern for contact (sorted).
    couplings: Vec<(usize, usize)>,
}

impl HhtFlex {
    /// Prepares the integrator at rest in the reference configuration at t = 0: pattern,
    /// mass, symbolic factorization, and the initial acceleration from M a₀ = Q(0, q₀, 0).
    /// The body's nodes may be held but not attached to rigid bodies.
    pub fn new(body: FlexModel, options: HhtOptions) -> Result<Self, ImplicitError> {
        Self::with_start(body, options, None, FlexContacts::default())
    }

    /// [`Self::new`] with the reference configuration moving with `rates` (body coordinates;
    /// `None`: at rest) and in `contacts`, committed at that state: the initial acceleration
    /// is made consistent with both, once.
    pub fn with_start(
        body: FlexModel,
        options: HhtOptions,
        rates: Option<&[f64]>,
        contacts: FlexContacts,
    ) -> Result<Self, ImplicitError> {
        options.validate()?;
        let attached = (0..body.node_count())
            .find(|&n| matches!(body.fixity(n), Fixity::Attached | Fixity::AttachedFace { .. }));
        if let Some(node) = attached {
            return Err(ImplicitError::InvalidOption {
                name: "body",
                reason: format!(
                    "node {node} is attached to a rigid body: HHT integrates flexible bodies alone"
                ),
            });
        }
        if body.dof_count() == 0 {
            return Err(ImplicitError::InvalidOption {
                name: "body",
                reason: "the flexible body has no free coordinate".into(),
            });
        }
        let pattern = Pattern::new(&body)?;
        let mass = pattern.mass(&body);
        let mass_by_alpha = mass_by_alpha(&pattern, &body);
        let solver = SparseLdlt::new(&pattern)?;
        let (nc, nf) = (body.coordinate_count(), body.dof_count());
        let mut state = vec![0.0; 2 * nc];
        body.reference_coordinates(&mut state[..nc]);
        let mut s = Self {
            options,
            matrix: vec![0.0; pattern.nnz()],
            pattern,
            mass,
            mass_by_alpha,
            solver,
            factor_for: None,
            time: 0.0,
            steps: 0,
            state,
            a: vec![0.0; nf],
            force: vec![0.0; nf],
            full: vec![0.0; nc],
            qn: vec![0.0; nc],
            vn: vec![0.0; nc],
            residual: vec![0.0; nf],
            work: vec![0.0; nf],
            contacts,
            couplings: Vec::new(),
            body,
        };
        s.put_state(0.0, None, rates)?;
        s.commit_contacts()?;
        s.consistent_acceleration()?;
        Ok(s)
    }

    /// Sets time, coordinates and rates (body coordinates; `None` keeps the current ones) and
    /// recomputes the consistent acceleration M a = Q. Invalidates a reused tangent.
    pub fn set_state(
        &mut self,
        time: f64,
        q: Option<&[f64]>,
        v: Option<&[f64]>,
    ) -> Result<(), ImplicitError> {
        self.put_state(time, q, v)?;
        self.consistent_acceleration()
    }

    /// Sets time, coordinates and rates (`None` keeps the current ones), checked.
    fn put_state(&mut self, time: f64, q: Option<&[f64]>, v: Option<&[f64]>) -> Result<(), ImplicitError> {
        let nc = self.body.coordinate_count();
        for (name, x) in [("q", q), ("v", v)] {
            if let Some(x) = x {
                if x.len() != nc || x.iter().any(|c| !c.is_finite()) {
                    return Err(ImplicitError::InvalidOption {
                        name: if name == "q" { "coordinates" } else { "rates" },
                        reason: format!("need {nc} finite values, got {}", x.len()),
                    });
                }
            }
        }
        let (q0, v0) = self.state.split_at_mut(nc);
        if let Some(q) = q {
            q0.copy_from_slice(q);
        }
        if let Some(v) = v {
            v0.copy_from_slice(v);
        }
        self.time = time;
        Ok(())
    }

    /// Solves M a = Q at the current state for the acceleration; invalidates a reused tangent.
    fn consistent_acceleration(&mut self) -> Result<(), ImplicitError> {
        let nc = self.body.coordinate_count();
        let time = self.time;
        self.factor_for = None;
        let state = std::mem::take(&mut self.state);
        let (q, v) = state.split_at(nc);
        let r = self.total_force(time, q, v, None);
        self.state = state;
        let mut f = std::mem::take(&mut self.work);
        f.copy_from_slice(&self.force);
        let r = r.and_then(|_| {
            self.solver.factorize(&self.mass)?;
            self.solver.solve(&mut f)
        });
        self.a.copy_from_slice(&f);
        self.work = f;
        r
    }

    /// Puts the body in contact with a ground plane (contacts evaluated at the current state
    /// are committed; the acceleration is made consistent with them).
    pub fn set_ground_contact(&mut self, contact: FlexGroundContact) -> Result<(), ImplicitError> {
        let mut contacts = std::mem::take(&mut self.contacts);
        contacts.ground.push(contact);
        self.set_contacts(contacts)
    }

    /// Replaces all contacts (committed and made consistent as [`Self::set_ground_contact`]).
    pub fn set_contacts(&mut self, contacts: FlexContacts) -> Result<(), ImplicitError> {
        self.contacts = contacts;
        self.commit_contacts()?;
        self.consistent_acceleration()
    }

    /// Puts the body's parts in node-to-surface contact with each other (committed and made
    /// consistent as [`Self::set_ground_contact`]).
    pub fn set_pair_contact(&mut self, contact: FlexPairContact) -> Result<(), ImplicitError> {
        let mut contacts = std::mem::take(&mut self.contacts);
        contacts.pair = Some(contact);
        self.set_contacts(contacts)
    }

    /// The first ground contact, if any (its `active()` contacts are those of the current
    /// state).
    pub fn ground_contact(&self) -> Option<&FlexGroundContact> {
        self.contacts.ground.first()
    }

    /// All contacts (ground and between parts) at the current state.
    pub fn contacts(&self) -> &FlexContacts {
        &self.contacts
    }

    /// Total force Q at (t, q, v) over the free coordinates into `self.force`; with
    /// `tangent = Some(h)` adds (1 + α)(1 + γβ_R/(βh)) K_e of every element (β_R of its
    /// material) and the contact part of S for a step h into `self.matrix`.
    fn total_force(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        tangent: Option<f64>,
    ) -> Result<(), ImplicitError> {
        let body = &self.body;
        let mut ext = std::mem::take(&mut self.full);
        body.external_force(t, &mut ext);
        let mut internal = vec![0.0; body.coordinate_count()];
        let o = self.options;
        let stiffness_scale = |h: f64| {
            move |m: &Material<f64>| (1.0 + o.alpha) * (1.0 + o.gamma * m.rayleigh_stiffness / (o.beta * h))
        };
        let scale = tangent.map(stiffness_scale);
        elastic_force_and_scaled_tangent(
            body,
            &self.pattern,
            t,
            q,
            &mut internal,
            scale
                .as_ref()
                .map(|s| (self.matrix.as_mut_slice(), s as ElementScale<'_>)),
        )?;
        add_damping_force(body, t, q, v, &mut internal)?;
        for (e, i) in ext.iter_mut().zip(&internal) {
            *e += i;
        }
        self.contacts
            .apply(t, &mut ExternalLoads::on_nodes(q, v, &mut ext));
        if let Some(h) = tangent {
            let o = &self.options;
            let (stiffness, damping) = (1.0 + o.alpha, (1.0 + o.alpha) * o.gamma / (o.beta * h));
            // Adds value(i, j) at coordinate triples (node, triple) a and b.
            let mut add = |a: (usize, usize), b: (usize, usize), value: &dyn Fn(usize, usize) -> f64| {
                let triple = |(node, k): (usize, usize)| &body.dof()[node][3 * k..3 * k + 3];
                let (rows, cols) = (triple(a), triple(b));
                for (i, &r) in rows.iter().enumerate() {
                    for (j, &col) in cols.iter().enumerate() {
                        // The upper triangle only (fixed coordinates are not stored).
                        if r <= col {
                            if let Some(p) = self.pattern.position(r, col) {
                                self.matrix[p] += value(i, j);
                            }
                        }
                    }
                }
            };
            // Flexible bodies alone: no rigid body carries a shape.
            add_contact_tangent(&self.contacts, stiffness, damping, &mut add, &mut |_| {});
        }
        body.gather_free(&ext, &mut self.force);
        self.full = ext;
        Ok(())
    }

    /// Shows the contacts the accepted state.
    fn commit_contacts(&mut self) -> Result<(), ImplicitError> {
        let nc = self.body.coordinate_count();
        let (q, v) = self.state.split_at(nc);
        let mut unused = std::mem::take(&mut self.full);
        self.contacts
            .accept(self.time, &ExternalLoads::on_nodes(q, v, &mut unused));
        self.full = unused;
        // Node–face pairs that may meet next must be in the matrix pattern: when new ones
        // appear the pattern and the symbolic factorization are rebuilt (pairs are kept, so
        // this happens while bodies first approach, not every step).
        let Some(pair) = self.contacts.pair.as_ref() else {
            return Ok(());
        };
        let near = pair.couplings(self.coordinates());
        if near.iter().all(|c| self.couplings.binary_search(c).is_ok()) {
            return Ok(());
        }
        self.couplings.extend(near);
        self.couplings.sort_unstable();
        self.couplings.dedup();
        self.pattern = Pattern::with_couplings(&self.body, &self.couplings)?;
        self.mass = self.pattern.mass(&self.body);
        self.mass_by_alpha = mass_by_alpha(&self.pattern, &self.body);
        self.solver = SparseLdlt::new(&self.pattern)?;
        self.matrix = vec![0.0; self.pattern.nnz()];
        self.factor_for = None;
        Ok(())
    }

    /// Adds the mass part of S for a step h into `self.matrix`: (1/(βh²) + (1 + α)γα_R/(βh)) M
    /// per group of elements of one Rayleigh α_R.
    fn add_mass_terms(&mut self, h: f64) {
        let o = self.options;
        let (alpha, beta, gamma) = (o.alpha, o.beta, o.gamma);
        let scale = |ra: f64| 1.0 / (beta * h * h) + (1.0 + alpha) * gamma * ra / (beta * h);
        if self.mass_by_alpha.is_empty() {
            let ra = self.body.materials().first().map_or(0.0, |m| m.rayleigh_mass);
            let cm = scale(ra);
            for (m, s) in self.mass.iter().zip(self.matrix.iter_mut()) {
                *s += cm * m;
            }
        } else {
            for (ra, mass) in &self.mass_by_alpha {
                let cm = scale(*ra);
                for (m, s) in mass.iter().zip(self.matrix.iter_mut()) {
                    *s += cm * m;
                }
            }
        }
    }

    /// The body.
    pub fn body(&self) -> &FlexModel {
        &self.body
    }
    /// The options.
    pub fn options(&self) -> &HhtOptions {
        &self.options
    }
    /// Changes the options (validated); invalidates a reused tangent.
    pub fn set_options(&mut self, options: HhtOptions) -> Result<(), ImplicitError> {
        options.validate()?;
        self.options = options;
        self.factor_for = None;
        Ok(())
    }
    /// Current time (s).
    pub fn time(&self) -> f64 {
        self.time
    }
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// The state `[q | v]`: body coordinates (12 per node), then their rates.
    pub fn state(&self) -> &[f64] {
        &self.state
    }
    /// Body coordinates (12 per node).
    pub fn coordinates(&self) -> &[f64] {
        &self.state[..self.body.coordinate_count()]
    }
    /// Body coordinate rates.
    pub fn rates(&self) -> &[f64] {
        &self.state[self.body.coordinate_count()..]
    }
    /// Free-coordinate accelerations.
    pub fn accelerations(&self) -> &[f64] {
        &self.a
    }
    /// Stored entries of the matrix pattern and of the factor.
    pub fn sparsity(&self) -> (usize, usize) {
        (self.pattern.nnz(), self.solver.factor_entries())
    }

    /// Kinetic, strain and gravity energy at the current state.
    pub fn energies(&self) -> Result<Energy<f64>, ImplicitError> {
        let body = &self.body;
        let nf = body.dof_count();
        let (mut vf, mut mv) = (vec![0.0; nf], vec![0.0; nf]);
        body.gather_free(self.rates(), &mut vf);
        self.pattern.symmetric_times(&self.mass, &vf, &mut mv);
        let mut out = Energy {
            kinetic: 0.5 * vf.iter().zip(&mv).map(|(a, b)| a * b).sum::<f64>(),
            ..Default::default()
        };
        let mut load = [0.0; ELEMENT_COORDS];
        for (index, (element, nodes, material)) in body.element_items().enumerate() {
            let ee = gather(self.coordinates(), nodes);
            out.strain += element
                .strain_energy(material, &ee)
                .map_err(|e| super::assembly::element_failure(index, e, self.time))?;
            element.gravity_load(body.gravity(), &mut load);
            out.potential -= load.iter().zip(&ee).map(|(a, b)| a * b).sum::<f64>();
        }
        Ok(out)
    }

    /// The work of one Newton iteration at the current state for a step `h`, without changing
    /// the state: force and analytic tangent assembly, S = M/(βh²) + (1 + α)(K + γ/(βh) D),
    /// numeric factorization (symbolic part reused) and one solve. Returns ‖S⁻¹Q‖∞ (for
    /// benchmarks and diagnostics).
    pub fn newton_iteration_work(&mut self, h: f64) -> Result<f64, ImplicitError> {
        self.matrix.iter_mut().for_each(|x| *x = 0.0);
        let saved = self.force.clone();
        let state = std::mem::take(&mut self.state);
        let (q, v) = state.split_at(self.body.coordinate_count());
        let r = self.total_force(self.time + h, q, v, Some(h));
        self.state = state;
        let mut x = std::mem::replace(&mut self.force, saved);
        r?;
        self.add_mass_terms(h);
        self.factor_for = None;
        self.solver.factorize(&self.matrix)?;
        self.solver.solve(&mut x)?;
        Ok(x.iter().fold(0.0f64, |m, d| m.max(d.abs())))
    }

    /// Advances by `h`; on failure retries as two half steps up to `max_halvings` levels deep.
    /// On error the state is unchanged.
    pub fn step(&mut self, h: f64) -> Result<StepReport, ImplicitError> {
        if !(h > 0.0 && h.is_finite()) {
            return Err(ImplicitError::InvalidOption {
                name: "step",
                reason: format!("{h} must be positive and finite"),
            });
        }
        let snapshot = (
            self.time,
            self.steps,
            self.state.clone(),
            self.a.clone(),
            self.force.clone(),
            self.contacts.clone(),
        );
        let mut report = StepReport::default();
        let result = self.step_levels(h, 0, &mut report);
        match result {
            Ok(()) => {
                self.steps = snapshot.1 + 1;
                // Sub-steps sum to h up to round-off: land exactly on t + h.
                self.time = snapshot.0 + h;
                Ok(report)
            }
            Err(e) => {
                let state;
                (self.time, self.steps, state, self.a, self.force, self.contacts) = snapshot;
                // In place: the state's buffer stays where views of it (the Python package) look.
                self.state.copy_from_slice(&state);
                self.factor_for = None;
                Err(e)
            }
        }
    }

    fn step_levels(&mut self, h: f64, level: u32, report: &mut StepReport) -> Result<(), ImplicitError> {
        let (iterations, failure) = match self.attempt(h, report)? {
            (_, Attempt::Converged) => {
                self.commit_contacts()?;
                report.substeps += 1;
                report.halvings = report.halvings.max(level);
                return Ok(());
            }
            (
                iterations,
                Attempt::Failed {
                    residuals,
                    increments,
                    cause,
                },
            ) => (iterations, (residuals, increments, cause)),
        };
        if level >= self.options.max_halvings {
            if let Some(cause) = failure.2 {
                return Err(cause);
            }
            return Err(ImplicitError::NotConverged {
                time: self.time,
                step: h,
                iterations,
                tolerance: self.options.newton_tol,
                residuals: failure.0,
                increments: failure.1,
            });
        }
        self.step_levels(0.5 * h, level + 1, report)?;
        self.step_levels(0.5 * h, level + 1, report)
    }

    /// One Newton solve of a step of size h. A failure to converge leaves the state unchanged
    /// and returns the histories; element or factorization errors are returned as errors.
    fn attempt(&mut self, h: f64, report: &mut StepReport) -> Result<(u32, Attempt), ImplicitError> {
        let o = self.options;
        let (alpha, beta, gamma) = (o.alpha, o.beta, o.gamma);
        let nf = self.body.dof_count();
        let t1 = self.time + h;
        // Predictors (body coordinates): q̃ = q + h v + h²(½ − β) a, ṽ = v + h(1 − γ) a.
        let mut a_full = std::mem::take(&mut self.full);
        self.body.scatter_free(&self.a, &mut a_full);
        let mut q_pred = self.coordinates().to_vec();
        let mut v_pred = self.rates().to_vec();
        for i in 0..q_pred.len() {
            q_pred[i] += h * v_pred[i] + h * h * (0.5 - beta) * a_full[i];
            v_pred[i] += h * (1.0 - gamma) * a_full[i];
        }
        self.full = a_full;
        // Start from q_{n+1} = q_n: a_{n+1} = −v_n/(βh) − (½ − β)/β a_n (robust for steps far
        // above the periods, where the constant-acceleration guess overshoots).
        let mut a1 = vec![0.0; nf];
        self.body.gather_free(self.rates(), &mut a1);
        for (x, a) in a1.iter_mut().zip(&self.a) {
            *x = -*x / (beta * h) - (0.5 - beta) / beta * a;
        }
        let a_start = a1.clone();
        let old_force = self.force.clone();
        let key = h * (1.0 + alpha);
        let (mut residuals, mut increments) = (Vec::new(), Vec::new());
        let mut refactor = !o.modified_newton || self.factor_for != Some(key);
        let mut previous = f64::INFINITY;
        let mut retried_fresh = false;
        let mut iterations = 0;
        loop {
            // State at the current iterate.
            let (mut qn, mut vn) = (std::mem::take(&mut self.qn), std::mem::take(&mut self.vn));
            qn.copy_from_slice(&q_pred);
            vn.copy_from_slice(&v_pred);
            let mut a_full = std::mem::take(&mut self.full);
            self.body.scatter_free(&a1, &mut a_full);
            for i in 0..qn.len() {
                qn[i] += h * h * beta * a_full[i];
                vn[i] += h * gamma * a_full[i];
            }
            self.full = a_full;
            let converged = increments.last().is_some_and(|&d: &f64| d <= o.newton_tol);
            let want_tangent = !converged && refactor;
            if want_tangent {
                self.matrix.iter_mut().for_each(|x| *x = 0.0);
            }
            let evaluated = self.total_force(t1, &qn, &vn, want_tangent.then_some(h));
            if let Err(e) = evaluated {
                self.qn = qn;
                self.vn = vn;
                self.force.copy_from_slice(&old_force);
                return match e {
                    ImplicitError::Element { .. } => Ok((
                        iterations,
                        Attempt::Failed {
                            residuals,
                            increments,
                            cause: Some(e),
                        },
                    )),
                    e => Err(e),
                };
            }
            // r = M a₁ − (1 + α) Q₁ + α Q_n.
            self.pattern.symmetric_times(&self.mass, &a1, &mut self.residual);
            for ((r, f), old) in self.residual.iter_mut().zip(&self.force).zip(&old_force) {
                *r += -(1.0 + alpha) * f + alpha * old;
            }
            let norm = self.residual.iter().map(|r| r * r).sum::<f64>().sqrt();
            residuals.push(norm);
            if converged && norm.is_finite() {
                let nc = qn.len();
                self.state[..nc].copy_from_slice(&qn);
                self.state[nc..].copy_from_slice(&vn);
                self.qn = qn;
                self.vn = vn;
                self.a.copy_from_slice(&a1);
                self.time = t1;
                return Ok((iterations, Attempt::Converged));
            }
            self.qn = qn;
            self.vn = vn;
            if iterations >= o.max_newton_iter || !norm.is_finite() {
                if o.modified_newton && !retried_fresh && self.factor_for.is_some() {
                    // A stale tangent may be the cause: retry once with a fresh one.
                    retried_fresh = true;
                    self.factor_for = None;
                    refactor = true;
                    a1.copy_from_slice(&a_start);
                    iterations = 0;
                    previous = f64::INFINITY;
                    residuals.clear();
                    increments.clear();
                    continue;
                }
                self.force.copy_from_slice(&old_force);
                return Ok((
                    iterations,
                    Attempt::Failed {
                        residuals,
                        increments,
                        cause: None,
                    },
                ));
            }
            if want_tangent {
                self.add_mass_terms(h);
                self.solver.factorize(&self.matrix)?;
                report.factorizations += 1;
                self.factor_for = Some(key);
                refactor = !o.modified_newton;
            }
            // S Δq = −r; a₁ += Δq / (β h²).
            let mut dq = std::mem::take(&mut self.work);
            for (d, r) in dq.iter_mut().zip(&self.residual) {
                *d = -r;
            }
            self.solver.solve(&mut dq)?;
            let inc = dq.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            for (a, d) in a1.iter_mut().zip(&dq) {
                *a += d / (beta * h * h);
            }
            self.work = dq;
            increments.push(inc);
            iterations += 1;
            report.newton_iterations += 1;
            if o.modified_newton && inc > 0.5 * previous {
                refactor = true;
            }
            previous = inc;
        }
    }
}

/// The mass of `body`'s elements of each Rayleigh α_R in `pattern`, when there is more than one
/// α_R (empty otherwise: the whole mass serves).
fn mass_by_alpha(pattern: &Pattern, body: &FlexModel) -> Vec<(f64, Vec<f64>)> {
    let mut alphas: Vec<f64> = Vec::new();
    for m in body.materials() {
        if !alphas.contains(&m.rayleigh_mass) {
            alphas.push(m.rayleigh_mass);
        }
    }
    if alphas.len() <= 1 {
        return Vec::new();
    }
    alphas
        .into_iter()
        .map(|ra| (ra, pattern.mass_of(body, |m| m.rayleigh_mass == ra)))
        .collect()
}
