//! Velocity Verlet (Störmer–Verlet, kick-drift-kick; Swope et al. 1982; Hairer, Lubich, Wanner,
//! *Geometric Numerical Integration*, I.3.1 and VI.3).

use super::common::{guarded_step, kick};
use crate::{Integrator, KernelError, OdeSystem, Real, Stages, StepStats};

/// Velocity Verlet: `a₀ = f(t, q₀, v₀)`, `v½ = v₀ + h/2·a₀`, `q₁` by
/// [`OdeSystem::advance_positions`] with `v½`, `a₁ = f(t+h, q₁, v₁*)` at the predicted
/// velocity `v₁* = v½ + h/2·a₀`, `v₁ = v½ + h/2·a₁`.
///
/// Two evaluations per step, order 2, symplectic and time-reversible for velocity-independent
/// forces (there `a₁` does not depend on `v₁*`: the classical scheme, bit for bit). With
/// velocity-dependent forces (damping, gyroscopic and Coriolis terms) the exact scheme would
/// need an implicit solve for `v₁`; this explicit variant evaluates `a₁` at the Euler prediction
/// `v₁*`, which is off by O(h²), so the step stays second order (measured: error ratio 4.0 on
/// halving the step on a damped oscillator and on the 5-link chain), though no longer exactly
/// symplectic. (Evaluating at `v½` instead, off by O(h), makes it first order.)
///
/// Stage buffers: `k[0]` = copy of `y(t)`, `k[1]` = derivative, `k[2]` = `v½` while `a₁` is
/// evaluated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VelocityVerlet;

impl<R: Real> Integrator<R> for VelocityVerlet {
    fn step<S: OdeSystem<R>>(
        &mut self,
        system: &mut S,
        t: R,
        h: R,
        y: &mut [R],
        stages: &mut Stages<'_, R>,
    ) -> Result<StepStats, KernelError> {
        guarded_step::<R, S, 3>(system, h, y, stages, 3, |system, y, [_, dydt, half_kick], np| {
            verlet_step(system, t, h, y, dydt, half_kick, np)
        })
    }
}

/// One kick-drift-kick step; `half_kick` keeps `v½` while `a₁` is evaluated at `v₁*`.
fn verlet_step<R: Real, S: OdeSystem<R>>(
    system: &mut S,
    t: R,
    h: R,
    y: &mut [R],
    dydt: &mut [R],
    half_kick: &mut [R],
    np: usize,
) -> Result<StepStats, KernelError> {
    let half = R::HALF * h;
    system.derivative(t, y, dydt)?;
    kick(y, dydt, np, half);
    system.advance_positions(y, h);
    copy_velocities(half_kick, y, np);
    // The predicted v₁* = v½ + h/2·a₀ for the second evaluation.
    kick(y, dydt, np, half);
    // No reuse of a₁ in the next step: `accept_step` may move the state after this step.
    system.derivative(t + h, y, dydt)?;
    copy_velocities(y, half_kick, np);
    kick(y, dydt, np, half);
    let projection_iterations = system.accept_step(t + h, y)?;
    Ok(StepStats {
        accepted: 1,
        rejected: 0,
        evaluations: 2,
        projection_iterations,
    })
}

/// The velocity part of `y` ← that of `from`.
fn copy_velocities<R: Real>(y: &mut [R], from: &[R], position_len: usize) {
    for (v, w) in y.iter_mut().zip(from).skip(position_len) {
        *v = *w;
    }
}

#[cfg(test)]
mod tests {
    use core::f64::consts::PI;

    use super::super::test_systems::{observed_order, oscillator_error, Oscillator, Work};
    use super::VelocityVerlet;
    use crate::Integrator;

    #[test]
    fn second_order_on_the_oscillator() {
        // Reference: exact x = cos t (ω = 1); velocity Verlet has global order 2.
        let order = observed_order(VelocityVerlet, 4.0, 50);
        assert!((order - 2.0).abs() < 0.2, "observed order {order}");
        // Its phase error is ωT·(ωh)²/24 (cos θ = 1 − (ωh)²/2) and the speed amplitude is
        // scaled by √(1 − (ωh)²/4), an error (ωh)²/8.
        let (t_end, steps) = (4.0, 100);
        let h = t_end / steps as f64;
        let bound = 1.05 * h * h * (t_end / 24.0 + 1.0 / 8.0);
        let err = oscillator_error(VelocityVerlet, t_end, steps);
        assert!(err < bound, "error {err:e} > {bound:e}");
    }

    #[test]
    fn energy_error_is_bounded_over_1000_periods() {
        // Reference: Verlet conserves H̃ = v²/2 + (1 − (hω)²/4)·ω²x²/2 exactly on the oscillator,
        // so E − E₀ = (h²ω⁴/8)(x² − x₀²) and |E − E₀|/E₀ ≤ (hω)²/4 from x₀ = 1, v₀ = 0:
        // an O(h²) oscillation with no secular drift.
        let omega = 1.0;
        let steps_per_period = 100;
        let h = 2.0 * PI / (omega * steps_per_period as f64);
        let mut sys = Oscillator::new(omega);
        let mut y = [1.0, 0.0];
        let e0 = sys.energy(&y);
        let mut work = Work::<f64, 2>::new();
        let (mut first_period, mut worst) = (0.0f64, 0.0f64);
        for i in 0..1000 * steps_per_period {
            VelocityVerlet
                .step(&mut sys, i as f64 * h, h, &mut y, &mut work.stages())
                .unwrap();
            let rel = ((sys.energy(&y) - e0) / e0).abs();
            worst = worst.max(rel);
            if i < steps_per_period {
                first_period = first_period.max(rel);
            }
        }
        let theory = 0.25 * (h * omega) * (h * omega);
        assert!(worst <= 1.000_001 * theory, "energy error {worst:e} > {theory:e}");
        assert!(worst < 1.01 * first_period, "{worst:e} vs {first_period:e}");
    }
}
