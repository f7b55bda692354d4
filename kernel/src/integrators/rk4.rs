//! The classical fourth-order Runge–Kutta method (Kutta 1901; Hairer, Nørsett, Wanner,
//! *Solving ODEs I*, II.1, Table 1.2 left).

use super::common::guarded_step;
use crate::{Integrator, KernelError, OdeSystem, Real, Stages, StepStats};

/// Classical RK4: four evaluations per step, global error O(h⁴).
///
/// Stage buffers: `k[0]` = copy of `y(t)`, `k[1..5]` = the four slopes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rk4;

impl<R: Real> Integrator<R> for Rk4 {
    fn step<S: OdeSystem<R>>(
        &mut self,
        system: &mut S,
        t: R,
        h: R,
        y: &mut [R],
        stages: &mut Stages<'_, R>,
    ) -> Result<StepStats, KernelError> {
        guarded_step::<R, S, 5>(system, h, y, stages, 5, |system, y, [y0, k1, k2, k3, k4], _| {
            rk4_step(system, t, h, y, y0, [k1, k2, k3, k4])
        })
    }
}

/// One RK4 step; `y` doubles as the stage argument since `y0` keeps the start value.
fn rk4_step<R: Real, S: OdeSystem<R>>(
    system: &mut S,
    t: R,
    h: R,
    y: &mut [R],
    y0: &[R],
    k: [&mut [R]; 4],
) -> Result<StepStats, KernelError> {
    let [k1, k2, k3, k4] = k;
    let half = R::HALF * h;
    system.derivative(t, y, k1)?;
    system.stage_argument(y, y0, half, k1);
    system.derivative(t + half, y, k2)?;
    system.stage_argument(y, y0, half, k2);
    system.derivative(t + half, y, k3)?;
    system.stage_argument(y, y0, h, k3);
    system.derivative(t + h, y, k4)?;
    let sixth = h / R::from_f64(6.0);
    // The increment, in k1 (no longer needed).
    for (((a, b), c), d) in k1.iter_mut().zip(k2.iter()).zip(k3.iter()).zip(k4.iter()) {
        *a = sixth * (*a + R::TWO * *b + R::TWO * *c + *d);
    }
    system.finish_step(y, y0, k1);
    let projection_iterations = system.accept_step(t + h, y)?;
    Ok(StepStats {
        accepted: 1,
        rejected: 0,
        evaluations: 4,
        projection_iterations,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_systems::{observed_order, oscillator_error};
    use super::Rk4;

    #[test]
    fn fourth_order_on_the_oscillator() {
        // Reference: exact x = cos t (ω = 1); RK4 has global order 4.
        let order = observed_order(Rk4, 4.0, 20);
        assert!((order - 4.0).abs() < 0.2, "observed order {order}");
    }

    #[test]
    fn error_matches_the_leading_term() {
        // Reference: RK4's amplification of y' = iωy is the Taylor polynomial of e^z to degree 4,
        // so each step errs by |z|⁵/120 (z = ωh) and the global error is ≈ T·ω⁵·h⁴/120.
        let (t_end, steps) = (4.0, 40);
        let h = t_end / steps as f64;
        let bound = 1.1 * t_end * h * h * h * h / 120.0;
        let err = oscillator_error(Rk4, t_end, steps);
        assert!(err < bound && err > 0.5 * bound, "error {err:e}, bound {bound:e}");
    }
}
