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
//! velocity-sized unknown by Newton–Raphson (`newton`), whose iteration matrix is the
//! system's analytic one where it has one (a tree in joint coordinates: [`tree_tangent`], the
//! correspondence with the methods' coefficients in [`tangent`]) or a finite difference
//! (`[simulation.implicit] tangent = "finite-difference"`).
//!
//! Both methods keep history (previous velocities or accelerations). When a step does not start
//! where the previous one ended (another integrator stepped in between, the state was edited,
//! the step size changed for BDF2), they restart: BDF2 with one BDF1 step, generalized-α by
//! re-evaluating the accelerations.

mod bdf;
mod generalized_alpha;
mod newton;
pub mod tangent;
pub mod tree_tangent;

pub use bdf::Bdf;
pub use generalized_alpha::GeneralizedAlpha;

use crate::spec::{ImplicitSpec, IntegratorSpec};
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::{Integrator, KernelError, OdeSystem, Stages, StepStats};
use tangent::Tangent;

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
            "bdf1" => Self::Bdf(Bdf::new(1, spec.newton).with_tangent(spec.tangent)),
            "bdf2" => Self::Bdf(Bdf::new(2, spec.newton).with_tangent(spec.tangent)),
            _ => Self::GeneralizedAlpha(
                GeneralizedAlpha::new(spec.rho_inf, spec.newton).with_tangent(spec.tangent),
            ),
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
    /// iterations (corrections) per step and iteration matrices built (analytic ones, or each
    /// n evaluations of the system's derivative, n the velocity count), and with
    /// `tangent = "compared"` the analytic matrices' largest relative distance from the finite
    /// difference (at the first build and over the run). `None` for an explicit method.
    pub fn solver_report(&self) -> Option<String> {
        let newton = match self {
            Self::Explicit(_) => return None,
            Self::Bdf(m) => &m.newton,
            Self::GeneralizedAlpha(m) => &m.newton,
        };
        let kind = match newton.analytic {
            0 => "finite-difference".to_string(),
            n if n == newton.jacobians => "analytic".to_string(),
            n => format!("{n} analytic"),
        };
        let compared = newton.differences.map_or(String::new(), |(first, largest)| {
            format!("; analytic vs finite difference: {first:.1e} at the first, {largest:.1e} at most")
        });
        Some(format!(
            "{} Newton iterations ({:.2} a step), {} iteration matrices ({kind}){compared}",
            newton.iterations,
            newton.iterations as f64 / newton.solves.max(1) as f64,
            newton.jacobians
        ))
    }

    /// This method stepping with the analytic iteration matrix of `tangent` (an explicit
    /// method ignores it).
    pub fn with_tangent<'a>(&'a mut self, tangent: &'a mut dyn Tangent) -> TangentStep<'a> {
        TangentStep {
            method: self,
            tangent,
        }
    }
}

impl From<Method<f64>> for HostMethod {
    fn from(m: Method<f64>) -> Self {
        Self::Explicit(m)
    }
}

impl HostMethod {
    /// One step, the implicit methods with the analytic iteration matrix of `tangent` where
    /// given (an explicit method has no iteration matrix).
    fn step_with<S: OdeSystem<f64>>(
        &mut self,
        system: &mut S,
        (t, h): (f64, f64),
        y: &mut [f64],
        stages: &mut Stages<'_, f64>,
        tangent: Option<&mut (dyn Tangent + '_)>,
    ) -> Result<StepStats, KernelError> {
        match self {
            Self::Explicit(m) => m.step(system, t, h, y, stages),
            Self::Bdf(m) => m.step_with_tangent(system, (t, h), y, tangent),
            Self::GeneralizedAlpha(m) => m.step_with_tangent(system, (t, h), y, tangent),
        }
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
        self.step_with(system, (t, h), y, stages, None)
    }
}

/// A [`HostMethod`] with a system's analytic iteration matrix for its steps
/// ([`HostMethod::with_tangent`]).
pub struct TangentStep<'a> {
    method: &'a mut HostMethod,
    tangent: &'a mut dyn Tangent,
}

impl Integrator<f64> for TangentStep<'_> {
    fn step<S: OdeSystem<f64>>(
        &mut self,
        system: &mut S,
        t: f64,
        h: f64,
        y: &mut [f64],
        stages: &mut Stages<'_, f64>,
    ) -> Result<StepStats, KernelError> {
        self.method
            .step_with(system, (t, h), y, stages, Some(&mut *self.tangent))
    }
}
