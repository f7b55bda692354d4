//! Run-time selection of an integrator (scene files, firmware configuration).

use super::{AdaptiveConfig, Dopri45, Rk4, Rkf45, SemiImplicitEuler, VelocityVerlet};
use crate::{Integrator, KernelError, OdeSystem, Real, Stages, StepStats};

/// Any of the kernel's integrators, chosen at run time; steps by dispatch to the chosen one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Method<R> {
    /// Classical Runge–Kutta, see [`Rk4`].
    Rk4,
    /// Adaptive Runge–Kutta–Fehlberg 4(5), see [`Rkf45`].
    Rkf45(Rkf45<R>),
    /// Adaptive Dormand–Prince 5(4), see [`Dopri45`].
    Dopri45(Dopri45<R>),
    /// Symplectic Euler, see [`SemiImplicitEuler`].
    SemiImplicitEuler,
    /// Velocity Verlet, see [`VelocityVerlet`].
    VelocityVerlet,
}

/// The names accepted by [`Method::from_name`], in variant order.
pub const METHOD_NAMES: [&str; 5] = [
    "rk4",
    "rkf45",
    "dopri45",
    "semi-implicit-euler",
    "velocity-verlet",
];

impl<R: Real> Method<R> {
    /// Classical RK4.
    pub fn rk4() -> Self {
        Self::Rk4
    }

    /// Adaptive RKF45 with `config`.
    pub fn rkf45(config: AdaptiveConfig<R>) -> Self {
        Self::Rkf45(Rkf45::new(config))
    }

    /// Adaptive DOPRI45 with `config`.
    pub fn dopri45(config: AdaptiveConfig<R>) -> Self {
        Self::Dopri45(Dopri45::new(config))
    }

    /// Symplectic Euler.
    pub fn semi_implicit_euler() -> Self {
        Self::SemiImplicitEuler
    }

    /// Velocity Verlet.
    pub fn velocity_verlet() -> Self {
        Self::VelocityVerlet
    }

    /// The method called `name` (one of [`METHOD_NAMES`]); `config` is used by adaptive ones.
    pub fn from_name(name: &str, config: AdaptiveConfig<R>) -> Option<Self> {
        match name {
            "rk4" => Some(Self::rk4()),
            "rkf45" => Some(Self::rkf45(config)),
            "dopri45" => Some(Self::dopri45(config)),
            "semi-implicit-euler" => Some(Self::semi_implicit_euler()),
            "velocity-verlet" => Some(Self::velocity_verlet()),
            _ => None,
        }
    }

    /// The method's name, as accepted by [`Method::from_name`].
    pub fn name(&self) -> &'static str {
        match self {
            Self::Rk4 => "rk4",
            Self::Rkf45(m) => m.name(),
            Self::Dopri45(m) => m.name(),
            Self::SemiImplicitEuler => "semi-implicit-euler",
            Self::VelocityVerlet => "velocity-verlet",
        }
    }

    /// Whether the method controls its error with adaptive substeps.
    pub fn is_adaptive(&self) -> bool {
        matches!(self, Self::Rkf45(_) | Self::Dopri45(_))
    }

    /// Forgets an adaptive method's proposed substep (no effect on fixed-step methods).
    pub fn reset(&mut self) {
        match self {
            Self::Rkf45(m) => m.reset(),
            Self::Dopri45(m) => m.reset(),
            Self::Rk4 | Self::SemiImplicitEuler | Self::VelocityVerlet => {}
        }
    }
}

