//! Symplectic (semi-implicit) Euler: kick the velocities, then drift the positions with the new
//! velocities (Hairer, Lubich, Wanner, *Geometric Numerical Integration*, VI.3, variant A).

use super::common::{guarded_step, kick};
use crate::{Integrator, KernelError, OdeSystem, Real, Stages, StepStats};

/// Symplectic Euler: `v₁ = v₀ + h·a(t₀, q₀, v₀)`, then `q₁` by
/// [`OdeSystem::advance_positions`] with `v₁`. One evaluation per step, order 1, symplectic for
/// velocity-independent forces (energy error bounded, O(h), no secular drift).
///
/// Stage buffers: `k[0]` = copy of `y(t)`, `k[1]` = derivative.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SemiImplicitEuler;

impl<R: Real> Integrator<R> for SemiImplicitEuler {
    fn step<S: OdeSystem<R>>(
        &mut self,
        system: &mut S,
        t: R,
        h: R,
        y: &mut [R],
        stages: &mut Stages<'_, R>,
    ) -> Result<StepStats, KernelError> {
        guarded_step::<R, S, 2>(system, h, y, stages, 2, |system, y, [_, dydt], np| {
            euler_step(system, t, h, y, dydt, np)
        })
    }
}

/// One kick-drift step.
fn euler_step<R: Real, S: OdeSystem<R>>(
    system: &mut S,
    t: R,
    h: R,
    y: &mut [R],
    dydt: &mut [R],
    np: usize,
) -> Result<StepStats, KernelError> {
    system.derivative(t, y, dydt)?;
    kick(y, dydt, np, h);
    // The system drifts the positions (exactly on SO(3) for quaternions) with the new velocities.
    system.advance_positions(y, h);
    let projection_iterations = system.accept_step(t + h, y)?;
    Ok(StepStats {
        accepted: 1,
        rejected: 0,
        evaluations: 1,
        projection_iterations,
    })
}

#[cfg(test)]
mod tests {
    use core::f64::consts::PI;

    use super::super::test_systems::{observed_order, oscillator_error, Oscillator, Work};
    use super::SemiImplicitEuler;
    use crate::Integrator;

    #[test]
    fn first_order_on_the_oscillator() {
        // Reference: exact x = cos t (ω = 1); symplectic Euler has global order 1.
        let order = observed_order(SemiImplicitEuler, 4.0, 100);
        assert!((order - 1.0).abs() < 0.2, "observed order {order}");
        // Its error is O(ωh) (the invariant ellipse ω²x² + v² − hω²xv is the circle distorted by
        // ±ωh/4) plus an O(h²) phase error: ≤ ωh over a few periods.
        let h = 4.0 / 200.0;
        let err = oscillator_error(SemiImplicitEuler, 4.0, 200);
        assert!(err < h, "error {err:e} > {h:e}");
    }

    #[test]
    fn energy_error_is_bounded_over_1000_periods() {
        // Reference: symplectic Euler conserves H̃ = E − (hω²/2)·x·v exactly on the oscillator,
        // so |E − E₀| = (hω²/2)|x v| ≤ (hω/2)·E: an O(h) oscillation with no secular drift.
        let omega = 1.0;
        let steps_per_period = 100;
        let h = 2.0 * PI / (omega * steps_per_period as f64);
        let mut sys = Oscillator::new(omega);
        let mut y = [1.0, 0.0];
        let e0 = sys.energy(&y);
        let mut work = Work::<f64, 2>::new();
        let (mut first_period, mut worst) = (0.0f64, 0.0f64);
        for i in 0..1000 * steps_per_period {
            SemiImplicitEuler
                .step(&mut sys, i as f64 * h, h, &mut y, &mut work.stages())
                .unwrap();
            let rel = ((sys.energy(&y) - e0) / e0).abs();
            worst = worst.max(rel);
            if i < steps_per_period {
                first_period = first_period.max(rel);
            }
        }
        let theory = 0.5 * h * omega / (1.0 - 0.5 * h * omega);
        assert!(worst <= 1.000_001 * theory, "energy error {worst:e} > {theory:e}");
        // No drift: the last periods' worst error is the first period's.
        assert!(worst < 1.01 * first_period, "{worst:e} vs {first_period:e}");
    }
}
