//! Adaptive embedded explicit Runge–Kutta pairs, all driven by one tableau-based implementation
//! (Hairer, Nørsett, Wanner, *Solving ODEs I*, II.4 "Practical error estimation and step size
//! selection" and II.5).
//!
//! A pair is a zero-sized marker type carrying its [`Tableau`] as a constant, so one stepping
//! routine serves Fehlberg 4(5) and Dormand–Prince 5(4) without duplicated logic.
//!
//! No FSAL ("first same as last") reuse of the last stage of Dormand–Prince: the system's
//! `accept_step` may move `y` after acceptance (quaternion normalisation, constraint projection),
//! which invalidates that stage. Each accepted substep therefore costs all stages. Only the first
//! slope `f(t_n, y_n)` is kept across a *rejected* trial, where `y_n` has not moved.

use core::cmp::Ordering;
use core::marker::PhantomData;

use super::adaptive_config::AdaptiveConfig;
use super::common::{copy, guarded_step, MALFORMED};
use crate::{Integrator, KernelError, OdeSystem, Real, Stages, StepStats, STAGE_BUFFERS};

/// Largest number of stages of a pair: two of the stage buffers hold `y(t)` and the substep start.
pub const MAX_STAGES: usize = STAGE_BUFFERS - 2;

/// Exponent of the step-size factor, −1/(q+1) with q = 4 the lower order of both pairs.
const ERROR_EXPONENT: f64 = -0.2;

/// The last substep may exceed the proposed one by 1 % to land on `t + h` rather than leave a
/// sliver substep behind (the same rule as Hairer's DOPRI5 code).
const STRETCH: f64 = 1.01;

/// Butcher tableau of an explicit embedded pair. Coefficients are `f64` (written as exact
/// fractions) and converted with `R::from_f64`, so `f32` and `f64` runs share one source.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tableau {
    /// Number of stages used (at most [`MAX_STAGES`]).
    pub stages: usize,
    /// Nodes `c_i`.
    pub c: [f64; MAX_STAGES],
    /// Stage matrix `a_ij`, strictly lower triangular.
    pub a: [[f64; MAX_STAGES]; MAX_STAGES],
    /// Weights `b_i` of the propagated solution.
    pub b: [f64; MAX_STAGES],
    /// Error weights `e_i = b_i − b̂_i` (propagated minus embedded solution).
    pub e: [f64; MAX_STAGES],
}

/// An embedded pair: its coefficients and its name, fixed at compile time.
pub trait EmbeddedPair {
    /// The coefficients.
    const TABLEAU: Tableau;
    /// Short name, as used in scene files.
    const NAME: &'static str;
}

/// Adaptive embedded Runge–Kutta integrator for the pair `P` (see [`super::Rkf45`],
/// [`super::Dopri45`]).
///
/// Stage buffers: `k[0]` = copy of `y(t)` (restored on error), `k[1]` = start of the current
/// substep, `k[2..2 + stages]` = the slopes; `y` itself holds the stage arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbeddedRk<R, P> {
    config: AdaptiveConfig<R>,
    h_next: Option<R>,
    pair: PhantomData<P>,
}

impl<R: Real, P: EmbeddedPair> EmbeddedRk<R, P> {
    /// A new integrator; the first substep tries the whole requested step.
    pub fn new(config: AdaptiveConfig<R>) -> Self {
        Self {
            config,
            h_next: None,
            pair: PhantomData,
        }
    }

    /// Name of the pair.
    pub fn name(&self) -> &'static str {
        P::NAME
    }

    /// The settings.
    pub fn config(&self) -> &AdaptiveConfig<R> {
        &self.config
    }

    /// The settings, to change between steps.
    pub fn config_mut(&mut self) -> &mut AdaptiveConfig<R> {
        &mut self.config
    }

    /// The substep size the controller proposes for the next call (`None` before the first).
    pub fn h_next(&self) -> Option<R> {
        self.h_next
    }

    /// Seeds the size of the next substep (e.g. from a previous run).
    pub fn set_h_next(&mut self, h: R) {
        self.h_next = Some(h);
    }

    /// Forgets the proposed substep: the next call starts by trying its whole step.
    pub fn reset(&mut self) {
        self.h_next = None;
    }
}

