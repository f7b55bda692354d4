//! Generalized-α (and HHT-α / Newmark as its α recurrence) on a velocity-sized unknown.

use super::newton::{Newton, StepEquation};
use super::tangent::{write, Tangent};
use super::{check_step, state_of, Continuation};
use crate::spec::{NewtonSettings, TangentChoice};
use faer::Mat;
use ferrodyn_kernel::{Integrator, KernelError, OdeSystem, Stages, StepStats};

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
    pub(super) newton: Newton,
    last: Continuation,
    /// v̇_n and a_n.
    acceleration: Vec<f64>,
    pseudo: Vec<f64>,
}

/// One step's equation: R(v̇) = v̇ − f(q(v̇), v(v̇)).
struct AlphaStep<'a, 't, S> {
    system: &'a mut S,
    tangent: Option<&'a mut (dyn Tangent + 't)>,
    /// t + h and h.
    times: (f64, f64),
    /// (α_m, α_f, γ, β).
    coefficients: (f64, f64, f64, f64),
    q0: &'a [f64],
    v0: &'a [f64],
    /// v̇_n and a_n.
    vdot0: &'a [f64],
    a0: &'a [f64],
    trial: Vec<f64>,
    rate: Vec<f64>,
}

impl<S: OdeSystem<f64>> AlphaStep<'_, '_, S> {
    /// a_{n+1} of coordinate `k` at the accelerations `vdot`.
    fn pseudo(&self, vdot: &[f64], k: usize) -> f64 {
        let (alpha_m, alpha_f, _, _) = self.coefficients;
        (alpha_f * self.vdot0[k] + (1.0 - alpha_f) * vdot[k] - alpha_m * self.a0[k]) / (1.0 - alpha_m)
    }

    /// The state at the accelerations `vdot` into `trial`.
    fn place(&mut self, vdot: &[f64]) {
        let (_, _, gamma, beta) = self.coefficients;
        let (np, h) = (self.q0.len(), self.times.1);
        self.trial[..np].copy_from_slice(self.q0);
        for k in 0..self.v0.len() {
            let a = self.pseudo(vdot, k);
            self.trial[np + k] = self.v0[k] + h * ((0.5 - beta) * self.a0[k] + beta * a);
        }
        self.system.advance_positions(&mut self.trial, h);
        for k in 0..self.v0.len() {
            let a = self.pseudo(vdot, k);
            self.trial[np + k] = self.v0[k] + h * ((1.0 - gamma) * self.a0[k] + gamma * a);
        }
    }
}

impl<S: OdeSystem<f64>> StepEquation for AlphaStep<'_, '_, S> {
    fn residual(&mut self, vdot: &[f64], r: &mut [f64]) -> Result<(), KernelError> {
        self.place(vdot);
        let np = self.q0.len();
        self.system
            .derivative(self.times.0, &self.trial, &mut self.rate)?;
        for (k, rk) in r.iter_mut().enumerate() {
            *rk = vdot[k] - self.rate[np + k];
        }
        Ok(())
    }
    fn matrix(&mut self, vdot: &[f64], out: &mut Mat<f64>) -> Result<bool, KernelError> {
        if self.tangent.is_none() {
            return Ok(false);
        }
        self.place(vdot);
        let (alpha_m, alpha_f, gamma, beta) = self.coefficients;
        let (h, c) = (self.times.1, (1.0 - alpha_f) / (1.0 - alpha_m));
        let coefficients = (h * gamma * c, h * h * beta * c);
        write(
            self.tangent.as_deref_mut(),
            (self.times.0, &self.trial),
            coefficients,
            out,
        )
    }
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
            newton: Newton::new(newton, TangentChoice::default()),
            last: Continuation::default(),
            acceleration: Vec::new(),
            pseudo: Vec::new(),
        }
    }

    /// With the iteration matrix from `tangent`.
    pub fn with_tangent(mut self, tangent: TangentChoice) -> Self {
        self.newton.tangent = tangent;
        self
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

    /// One step, with the analytic iteration matrix of `tangent` where given.
    pub(super) fn step_with_tangent<S: OdeSystem<f64>>(
        &mut self,
        system: &mut S,
        (t, h): (f64, f64),
        y: &mut [f64],
        tangent: Option<&mut (dyn Tangent + '_)>,
    ) -> Result<StepStats, KernelError> {
        check_step(h)?;
        let (len, np) = (system.state_len(), system.position_len());
        let y = state_of(y, len)?;
        let mut evaluations = 0;
        if !self.last.continues(t, h, y) {
            // Start from the true accelerations: a_0 = v̇_0.
            let mut rate = vec![0.0; len];
            system.derivative(t, y, &mut rate)?;
            evaluations += 1;
            self.acceleration = rate[np..].to_vec();
            self.pseudo = self.acceleration.clone();
            self.newton.reset();
        }
        let (q0, v0) = (y[..np].to_vec(), y[np..].to_vec());
        let mut vdot = self.acceleration.clone();
        let mut equation = AlphaStep {
            system,
            tangent,
            times: (t + h, h),
            coefficients: self.coefficients,
            q0: &q0,
            v0: &v0,
            vdot0: &self.acceleration,
            a0: &self.pseudo,
            trial: vec![0.0; len],
            rate: vec![0.0; len],
        };
        evaluations += self.newton.solve(&mut vdot, h, &mut equation)?;
        let pseudo = (0..len - np).map(|k| equation.pseudo(&vdot, k)).collect();
        let AlphaStep { system, trial, .. } = equation;
        let stats = self.last.accept(system, t, h, trial, y, evaluations)?;
        self.pseudo = pseudo;
        self.acceleration = vdot;
        Ok(stats)
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
        self.step_with_tangent(system, (t, h), y, None)
    }
}
