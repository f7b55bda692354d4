//! Tests of the adaptive embedded pairs, each written once and run for both RKF45 and DOPRI45.

use core::f64::consts::PI;

use super::embedded::{EmbeddedPair, EmbeddedRk, Tableau};
use super::test_systems::{oscillator_error, run, Kepler, Oscillator, Work};
use super::{AdaptiveConfig, DormandPrince54, Fehlberg45};
use crate::{Integrator, KernelError, Real};

/// Asserts the consistency conditions Σ_j a_ij = c_i, Σ b = 1, Σ e = 0 (Hairer I, II.1).
pub fn check_tableau(t: &Tableau) {
    for (row, c) in t.a.iter().zip(t.c).take(t.stages) {
        assert!((row.iter().sum::<f64>() - c).abs() < 1e-14);
    }
    assert!((t.b.iter().sum::<f64>() - 1.0).abs() < 1e-14);
    assert!(t.e.iter().sum::<f64>().abs() < 1e-14);
}

/// Observed order on the oscillator with steps forced fixed (h_max = h, tolerance never binding).
pub fn observed_fixed_step_order<P: EmbeddedPair>() -> f64 {
    let t_end = 4.0;
    let fixed = |steps: usize| {
        let h = t_end / steps as f64;
        let config = AdaptiveConfig::new(1e10, 1e10).with_step_bounds(0.0, h);
        oscillator_error(EmbeddedRk::<f64, P>::new(config), t_end, steps)
    };
    libm::log2(fixed(10) / fixed(20))
}

/// Tolerances of the Kepler test.
const RTOL: f64 = 1e-9;
const ATOL: f64 = 1e-9;

/// Kepler orbit, e = 0.6, one period 2π from perihelion in one call.
fn kepler_period<P: EmbeddedPair>() {
    let start = Kepler::perihelion::<f64>(0.6);
    let mut y = start;
    let mut integrator = EmbeddedRk::<f64, P>::new(AdaptiveConfig::new(RTOL, ATOL));
    let stats = run(&mut integrator, &mut Kepler, &mut y, 0.0, 2.0 * PI, 1).unwrap();
    let err = libm::sqrt(y.iter().zip(start).map(|(a, b)| (a - b) * (a - b)).sum::<f64>());
    // Reference: the orbit is periodic, y(2π) = y(0). Bound from the tolerances: each accepted
    // substep commits a local error of Euclidean size ≤ √4·(atol + rtol·max|y|), max|y| = 2
    // (perihelion speed); over N substeps, with the Kepler flow's linear error growth over one
    // period (factor ≤ 10 for e = 0.6; about 6 is observed), the global error is ≤ 10·N·2·(atol + 2·rtol).
    let bound = 10.0 * f64::from(stats.accepted) * 2.0 * (ATOL + 2.0 * RTOL);
    assert!(
        err < bound,
        "{}: error {err:e} > bound {bound:e}, {stats:?}",
        P::NAME
    );
    // Energy −1/(2a) = −1/2 is conserved by the exact flow.
    let energy = 0.5 * (y[2] * y[2] + y[3] * y[3]) - 1.0 / libm::sqrt(y[0] * y[0] + y[1] * y[1]);
    assert!((energy + 0.5).abs() < bound);
    assert!(stats.evaluations >= stats.accepted * 5);
}

/// Loose tolerance on the oscillator with the whole period as first trial: must reject.
fn loose_tolerance_rejects_and_meets_tolerance<P: EmbeddedPair>() {
    let (rtol, atol) = (1e-3, 1e-3);
    let mut sys = Oscillator::new(1.0);
    let mut y = [1.0, 0.0];
    let mut integrator = EmbeddedRk::<f64, P>::new(AdaptiveConfig::new(rtol, atol));
    let t_end = 2.0 * PI;
    let stats = run(&mut integrator, &mut sys, &mut y, 0.0, t_end, 1).unwrap();
    assert!(stats.rejected > 0, "{stats:?}");
    assert_eq!(sys.last_accept, Some(t_end));
    // Reference: exact x = cos t. The flow is an isometry of (x, v) for ω = 1, so local errors
    // (each ≤ √2·(atol + rtol·1) in Euclidean norm) add up without amplification.
    let bound = f64::from(stats.accepted) * libm::sqrt(2.0) * (atol + rtol);
    let err = sys.error(t_end, &y);
    assert!(err < bound, "{}: error {err:e} > bound {bound:e}", P::NAME);
}