impl<R: Real> Integrator<R> for Method<R> {
    fn step<S: OdeSystem<R>>(
        &mut self,
        system: &mut S,
        t: R,
        h: R,
        y: &mut [R],
        stages: &mut Stages<'_, R>,
    ) -> Result<StepStats, KernelError> {
        match self {
            Self::Rk4 => Rk4.step(system, t, h, y, stages),
            Self::Rkf45(m) => m.step(system, t, h, y, stages),
            Self::Dopri45(m) => m.step(system, t, h, y, stages),
            Self::SemiImplicitEuler => SemiImplicitEuler.step(system, t, h, y, stages),
            Self::VelocityVerlet => VelocityVerlet.step(system, t, h, y, stages),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_systems::{Fault, Faulty, Oscillator, Work};
    use super::{AdaptiveConfig, Method, Rk4, VelocityVerlet, METHOD_NAMES};
    use crate::{Integrator, KernelError};

    /// One of each method.
    fn all() -> [Method<f64>; 5] {
        let config = AdaptiveConfig::new(1e-8, 1e-8);
        METHOD_NAMES.map(|name| Method::from_name(name, config).unwrap())
    }

    #[test]
    fn names_round_trip() {
        for (method, name) in all().iter().zip(METHOD_NAMES) {
            assert_eq!(method.name(), name);
            assert_eq!(method.is_adaptive(), name.ends_with("45"));
        }
        assert_eq!(Method::<f64>::from_name("euler", AdaptiveConfig::default()), None);
    }

    #[test]
    fn dispatch_gives_the_same_bits_as_the_direct_call() {
        // Reference: the concrete integrators themselves.
        let mut work = Work::<f64, 2>::new();
        let (mut a, mut b) = ([1.0, 0.0], [1.0, 0.0]);
        Method::rk4()
            .step(&mut Oscillator::new(2.0), 0.0, 0.1, &mut a, &mut work.stages())
            .unwrap();
        Rk4.step(&mut Oscillator::new(2.0), 0.0, 0.1, &mut b, &mut work.stages())
            .unwrap();
        assert_eq!(a, b);
        let (mut a, mut b) = ([1.0, 0.0], [1.0, 0.0]);
        Method::velocity_verlet()
            .step(&mut Oscillator::new(2.0), 0.0, 0.1, &mut a, &mut work.stages())
            .unwrap();
        VelocityVerlet
            .step(&mut Oscillator::new(2.0), 0.0, 0.1, &mut b, &mut work.stages())
            .unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn invalid_step_sizes_are_rejected() {
        // Reference: the `Integrator` contract (h must be positive and finite).
        let mut work = Work::<f64, 2>::new();
        for mut method in all() {
            for h in [0.0, -0.1, f64::NAN, f64::INFINITY] {
                let mut y = [1.0, 0.0];
                let r = method.step(&mut Oscillator::new(1.0), 0.0, h, &mut y, &mut work.stages());
                assert_eq!(r, Err(KernelError::InvalidStepSize), "{} h = {h}", method.name());
                assert_eq!(y, [1.0, 0.0]);
            }
        }
    }

    #[test]
    fn failing_derivative_is_an_error_and_restores_y() {
        // Reference: the `Integrator` contract (no panic; y at t on error).
        let mut work = Work::<f64, 2>::new();
        for mut method in all() {
            for fault in [Fault::Nan, Fault::Error] {
                let mut y = [0.5, -0.25];
                let r = method.step(&mut Faulty(fault), 0.0, 0.1, &mut y, &mut work.stages());
                assert!(r.is_err(), "{}", method.name());
                assert_eq!(y, [0.5, -0.25], "{}", method.name());
            }
        }
    }

    #[test]
    fn short_buffers_are_an_error_and_long_ones_are_used_up_to_state_len() {
        // Reference: the `Stages` contract (buffers at least state_len long).
        let mut short = Work::<f64, 1>::new();
        let mut work = Work::<f64, 3>::new();
        for mut method in all() {
            let mut y = [1.0, 0.0, 7.0];
            let r = method.step(&mut Oscillator::new(1.0), 0.0, 0.1, &mut y, &mut short.stages());
            assert!(r.is_err(), "{}", method.name());
            assert_eq!(y, [1.0, 0.0, 7.0]);
            let r = method.step(
                &mut Oscillator::new(1.0),
                0.0,
                0.1,
                &mut y[..1],
                &mut work.stages(),
            );
            assert!(r.is_err(), "{}", method.name());
            method
                .step(&mut Oscillator::new(1.0), 0.0, 0.1, &mut y, &mut work.stages())
                .unwrap();
            assert_eq!(y[2], 7.0);
            assert!((y[0] - libm::cos(0.1)).abs() < 0.01, "{}", method.name());
            method.reset();
        }
    }
}
