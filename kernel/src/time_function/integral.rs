//! The integrand of [`TimeFunction::Integral`]: every form but an integral, each with its
//! integral from 0 in closed form (no quadrature, so no drift with time).

use super::{basic, CubicTable, Piecewise, TimeFunction, TimeValue, TABLE_POINTS};
use crate::{BuildError, Item, Real};

/// A rate df/dt: the forms of [`TimeFunction`] other than `Integral`, with the same meaning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate<R> {
    /// As [`TimeFunction::Constant`].
    Constant(R),
    /// As [`TimeFunction::Ramp`].
    Ramp {
        /// Time at which the ramp starts.
        start: R,
        /// Value before the start.
        initial: R,
        /// Rate of change after the start.
        slope: R,
    },
    /// As [`TimeFunction::Sine`].
    Sine {
        /// Mean value.
        offset: R,
        /// Amplitude.
        amplitude: R,
        /// Angular frequency (rad/s).
        omega: R,
        /// Phase (rad).
        phase: R,
    },
    /// As [`TimeFunction::Table`].
    Table {
        /// The points, sorted by strictly increasing time; only `len` are used.
        points: [(R, R); TABLE_POINTS],
        /// Number of points used (1..=TABLE_POINTS).
        len: usize,
    },
    /// As [`TimeFunction::Cubic`].
    Cubic(CubicTable<R>),
    /// As [`TimeFunction::Piecewise`].
    Piecewise(Piecewise<R>),
}

impl<R: Real> Rate<R> {
    /// The rate form of `f` (None for an integral).
    pub fn of(f: &TimeFunction<R>) -> Option<Self> {
        Some(match *f {
            TimeFunction::Constant(v) => Self::Constant(v),
            TimeFunction::Ramp {
                start,
                initial,
                slope,
            } => Self::Ramp {
                start,
                initial,
                slope,
            },
            TimeFunction::Sine {
                offset,
                amplitude,
                omega,
                phase,
            } => Self::Sine {
                offset,
                amplitude,
                omega,
                phase,
            },
            TimeFunction::Table { points, len } => Self::Table { points, len },
            TimeFunction::Cubic(c) => Self::Cubic(c),
            TimeFunction::Piecewise(p) => Self::Piecewise(p),
            TimeFunction::Integral { .. } => return None,
        })
    }

    /// The same form as a [`TimeFunction`].
    pub fn function(&self) -> TimeFunction<R> {
        match *self {
            Self::Constant(v) => TimeFunction::Constant(v),
            Self::Ramp {
                start,
                initial,
                slope,
            } => TimeFunction::Ramp {
                start,
                initial,
                slope,
            },
            Self::Sine {
                offset,
                amplitude,
                omega,
                phase,
            } => TimeFunction::Sine {
                offset,
                amplitude,
                omega,
                phase,
            },
            Self::Table { points, len } => TimeFunction::Table { points, len },
            Self::Cubic(c) => TimeFunction::Cubic(c),
            Self::Piecewise(p) => TimeFunction::Piecewise(p),
        }
    }

    /// Checks parameters as [`TimeFunction::validate`] does.
    pub fn validate(&self, item: Item) -> Result<(), BuildError> {
        self.function().validate(item)
    }

    /// The rate, its derivative and second derivative at `t`.
    pub fn eval(&self, t: R) -> TimeValue<R> {
        match self {
            Self::Constant(v) => basic::constant(*v),
            Self::Ramp {
                start,
                initial,
                slope,
            } => basic::ramp(*start, *initial, *slope, t),
            Self::Sine {
                offset,
                amplitude,
                omega,
                phase,
            } => basic::sine(*offset, *amplitude, *omega, *phase, t),
            Self::Table { points, len } => basic::interpolate(&points[..(*len).min(TABLE_POINTS)], t),
            Self::Cubic(c) => c.eval(t),
            Self::Piecewise(p) => p.eval(t),
        }
    }

    /// ∫₀ᵗ of the rate, in closed form.
    pub fn integral(&self, t: R) -> R {
        match self {
            Self::Constant(v) => *v * t,
            Self::Ramp {
                start,
                initial,
                slope,
            } => basic::ramp_integral(*start, *initial, *slope, t),
            Self::Sine {
                offset,
                amplitude,
                omega,
                phase,
            } => basic::sine_integral(*offset, *amplitude, *omega, *phase, t),
            Self::Table { points, len } => basic::table_integral(&points[..(*len).min(TABLE_POINTS)], t),
            Self::Cubic(c) => c.integral(t),
            Self::Piecewise(p) => p.integral(t),
        }
    }
}
