//! Implicit integrators for constrained multibody systems: BDF1 (backward Euler), BDF2 and
//! generalized-α (Chung & Hulbert 1993 in the Arnold & Brüls 2007 form with ρ∞), written as
//! kernel [`Integrator`]s so that `ferrodyn_kernel::step` runs them on rigid models (and on
//! any other kernel [`OdeSystem`]: flexible and coupled models).
//!
//! Formulation (stabilized index-1): the kernel's constrained dynamics gives the accelerations
//! v̇ = f(q, v, t) from M v̇ + Φ_qᵀλ = Q, Φ_q v̇ = γ; positions move on the rotation group through
//! `advance_positions` (q ← q ∘ exp(h w), exact for quaternions); after every step the kernel's
//! `accept_step` projects q onto Φ = 0 and v onto Φ̇ = 0 (Hairer & Wanner, *Solving ODEs II*,
//! VII.2), so the constraint violation stays below the model's projection tolerance; the step
//! statistics report the projection iterations. Each step solves its implicit equation for a
//! velocity-sized unknown by Newton–Raphson (`newton`).
//!
//! Both methods keep history (previous velocities or accelerations). When a step does not start
//! where the previous one ended (another integrator stepped in between, the state was edited,
//! the step size changed for BDF2), they restart: BDF2 with one BDF1 step, generalized-α by
//! re-evaluating the accelerations.

mod newton;

use crate::spec::{ImplicitSpec, IntegratorSpec, NewtonSettings};
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::{Integrator, KernelError, OdeSystem, Stages, StepStats};
use newton::Newton;

/// The end of the last accepted step, to tell whether the next one continues it.
#[derive(Default)]
struct Continuation {
    time: f64,
    step: f64,
    state: Vec<f64>,
}

impl Continuation {
    fn continues(&self, t: f64, h: f64, y: &[f64]) -> bool {
        // The caller's clock sums steps with compensation: its t may differ from ours in the
        // last bits, so time is compared to a fraction of the step; the state must be identical.
        (self.time - t).abs() <= 1e-6 * h && self.step == h && self.state == y
    }
    /// Ends a step of `h` from `t` whose unprojected result is `end`: the system projects and
    /// checks it, and only then is it written to `y` and remembered (on error `y` keeps the
    /// state at `t`, as the kernel's integrators promise).
    fn accept<S: OdeSystem<f64>>(
        &mut self,
        system: &mut S,
        t: f64,
        h: f64,
        mut end: Vec<f64>,
        y: &mut [f64],
        evaluations: u32,
    ) -> Result<StepStats, KernelError> {
        let projection_iterations = system.accept_step(t + h, &mut end)?;
        y.copy_from_slice(&end);
        self.time = t + h;
        self.step = h;
        self.state = end;
        Ok(StepStats {
            accepted: 1,
            rejected: 0,
            evaluations,
            projection_iterations,
        })
    }
}

/// The state in `y`: its first `len` values. A family may hand a longer buffer (the tree's
/// holds nq + nv values in slots for 2·nq when a quaternion makes nq > nv).
fn state_of(y: &mut [f64], len: usize) -> Result<&mut [f64], KernelError> {
    y.get_mut(..len).ok_or(KernelError::StateSizeMismatch)
}

/// Rejects a step size that is not positive and finite.
fn check_step(h: f64) -> Result<(), KernelError> {
    if h > 0.0 && h.is_finite() {
        Ok(())
    } else {
        Err(KernelError::InvalidStepSize)
    }
}

/// Backward differentiation formula of order 1 (backward Euler) or 2, on velocities and on
/// position increments (q_{n+1} = q_n ∘ exp(h w_{n+1}), w the BDF combination of velocities).
/// BDF1 is L-stable and strongly dissipative; BDF2 is A-stable, second order, mildly
/// dissipative (energy decays as O(h³) per step for a harmonic oscillator).
pub struct Bdf {
    order: u8,
    newton: Newton,
    last: Continuation,
    /// v_{n−1} (BDF2) and the last position increment rate w_n.
    previous_velocity: Vec<f64>,
    increment: Vec<f64>,
    /// Steps taken since the last restart.
    history_steps: u32,
}

