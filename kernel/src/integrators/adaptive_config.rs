//! Tolerances and step-size controller settings of the adaptive integrators.

use crate::Real;

/// Settings of the adaptive embedded Runge–Kutta methods ([`super::Rkf45`], [`super::Dopri45`]).
///
/// A trial substep is accepted when the RMS over the state of
/// `err_i / (atol + rtol·max(|y0_i|, |y1_i|))` is at most 1 (Hairer, Nørsett, Wanner,
/// *Solving ODEs I*, II.4, eq. 4.11). `atol` must be positive when a component can be zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AdaptiveConfig<R> {
    /// Relative tolerance.
    pub rtol: R,
    /// Absolute tolerance.
    pub atol: R,
    /// Smallest step the controller may propose; below it the step fails with
    /// `StepSizeTooSmall`. The last substep, shortened to land on `t + h`, is exempt.
    pub h_min: R,
    /// Largest substep (`R::MAX` for no limit).
    pub h_max: R,
    /// Largest number of trial substeps (accepted + rejected) in one call to `step`.
    pub max_substeps: u32,
    /// Safety factor of the step-size controller.
    pub safety: R,
    /// Smallest step-size factor between two trial substeps.
    pub fac_min: R,
    /// Largest step-size factor between two trial substeps.
    pub fac_max: R,
}

impl<R: Real> AdaptiveConfig<R> {
    /// Tolerances with the default controller: no step bounds, 10 000 substeps, safety 0.9,
    /// factors in [0.2, 5] (Hairer's DOPRI5 defaults, except `fac_max` 10 → 5).
    pub fn new(rtol: R, atol: R) -> Self {
        Self {
            rtol,
            atol,
            h_min: R::ZERO,
            h_max: R::MAX,
            max_substeps: 10_000,
            safety: R::from_f64(0.9),
            fac_min: R::from_f64(0.2),
            fac_max: R::from_f64(5.0),
        }
    }

    /// Sets the smallest and largest substep.
    pub fn with_step_bounds(self, h_min: R, h_max: R) -> Self {
        Self { h_min, h_max, ..self }
    }

    /// Sets the largest number of trial substeps per call.
    pub fn with_max_substeps(self, max_substeps: u32) -> Self {
        Self { max_substeps, ..self }
    }
}

impl<R: Real> Default for AdaptiveConfig<R> {
    /// `rtol = atol = 1e-6`: reachable in `f32` as well as `f64`.
    fn default() -> Self {
        Self::new(R::from_f64(1e-6), R::from_f64(1e-6))
    }
}
