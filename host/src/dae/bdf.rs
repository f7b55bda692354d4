//! Backward differentiation formulas of order 1 and 2 on a velocity-sized unknown.

use super::newton::{Newton, StepEquation};
use super::tangent::{write, Tangent};
use super::{check_step, state_of, Continuation};
use crate::spec::{NewtonSettings, TangentChoice};
use faer::Mat;
use ferrodyn_kernel::{Integrator, KernelError, OdeSystem, Stages, StepStats};

/// Backward differentiation formula of order 1 (backward Euler) or 2, on velocities and on
/// position increments (q_{n+1} = q_n ∘ exp(h w), w the BDF combination of velocities).
/// BDF1 is L-stable and strongly dissipative; BDF2 is A-stable, second order, mildly
/// dissipative (energy decays as O(h³) per step for a harmonic oscillator).
pub struct Bdf {
    order: u8,
    pub(super) newton: Newton,
    last: Continuation,
    /// v_{n−1} (BDF2) and the last position increment rate w_n.
    previous_velocity: Vec<f64>,
    increment: Vec<f64>,
    /// Steps taken since the last restart.
    history_steps: u32,
}

/// One BDF step's equation: R(v) = v − rhs − β₀h f(q_n ∘ exp(h(w_old·w_n + β₀v)), v).
struct BdfStep<'a, 't, S> {
    system: &'a mut S,
    tangent: Option<&'a mut (dyn Tangent + 't)>,
    /// t + h, h, β₀, the weight of w_n.
    times: (f64, f64),
    beta0: f64,
    w_old: f64,
    q0: &'a [f64],
    rhs: &'a [f64],
    increment: &'a [f64],
    trial: Vec<f64>,
    rate: Vec<f64>,
}

impl<S: OdeSystem<f64>> BdfStep<'_, '_, S> {
    /// The state at velocities `v` into `trial`.
    fn place(&mut self, v: &[f64]) {
        let np = self.q0.len();
        self.trial[..np].copy_from_slice(self.q0);
        for (k, t) in self.trial[np..].iter_mut().enumerate() {
            let old = match self.w_old {
                0.0 => 0.0,
                w => w * self.increment.get(k).copied().unwrap_or(0.0),
            };
            *t = self.beta0 * v[k] + old;
        }
        self.system.advance_positions(&mut self.trial, self.times.1);
        self.trial[np..].copy_from_slice(v);
    }
}

impl<S: OdeSystem<f64>> StepEquation for BdfStep<'_, '_, S> {
    fn residual(&mut self, v: &[f64], r: &mut [f64]) -> Result<(), KernelError> {
        self.place(v);
        let np = self.q0.len();
        self.system
            .derivative(self.times.0, &self.trial, &mut self.rate)?;
        let step = self.beta0 * self.times.1;
        for (k, rk) in r.iter_mut().enumerate() {
            *rk = v[k] - self.rhs[k] - step * self.rate[np + k];
        }
        Ok(())
    }
    fn matrix(&mut self, v: &[f64], out: &mut Mat<f64>) -> Result<bool, KernelError> {
        if self.tangent.is_none() {
            return Ok(false);
        }
        self.place(v);
        let step = self.beta0 * self.times.1;
        write(
            self.tangent.as_deref_mut(),
            (self.times.0, &self.trial),
            (step, step * step),
            out,
        )
    }
}

impl Bdf {
    /// BDF of `order` 1 or 2 (any other order is taken as 2).
    pub fn new(order: u8, newton: NewtonSettings) -> Self {
        Self {
            order: if order == 1 { 1 } else { 2 },
            newton: Newton::new(newton, TangentChoice::default()),
            last: Continuation::default(),
            previous_velocity: Vec::new(),
            increment: Vec::new(),
            history_steps: 0,
        }
    }

    /// With the iteration matrix from `tangent`.
    pub fn with_tangent(mut self, tangent: TangentChoice) -> Self {
        self.newton.tangent = tangent;
        self
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
        if !self.last.continues(t, h, y) {
            self.history_steps = 0;
            self.newton.reset();
        }
        let (q0, v0) = (y[..np].to_vec(), y[np..].to_vec());
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
        let mut v = v0.to_vec();
        let mut equation = BdfStep {
            system,
            tangent,
            times: (t + h, h),
            beta0,
            w_old,
            q0: &q0,
            rhs: &rhs,
            increment: &self.increment,
            trial: vec![0.0; len],
            rate: vec![0.0; len],
        };
        // The iteration matrix I − β0 h ∂f/∂v… depends on β0 too: BDF2's start step (BDF1,
        // β0 = 1) must not lend its matrix to the steps after it (β0 = 2/3).
        let evaluations = self.newton.solve(&mut v, beta0 * h, &mut equation)?;
        let BdfStep { system, trial, .. } = equation;
        let increment = (0..len - np)
            .map(|k| beta0 * v[k] + if second { w_old * self.increment[k] } else { 0.0 })
            .collect();
        let previous_velocity = v0;
        let stats = self.last.accept(system, t, h, trial, y, evaluations)?;
        self.increment = increment;
        self.previous_velocity = previous_velocity;
        self.history_steps += 1;
        Ok(stats)
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
        self.step_with_tangent(system, (t, h), y, None)
    }
}