impl Bdf {
    /// BDF of `order` 1 or 2 (any other order is taken as 2).
    pub fn new(order: u8, newton: NewtonSettings) -> Self {
        Self {
            order: if order == 1 { 1 } else { 2 },
            newton: Newton::new(newton),
            last: Continuation::default(),
            previous_velocity: Vec::new(),
            increment: Vec::new(),
            history_steps: 0,
        }
    }

    /// ‖R‖∞ of each Newton iteration of the last step.
    pub fn residual_history(&self) -> &[f64] {
        &self.newton.history
    }

    /// "bdf1" or "bdf2".
    pub fn name(&self) -> &'static str {
        if self.order == 1 {
            "bdf1"
        } else {
            "bdf2"
        }
    }
}

impl Integrator<f64> for Bdf {
    fn step<S: OdeSystem<f64>>(
        &mut self,
        system: &mut S,
        t: f64,
        h: f64,
        y: &mut [f64],
        _stages: &mut Stages<'_, f64>,
    ) -> Result<StepStats, KernelError> {
        check_step(h)?;
        let (len, np) = (system.state_len(), system.position_len());
        let y = state_of(y, len)?;
        let (q0, v0) = y.split_at(np);
        if !self.last.continues(t, h, y) {
            self.history_steps = 0;
            self.newton.reset();
        }
        // BDF2 needs v_{n−1} and w_n from a previous step of the same size.
        let second = self.order == 2 && self.history_steps > 0;
        let (beta0, w_old) = if second {
            (2.0 / 3.0, 1.0 / 3.0)
        } else {
            (1.0, 0.0)
        };
        let rhs: Vec<f64> = if second {
            v0.iter()
                .zip(&self.previous_velocity)
                .map(|(v, vp)| (4.0 * v - vp) / 3.0)
                .collect()
        } else {
            v0.to_vec()
        };
        let increment = &self.increment;
        let mut trial = vec![0.0; len];
        let mut rate = vec![0.0; len];
        let mut v = v0.to_vec();
        // The iteration matrix I − β0 h ∂f/∂v… depends on β0 too: BDF2's start step (BDF1,
        // β0 = 1) must not lend its matrix to the steps after it (β0 = 2/3).
        let evaluations = self.newton.solve(&mut v, beta0 * h, |v, r| {
            // Positions: q_n moved by h w, w = w_old·w_n + β0·v.
            trial[..np].copy_from_slice(q0);
            for (k, t) in trial[np..].iter_mut().enumerate() {
                *t = beta0 * v[k] + if second { w_old * increment[k] } else { 0.0 };
            }
            system.advance_positions(&mut trial, h);
            trial[np..].copy_from_slice(v);
            system.derivative(t + h, &trial, &mut rate)?;
            for (k, rk) in r.iter_mut().enumerate() {
                *rk = v[k] - rhs[k] - beta0 * h * rate[np + k];
            }
            Ok(())
        })?;
        let increment = (0..len - np)
            .map(|k| beta0 * v[k] + if second { w_old * self.increment[k] } else { 0.0 })
            .collect();
        let previous_velocity = v0.to_vec();
        let stats = self.last.accept(system, t, h, trial, y, evaluations)?;
        self.increment = increment;
        self.previous_velocity = previous_velocity;
        self.history_steps += 1;
        Ok(stats)
    }
}

