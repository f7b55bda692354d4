//! Small test systems with known solutions, and work buffers for the integrator tests.

use crate::{Integrator, Item, KernelError, OdeSystem, Real, Stages, StepStats, STAGE_BUFFERS};

/// Checks that every component is finite, as a real system's `accept_step` does.
fn check_finite<R: Real>(t: R, y: &[R]) -> Result<u32, KernelError> {
    if y.iter().all(|x| x.is_finite()) {
        Ok(0)
    } else {
        Err(KernelError::NonFinite {
            item: Item::Body(0),
            time: t.to_f64(),
        })
    }
}

/// Harmonic oscillator ẍ = −ω²x, state `[x, v]`; exact solution from x(0)=1, v(0)=0 is
/// x = cos ωt, v = −ω sin ωt.
pub struct Oscillator<R> {
    /// Angular frequency.
    pub omega: R,
    /// Time passed to the last `accept_step`.
    pub last_accept: Option<R>,
}

impl<R: Real> Oscillator<R> {
    /// Oscillator with angular frequency `omega`.
    pub fn new(omega: R) -> Self {
        Self {
            omega,
            last_accept: None,
        }
    }

    /// Energy (v² + ω²x²)/2.
    pub fn energy(&self, y: &[R]) -> R {
        R::HALF * (y[1] * y[1] + self.omega * self.omega * y[0] * y[0])
    }

    /// Euclidean distance of `y` from the exact solution at `t` (x(0)=1, v(0)=0).
    pub fn error(&self, t: R, y: &[R]) -> f64 {
        let w = self.omega.to_f64();
        let t = t.to_f64();
        let dx = y[0].to_f64() - libm::cos(w * t);
        let dv = y[1].to_f64() + w * libm::sin(w * t);
        libm::sqrt(dx * dx + dv * dv)
    }
}

impl<R: Real> OdeSystem<R> for Oscillator<R> {
    fn state_len(&self) -> usize {
        2
    }
    fn position_len(&self) -> usize {
        1
    }
    fn derivative(&mut self, _t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        dydt[0] = y[1];
        dydt[1] = -self.omega * self.omega * y[0];
        Ok(())
    }
    fn advance_positions(&mut self, y: &mut [R], h: R) {
        y[0] += h * y[1];
    }
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        self.last_accept = Some(t);
        check_finite(t, y)
    }
}

/// Kepler problem with GM = 1, state `[x, y, vx, vy]`.
pub struct Kepler;

impl Kepler {
    /// Start at perihelion of the orbit with semi-major axis 1 (period 2π) and eccentricity
    /// `e`: r = 1 − e, v = sqrt((1 + e)/(1 − e)) (vis-viva).
    pub fn perihelion<R: Real>(e: f64) -> [R; 4] {
        let v = libm::sqrt((1.0 + e) / (1.0 - e));
        [R::from_f64(1.0 - e), R::ZERO, R::ZERO, R::from_f64(v)]
    }
}

impl<R: Real> OdeSystem<R> for Kepler {
    fn state_len(&self) -> usize {
        4
    }
    fn position_len(&self) -> usize {
        2
    }
    fn derivative(&mut self, _t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        let r2 = y[0] * y[0] + y[1] * y[1];
        let r3 = r2 * r2.sqrt();
        dydt[0] = y[2];
        dydt[1] = y[3];
        dydt[2] = -y[0] / r3;
        dydt[3] = -y[1] / r3;
        Ok(())
    }
    fn advance_positions(&mut self, y: &mut [R], h: R) {
        y[0] += h * y[2];
        y[1] += h * y[3];
    }
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        check_finite(t, y)
    }
}

/// How [`Faulty`] fails.
#[derive(Clone, Copy)]
pub enum Fault {
    /// The derivative is NaN.
    Nan,
    /// The derivative returns an error.
    Error,
}

/// A two-component system whose derivative fails.
pub struct Faulty(pub Fault);

impl OdeSystem<f64> for Faulty {
    fn state_len(&self) -> usize {
        2
    }
    fn position_len(&self) -> usize {
        1
    }
    fn derivative(&mut self, t: f64, _y: &[f64], dydt: &mut [f64]) -> Result<(), KernelError> {
        match self.0 {
            Fault::Nan => {
                dydt.fill(f64::NAN);
                Ok(())
            }
            Fault::Error => Err(KernelError::NonFinite {
                item: Item::Force(0),
                time: t,
            }),
        }
    }
    fn advance_positions(&mut self, y: &mut [f64], h: f64) {
        y[0] += h * y[1];
    }
    fn accept_step(&mut self, t: f64, y: &mut [f64]) -> Result<u32, KernelError> {
        check_finite(t, y)
    }
}

/// Owned stage buffers for a state of length `N`.
pub struct Work<R, const N: usize> {
    bufs: [[R; N]; STAGE_BUFFERS],
}

impl<R: Real, const N: usize> Work<R, N> {
    /// Zeroed buffers.
    pub fn new() -> Self {
        Self {
            bufs: [[R::ZERO; N]; STAGE_BUFFERS],
        }
    }

    /// The buffers lent as [`Stages`].
    pub fn stages(&mut self) -> Stages<'_, R> {
        Stages {
            k: self.bufs.each_mut().map(|b| b.as_mut_slice()),
        }
    }
}

/// Takes `steps` steps of size `h` from `t0`, returning the summed statistics.
pub fn run<R: Real, I: Integrator<R>, S: OdeSystem<R>, const N: usize>(
    integrator: &mut I,
    system: &mut S,
    y: &mut [R; N],
    t0: R,
    h: R,
    steps: usize,
) -> Result<StepStats, KernelError> {
    let mut work = Work::<R, N>::new();
    let mut stats = StepStats::default();
    for i in 0..steps {
        let t = t0 + R::from_usize(i) * h;
        stats.accumulate(&integrator.step(system, t, h, y, &mut work.stages())?);
    }
    Ok(stats)
}

/// Oscillator (ω = 1) error at `t_end` after `steps` fixed steps of `integrator`.
pub fn oscillator_error<I: Integrator<f64>>(mut integrator: I, t_end: f64, steps: usize) -> f64 {
    let mut sys = Oscillator::new(1.0);
    let mut y = [1.0, 0.0];
    let h = t_end / steps as f64;
    run(&mut integrator, &mut sys, &mut y, 0.0, h, steps).expect("oscillator step");
    sys.error(t_end, &y)
}

/// Observed global order log₂(e(h)/e(h/2)) on the oscillator over `[0, t_end]`.
pub fn observed_order<I: Integrator<f64> + Clone>(integrator: I, t_end: f64, steps: usize) -> f64 {
    let coarse = oscillator_error(integrator.clone(), t_end, steps);
    let fine = oscillator_error(integrator, t_end, 2 * steps);
    libm::log2(coarse / fine)
}