/// A 1 kHz caller: after the first call each period is one accepted substep landing exactly on
/// t + h, and the proposed substep is kept (not shrunk to the period).
fn fixed_period_caller_reuses_h_next<P: EmbeddedPair>() {
    let mut sys = Oscillator::new(1.0);
    let mut y = [1.0, 0.0];
    let mut integrator = EmbeddedRk::<f64, P>::new(AdaptiveConfig::new(1e-6, 1e-6));
    let mut work = Work::<f64, 2>::new();
    let h = 1e-3;
    for i in 0..1000 {
        let t = i as f64 * h;
        let stats = integrator
            .step(&mut sys, t, h, &mut y, &mut work.stages())
            .unwrap();
        assert_eq!(sys.last_accept, Some(t + h));
        assert_eq!((stats.accepted, stats.rejected), (1, 0));
        assert!(integrator.h_next().unwrap() > h);
    }
    // A step that is not a multiple of h_next still lands exactly.
    let t = 1.0;
    integrator.set_h_next(0.07);
    integrator
        .step(&mut sys, t, 0.3, &mut y, &mut work.stages())
        .unwrap();
    assert_eq!(sys.last_accept, Some(t + 0.3));
    assert!(sys.error(1.3, &y) < 1e-6);
    integrator.reset();
    assert_eq!(integrator.h_next(), None);
}

/// Forced failures return the documented errors and restore `y` (and `h_next`).
fn forced_failures_restore_state<P: EmbeddedPair>() {
    let start = Kepler::perihelion::<f64>(0.6);
    let mut work = Work::<f64, 4>::new();

    let config = AdaptiveConfig::new(1e-10, 1e-10).with_max_substeps(5);
    let mut integrator = EmbeddedRk::<f64, P>::new(config);
    let mut y = start;
    let r = integrator.step(&mut Kepler, 0.0, 2.0 * PI, &mut y, &mut work.stages());
    assert!(
        matches!(r, Err(KernelError::TooManySubsteps { limit: 5, .. })),
        "{r:?}"
    );
    assert_eq!(y, start);
    assert_eq!(integrator.h_next(), None);

    let config = AdaptiveConfig::new(1e-10, 1e-10).with_step_bounds(0.05, f64::MAX);
    let mut integrator = EmbeddedRk::<f64, P>::new(config);
    let mut y = start;
    let r = integrator.step(&mut Kepler, 0.0, 2.0 * PI, &mut y, &mut work.stages());
    match r {
        Err(KernelError::StepSizeTooSmall { step, .. }) => assert!(step < 0.05),
        other => panic!("expected StepSizeTooSmall, got {other:?}"),
    }
    assert_eq!(y, start);
}

/// f32: the oscillator over one period meets a tolerance reachable in single precision.
fn works_in_f32<P: EmbeddedPair>() {
    let (rtol, atol) = (1e-4f32, 1e-4f32);
    let mut sys = Oscillator::new(1.0f32);
    let mut y = [1.0f32, 0.0];
    let mut integrator = EmbeddedRk::<f32, P>::new(AdaptiveConfig::new(rtol, atol));
    let t_end = 2.0 * core::f32::consts::PI;
    let stats = run(&mut integrator, &mut sys, &mut y, 0.0, t_end, 1).unwrap();
    // Reference: exact x = cos t; bound as in the loose-tolerance test, plus f32 rounding.
    let bound = f64::from(stats.accepted) * libm::sqrt(2.0) * f64::from(atol + rtol) + 1e-5;
    let err = sys.error(t_end, &y);
    assert!(err < bound, "{}: error {err:e} > bound {bound:e}", P::NAME);
    assert!(<f32 as Real>::is_finite(y[0]));
}

macro_rules! for_both_pairs {
    ($($name:ident),* $(,)?) => {
        mod rkf45 {
            $(#[test] fn $name() { super::$name::<super::Fehlberg45>(); })*
        }
        mod dopri45 {
            $(#[test] fn $name() { super::$name::<super::DormandPrince54>(); })*
        }
    };
}

for_both_pairs!(
    kepler_period,
    loose_tolerance_rejects_and_meets_tolerance,
    fixed_period_caller_reuses_h_next,
    forced_failures_restore_state,
    works_in_f32,
);