/// Generalized-α (Arnold & Brüls 2007, the Lie-group form of Brüls, Cardona & Arnold 2012):
/// with the true accelerations v̇ and the pseudo-accelerations a,
///   (1−α_m) a_{n+1} + α_m a_n = (1−α_f) v̇_{n+1} + α_f v̇_n,
///   v_{n+1} = v_n + h[(1−γ) a_n + γ a_{n+1}],
///   q_{n+1} = q_n ∘ exp(h[v_n + h((½−β) a_n + β a_{n+1})]),
/// with α_m = (2ρ∞−1)/(ρ∞+1), α_f = ρ∞/(ρ∞+1), γ = ½ + α_f − α_m, β = ¼(γ+½)²: second order,
/// unconditionally stable for linear problems, high-frequency spectral radius ρ∞ ∈ [0, 1]
/// (ρ∞ = 1: no numerical dissipation).
///
/// HHT-α and Newmark are the same recurrence with α_m = 0, α_f = −α and their own β, γ
/// ([`GeneralizedAlpha::hht`]): a_{n+1} = (1+α) v̇_{n+1} − α v̇_n is HHT's
/// M a_{n+1} = (1+α) Q_{n+1} − α Q_n wherever M is constant, and differs from it by
/// O(h·α·Ṁ) where M changes with q (still second order, Arnold & Brüls 2007 §3).
pub struct GeneralizedAlpha {
    name: &'static str,
    /// (α_m, α_f, γ, β).
    coefficients: (f64, f64, f64, f64),
    newton: Newton,
    last: Continuation,
    /// v̇_n and a_n.
    acceleration: Vec<f64>,
    pseudo: Vec<f64>,
}

impl GeneralizedAlpha {
    /// Generalized-α with spectral radius at infinity `rho_inf` (clamped to [0, 1]).
    pub fn new(rho_inf: f64, newton: NewtonSettings) -> Self {
        let rho = rho_inf.clamp(0.0, 1.0);
        let alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
        let alpha_f = rho / (rho + 1.0);
        let gamma = 0.5 + alpha_f - alpha_m;
        let beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);
        Self::with("generalized-alpha", (alpha_m, alpha_f, gamma, beta), newton)
    }

    /// HHT-α (α ∈ [−1/3, 0]) or, with α = 0, Newmark, with Newmark `beta` and `gamma`: the
    /// recurrence with α_m = 0, α_f = −α. HHT with β = (1−α)²/4, γ = ½−α has ρ∞ = (1+α)/(1−α).
    pub fn hht(alpha: f64, beta: f64, gamma: f64, newton: NewtonSettings) -> Self {
        let name = if alpha == 0.0 { "newmark" } else { "hht" };
        Self::with(name, (0.0, -alpha, gamma, beta), newton)
    }

    fn with(name: &'static str, coefficients: (f64, f64, f64, f64), newton: NewtonSettings) -> Self {
        Self {
            name,
            coefficients,
            newton: Newton::new(newton),
            last: Continuation::default(),
            acceleration: Vec::new(),
            pseudo: Vec::new(),
        }
    }

    /// "generalized-alpha", "hht" or "newmark".
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// (α_m, α_f, γ, β).
    pub fn coefficients(&self) -> (f64, f64, f64, f64) {
        self.coefficients
    }

    /// ‖R‖∞ of each Newton iteration of the last step.
    pub fn residual_history(&self) -> &[f64] {
        &self.newton.history
    }
}

impl Integrator<f64> for GeneralizedAlpha {
    fn step<S: OdeSystem<f64>>(
        &mut self,
        system: &mut S,
        t: f64,
        h: f64,
        y: &mut [f64],
        _stages: &mut Stages<'_, f64>,
    ) -> Result<StepStats, KernelError> {
        check_step(h)?;
        let (len, np) = (system.state_len(), system.position_len());
        let y = state_of(y, len)?;
        let mut rate = vec![0.0; len];
        let mut evaluations = 0;
        if !self.last.continues(t, h, y) {
            // Start from the true accelerations: a_0 = v̇_0.
            system.derivative(t, y, &mut rate)?;
            evaluations += 1;
            self.acceleration = rate[np..].to_vec();
            self.pseudo = self.acceleration.clone();
            self.newton.reset();
        }
        let (alpha_m, alpha_f, gamma, beta) = self.coefficients();
        let (q0, v0) = y.split_at(np);
        let (vdot0, a0) = (&self.acceleration, &self.pseudo);
        let pseudo_of = |vdot: &[f64], k: usize| {
            (alpha_f * vdot0[k] + (1.0 - alpha_f) * vdot[k] - alpha_m * a0[k]) / (1.0 - alpha_m)
        };
        let mut trial = vec![0.0; len];
        let mut vdot = vdot0.clone();
        evaluations += self.newton.solve(&mut vdot, h, |vdot, r| {
            trial[..np].copy_from_slice(q0);
            for k in 0..len - np {
                let a = pseudo_of(vdot, k);
                trial[np + k] = v0[k] + h * ((0.5 - beta) * a0[k] + beta * a);
            }
            system.advance_positions(&mut trial, h);
            for k in 0..len - np {
                let a = pseudo_of(vdot, k);
                trial[np + k] = v0[k] + h * ((1.0 - gamma) * a0[k] + gamma * a);
            }
            system.derivative(t + h, &trial, &mut rate)?;
            for (k, rk) in r.iter_mut().enumerate() {
                *rk = vdot[k] - rate[np + k];
            }
            Ok(())
        })?;
        let pseudo = (0..len - np).map(|k| pseudo_of(&vdot, k)).collect();
        let stats = self.last.accept(system, t, h, trial, y, evaluations)?;
        self.pseudo = pseudo;
        self.acceleration = vdot;
        Ok(stats)
    }
}