impl<R: Real, P: EmbeddedPair> Integrator<R> for EmbeddedRk<R, P> {
    /// Advances `y` by substeps that land exactly on `t + h`. On error `y` and the proposed
    /// substep are put back as they were before the call.
    fn step<S: OdeSystem<R>>(
        &mut self,
        system: &mut S,
        t: R,
        h: R,
        y: &mut [R],
        stages: &mut Stages<'_, R>,
    ) -> Result<StepStats, KernelError> {
        let s = P::TABLEAU.stages.min(MAX_STAGES);
        let h_next = self.h_next;
        let result =
            guarded_step::<R, S, STAGE_BUFFERS>(system, h, y, stages, 2 + s, |system, y, buffers, _| {
                let [_, yn, slopes @ ..] = buffers;
                let ks = slopes.get_mut(..s).ok_or(MALFORMED)?;
                copy(yn, y);
                self.advance(system, t, h, y, yn, ks)
            });
        if result.is_err() {
            self.h_next = h_next;
        }
        result
    }
}

impl<R: Real, P: EmbeddedPair> EmbeddedRk<R, P> {
    /// The substep loop: `yn` holds the last accepted state, `y` the trial state.
    fn advance<S: OdeSystem<R>>(
        &mut self,
        system: &mut S,
        t: R,
        h: R,
        y: &mut [R],
        yn: &mut [R],
        ks: &mut [&mut [R]],
    ) -> Result<StepStats, KernelError> {
        let cfg = self.config;
        let co = Coeffs::<R>::of(&P::TABLEAU);
        let exponent = R::from_f64(ERROR_EXPONENT);
        let t_end = t + h;
        if t_end.partial_cmp(&t) != Some(Ordering::Greater) {
            // h is below the resolution of t: no substep could advance time.
            return Err(too_small(t, h));
        }
        let mut stats = StepStats::default();
        let mut tc = t;
        let mut proposed = self.h_next.unwrap_or(h.max(cfg.h_min));
        let mut slope1_valid = false;
        let mut after_rejection = false;
        let mut trials = 0u32;
        loop {
            if trials >= cfg.max_substeps {
                return Err(KernelError::TooManySubsteps {
                    limit: cfg.max_substeps,
                    time: tc.to_f64(),
                });
            }
            trials += 1;
            proposed = proposed.min(cfg.h_max);
            // Written as `!(…)` so that a NaN proposal fails too.
            if !(proposed >= cfg.h_min && proposed > R::ZERO) {
                return Err(too_small(tc, proposed));
            }
            let remaining = t_end - tc;
            let last = proposed * R::from_f64(STRETCH) >= remaining;
            let hs = if last { remaining } else { proposed };
            // The last substep lands on t_end exactly, not on tc + hs (which may round).
            let t_new = if last { t_end } else { tc + hs };
            if t_new.partial_cmp(&tc) != Some(Ordering::Greater) {
                return Err(too_small(tc, hs));
            }

            if !slope1_valid {
                if let Some(k1) = ks.first_mut() {
                    system.derivative(tc, yn, k1)?;
                    stats.evaluations += 1;
                }
                slope1_valid = true;
            }
            for (j, (row, cj)) in co.a.iter().zip(co.c.iter()).enumerate().skip(1) {
                let Some((done, [kj, ..])) = ks.split_at_mut_checked(j) else {
                    break;
                };
                stage_state(y, yn, hs, row, done);
                system.derivative(tc + *cj * hs, y, kj)?;
                stats.evaluations += 1;
            }
            let err = solution_and_error(y, yn, hs, &co, ks, &cfg);

            if err <= R::ONE {
                stats.projection_iterations += system.accept_step(t_new, y)?;
                stats.accepted += 1;
                copy(yn, y);
                tc = t_new;
                slope1_valid = false;
                let ideal = if err > R::ZERO {
                    cfg.safety * err.powf(exponent)
                } else {
                    R::MAX
                };
                // No growth right after a rejection (Hairer's DOPRI5): it just failed larger.
                let fac_max = if after_rejection {
                    cfg.fac_max.min(R::ONE)
                } else {
                    cfg.fac_max
                };
                let next = hs * clamp(ideal, cfg.fac_min, fac_max);
                after_rejection = false;
                if last {
                    // A substep shortened to land on t + h says nothing against the proposed size:
                    // keep it for the next call (a fixed-period caller reuses it) unless the error
                    // estimate asks for less.
                    let keep = proposed.min(hs * ideal);
                    self.h_next = Some(next.max(keep).min(cfg.h_max));
                    return Ok(stats);
                }
                proposed = next;
            } else {
                stats.rejected += 1;
                after_rejection = true;
                // A NaN/inf estimate (a blown-up stage) carries no size information: cut by fac_min.
                let fac = if err.is_finite() {
                    clamp(cfg.safety * err.powf(exponent), cfg.fac_min, R::ONE)
                } else {
                    cfg.fac_min
                };
                proposed = hs * fac;
            }
        }
    }
}

