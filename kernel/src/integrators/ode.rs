//! The interface between integrators and the systems they advance.
//!
//! A system's state is a flat slice `y = [positions | velocities]`. Integrators only see
//! slices and stage buffers: the same RK4 advances a rigid multibody model and an ANCF body.

use crate::{KernelError, Real};

/// A first-order ODE `ẏ = f(t, y)` whose state splits into positions and velocities.
pub trait OdeSystem<R: Real> {
    /// Length of the state `y`.
    fn state_len(&self) -> usize;
    /// Length of the position part `y[..position_len]`; velocities follow.
    fn position_len(&self) -> usize;
    /// Writes `ẏ = f(t, y)` into `dydt` (same length as `y`).
    fn derivative(&mut self, t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError>;
    /// Advances the positions of `y` by `h` with the velocities held in `y` (exact on the
    /// rotation group for quaternions). Used by the split (symplectic) integrators.
    fn advance_positions(&mut self, y: &mut [R], h: R);
    /// Forms a stage argument `y ← y0 + dt·k` (`y0` the state at the start of the step). A
    /// system may add what its state carries beyond `y0` (see [`OdeSystem::finish_step`]).
    fn stage_argument(&mut self, y: &mut [R], y0: &[R], dt: R, k: &[R]) {
        stage_argument(y, y0, dt, k);
    }
    /// Ends a step: `y ← y0 + increment` (the increment as the method formed it). A system may
    /// sum more carefully (a flexible body in f32 carries the rounding of its displacements);
    /// it may overwrite `increment`, a scratch buffer. Called before [`OdeSystem::accept_step`].
    /// [`Rk4`](super::Rk4) calls this and [`OdeSystem::stage_argument`]; the other methods
    /// sum plainly (a flexible body's carry then stays as it is, at most half an f32 ulp).
    fn finish_step(&mut self, y: &mut [R], y0: &[R], increment: &mut [R]) {
        add_increment(y, y0, increment);
    }
    /// Called after every accepted step: normalises quaternions, projects onto the constraint
    /// manifold, checks for NaN. Returns the number of projection iterations performed.
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError>;
}

/// `y ← y0 + dt·k` componentwise: the plain stage argument. Not inlined: one copy per scalar
/// type, not one per system and call site (flash on a microcontroller).
#[inline(never)]
pub(crate) fn stage_argument<R: Real>(y: &mut [R], y0: &[R], dt: R, k: &[R]) {
    for ((yi, y0i), ki) in y.iter_mut().zip(y0).zip(k) {
        *yi = *y0i + dt * *ki;
    }
}

/// `y ← y0 + increment` componentwise: the plain end of a step. Not inlined (as above).
#[inline(never)]
pub(crate) fn add_increment<R: Real>(y: &mut [R], y0: &[R], increment: &[R]) {
    for ((yi, y0i), d) in y.iter_mut().zip(y0).zip(increment) {
        *yi = *y0i + *d;
    }
}

/// Counters of one call to [`Integrator::step`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct StepStats {
    /// Accepted (sub)steps.
    pub accepted: u32,
    /// Rejected trial steps (adaptive methods).
    pub rejected: u32,
    /// Evaluations of `f(t, y)`.
    pub evaluations: u32,
    /// Newton iterations spent in projection.
    pub projection_iterations: u32,
}

impl StepStats {
    /// Adds the counters of `o` to `self`.
    pub fn accumulate(&mut self, o: &StepStats) {
        self.accepted += o.accepted;
        self.rejected += o.rejected;
        self.evaluations += o.evaluations;
        self.projection_iterations += o.projection_iterations;
    }
}

/// Simulation time (a compensated sum of the steps) and step counters.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Clock<R> {
    /// Current time.
    pub time: R,
    /// Rounding error carried by the compensated sum.
    carry: R,
    /// Steps taken.
    pub steps: u64,
    /// Counters of the last step.
    pub last: StepStats,
    /// Counters summed over all steps.
    pub total: StepStats,
}

impl<R: Real> Clock<R> {
    /// t = 0, no steps.
    pub fn new() -> Self {
        Self {
            time: R::ZERO,
            carry: R::ZERO,
            steps: 0,
            last: StepStats::default(),
            total: StepStats::default(),
        }
    }

    /// Moves the clock to `time` (counters kept): for host integrators that evaluate a model at
    /// trial times.
    pub fn set_time(&mut self, time: R) {
        self.time = time;
        self.carry = R::ZERO;
    }

    /// The time and the rounding error its compensated sum carries: what [`Clock::resume`]
    /// needs to go on exactly as this clock would (a saved and restored run, an FMU state).
    pub fn reading(&self) -> [R; 2] {
        [self.time, self.carry]
    }

    /// Moves the clock to a [`Clock::reading`] (counters kept): the next steps give the times
    /// the clock that was read would have given, bit for bit.
    pub fn resume(&mut self, [time, carry]: [R; 2]) {
        self.time = time;
        self.carry = carry;
    }

    /// Advances `y` (the state of `system`) by `dt` with `integrator` from the current time and
    /// records the step: the one stepping sequence of rigid, flexible and coupled models.
    pub fn step<S: OdeSystem<R>, I: Integrator<R>>(
        &mut self,
        integrator: &mut I,
        system: &mut S,
        y: &mut [R],
        stages: &mut Stages<'_, R>,
        dt: R,
    ) -> Result<StepStats, KernelError> {
        let stats = integrator.step(system, self.time, dt, y, stages)?;
        self.advance(dt, stats);
        Ok(stats)
    }

    /// Records an accepted step of `dt`. Kahan-compensated: 10⁶ steps of 1e-3 s land on 1000 s,
    /// not 999.9999999998.
    fn advance(&mut self, dt: R, stats: StepStats) {
        let increment = dt - self.carry;
        let next = self.time + increment;
        self.carry = (next - self.time) - increment;
        self.time = next;
        self.steps += 1;
        self.last = stats;
        self.total.accumulate(&stats);
    }
}

/// Number of state-sized work buffers an integrator may use.
pub const STAGE_BUFFERS: usize = 9;

/// State-sized scratch buffers lent to an integrator (each at least `state_len` long).
pub struct Stages<'a, R> {
    /// The buffers; integrators document which they use.
    pub k: [&'a mut [R]; STAGE_BUFFERS],
}

/// A time-stepping method. `step` advances `y` from `t` to `t + h`: a fixed-step method takes
/// one step; an adaptive method takes as many substeps (bounded) as its error control needs.
/// A step never allocates and never panics; on error `y` holds the state at `t`.
pub trait Integrator<R: Real> {
    /// Advances `y` from `t` to `t + h`.
    fn step<S: OdeSystem<R>>(
        &mut self,
        system: &mut S,
        t: R,
        h: R,
        y: &mut [R],
        stages: &mut Stages<'_, R>,
    ) -> Result<StepStats, KernelError>;
}