/// Any integrator a rigid or coupled host run can use: the kernel's explicit ones or the
/// implicit ones of this module.
pub enum HostMethod {
    /// A kernel integrator.
    Explicit(Method<f64>),
    /// BDF1 / BDF2.
    Bdf(Bdf),
    /// Generalized-α.
    GeneralizedAlpha(GeneralizedAlpha),
}

impl HostMethod {
    /// A fresh integrator (no history) of `spec`; `None` for HHT/Newmark, which integrates
    /// flexible bodies itself ([`crate::implicit`]).
    pub fn new(spec: &IntegratorSpec) -> Option<Self> {
        match spec {
            IntegratorSpec::Explicit(m) => Some(Self::Explicit(*m)),
            IntegratorSpec::Dae(s) => Some(Self::dae(s)),
            IntegratorSpec::Hht(_) => None,
        }
    }

    /// A fresh BDF or generalized-α integrator of `spec`.
    pub fn dae(spec: &ImplicitSpec) -> Self {
        match spec.name {
            "bdf1" => Self::Bdf(Bdf::new(1, spec.newton)),
            "bdf2" => Self::Bdf(Bdf::new(2, spec.newton)),
            _ => Self::GeneralizedAlpha(GeneralizedAlpha::new(spec.rho_inf, spec.newton)),
        }
    }

    /// The method's name, as written in scene files.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Explicit(m) => m.name(),
            Self::Bdf(m) => m.name(),
            Self::GeneralizedAlpha(m) => m.name(),
        }
    }
}

impl HostMethod {
    /// What the Newton iteration of an implicit method did so far, for the run's summary:
    /// iterations (corrections) per step and iteration matrices built (each n + 1 evaluations
    /// of the system's derivative, n the velocity count). `None` for an explicit method.
    pub fn solver_report(&self) -> Option<String> {
        let newton = match self {
            Self::Explicit(_) => return None,
            Self::Bdf(m) => &m.newton,
            Self::GeneralizedAlpha(m) => &m.newton,
        };
        Some(format!(
            "{} Newton iterations ({:.2} a step), {} iteration matrices",
            newton.iterations,
            newton.iterations as f64 / newton.solves.max(1) as f64,
            newton.jacobians
        ))
    }
}

impl From<Method<f64>> for HostMethod {
    fn from(m: Method<f64>) -> Self {
        Self::Explicit(m)
    }
}

impl Integrator<f64> for HostMethod {
    fn step<S: OdeSystem<f64>>(
        &mut self,
        system: &mut S,
        t: f64,
        h: f64,
        y: &mut [f64],
        stages: &mut Stages<'_, f64>,
    ) -> Result<StepStats, KernelError> {
        match self {
            Self::Explicit(m) => m.step(system, t, h, y, stages),
            Self::Bdf(m) => m.step(system, t, h, y, stages),
            Self::GeneralizedAlpha(m) => m.step(system, t, h, y, stages),
        }
    }
}