/// The tableau converted once per call to the working precision.
struct Coeffs<R> {
    c: [R; MAX_STAGES],
    a: [[R; MAX_STAGES]; MAX_STAGES],
    b: [R; MAX_STAGES],
    e: [R; MAX_STAGES],
}

impl<R: Real> Coeffs<R> {
    /// Converts `t` with `R::from_f64`.
    fn of(t: &Tableau) -> Self {
        Self {
            c: t.c.map(R::from_f64),
            a: t.a.map(|row| row.map(R::from_f64)),
            b: t.b.map(R::from_f64),
            e: t.e.map(R::from_f64),
        }
    }
}

/// `StepSizeTooSmall` at time `t` for step `h`.
fn too_small<R: Real>(t: R, h: R) -> KernelError {
    KernelError::StepSizeTooSmall {
        time: t.to_f64(),
        step: h.to_f64(),
    }
}

/// `x` limited to `[lo, hi]`; a NaN `x` gives `lo`.
fn clamp<R: Real>(x: R, lo: R, hi: R) -> R {
    x.max(lo).min(hi)
}

/// `Σ_l w_l · k_l[i]` over the given slopes, skipping zero weights.
fn weighted<R: Real>(w: &[R], ks: &[&mut [R]], i: usize) -> R {
    let mut acc = R::ZERO;
    for (wl, k) in w.iter().zip(ks) {
        if *wl != R::ZERO {
            acc += *wl * k.get(i).copied().unwrap_or(R::ZERO);
        }
    }
    acc
}

/// Stage argument `y ← y_n + h·Σ_{l<j} a_jl k_l` (`done` holds the slopes `k_1 … k_{j−1}`).
fn stage_state<R: Real>(y: &mut [R], yn: &[R], h: R, row: &[R], done: &[&mut [R]]) {
    for (i, (yi, yni)) in y.iter_mut().zip(yn).enumerate() {
        *yi = *yni + h * weighted(row, done, i);
    }
}

/// Writes the propagated solution into `y` and returns Hairer's error norm
/// `sqrt(1/n · Σ (err_i / (atol + rtol·max(|y_n,i|, |y_i|)))²)` of `err = h·Σ e_l k_l`.
fn solution_and_error<R: Real>(
    y: &mut [R],
    yn: &[R],
    h: R,
    co: &Coeffs<R>,
    ks: &[&mut [R]],
    cfg: &AdaptiveConfig<R>,
) -> R {
    let mut sum = R::ZERO;
    for (i, (yi, yni)) in y.iter_mut().zip(yn).enumerate() {
        let y1 = *yni + h * weighted(&co.b, ks, i);
        let err = h * weighted(&co.e, ks, i);
        let scale = cfg.atol + cfg.rtol * yni.abs().max(y1.abs());
        sum += (err / scale).squared();
        *yi = y1;
    }
    if yn.is_empty() {
        R::ZERO
    } else {
        (sum / R::from_usize(yn.len())).sqrt()
    }
}
