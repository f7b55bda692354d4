//! Prescribed functions of time for driving constraints and applied loads (allocation-free).
//!
//! Every function is `Copy` data of a fixed size (no allocation, no recursion) and gives its
//! value with exact first and second derivatives ([`TimeValue`]), which driving constraints
//! need for Φ_t and γ. The forms:
//!
//! - [`TimeFunction::Constant`], [`TimeFunction::Ramp`], [`TimeFunction::Sine`] and the
//!   piecewise-linear [`TimeFunction::Table`];
//! - [`TimeFunction::Cubic`]: a piecewise cubic Hermite table ([`CubicTable`]), C1, with the
//!   slopes given or set by the not-a-knot spline or the monotone (PCHIP) rule;
//! - [`TimeFunction::Piecewise`]: up to [`PIECES`] pieces, each a cubic polynomial plus one
//!   harmonic term ([`Piecewise`], [`Piece`]), enough to write the Kane–Ryan–Banerjee spin-up
//!   profile exactly ([`TimeFunction::smooth_ramp`]);
//! - [`TimeFunction::Integral`]: θ₀ + ∫₀ᵗ ω(s) ds of any other form ([`Rate`]), in closed form
//!   (no quadrature): a velocity drive is the position drive of the integral of its rate, so
//!   the constraint stays holonomic.

mod basic;
mod cubic;
mod integral;
mod piecewise;
#[cfg(test)]
mod tests;

pub use cubic::CubicTable;
pub use integral::Rate;
pub use piecewise::{Piece, Piecewise, PIECES};

use crate::{BuildError, Capacity, Item, Real};

/// Most points a piecewise-linear or cubic table can hold (stored inline: no allocation).
pub const TABLE_POINTS: usize = 16;

/// A scalar function of time f(t), with its first and second derivatives available.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeFunction<R> {
    /// f = value.
    Constant(R),
    /// f = initial for t < start, then initial + slope·(t − start).
    Ramp {
        /// Time at which the ramp starts.
        start: R,
        /// Value before the start.
        initial: R,
        /// Rate of change after the start.
        slope: R,
    },
    /// f = offset + amplitude·sin(omega·t + phase).
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
    /// Piecewise-linear interpolation of (t, f) points, held constant outside the table.
    Table {
        /// The points, sorted by strictly increasing time; only `len` are used.
        points: [(R, R); TABLE_POINTS],
        /// Number of points used (1..=TABLE_POINTS).
        len: usize,
    },
    /// Piecewise cubic Hermite interpolation of (t, f, slope) points (C1), continued along the
    /// end tangents outside the table.
    Cubic(CubicTable<R>),
    /// Pieces of a cubic polynomial plus a harmonic term, held before the first piece.
    Piecewise(Piecewise<R>),
    /// f = initial + ∫₀ᵗ rate(s) ds in closed form: the position of a velocity drive.
    Integral {
        /// f(0).
        initial: R,
        /// The integrand: df/dt.
        rate: Rate<R>,
    },
}

/// A function value with its time derivatives.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeValue<R> {
    /// f(t).
    pub value: R,
    /// df/dt.
    pub rate: R,
    /// d²f/dt² (zero almost everywhere for ramps and tables).
    pub accel: R,
}

impl<R: Real> TimeFunction<R> {
    /// A piecewise-linear table from (t, f) points sorted by increasing t.
    pub fn table(points: &[(R, R)]) -> Result<Self, BuildError> {
        let mut stored = [(R::ZERO, R::ZERO); TABLE_POINTS];
        if points.len() > TABLE_POINTS {
            return Err(BuildError::CapacityExceeded {
                capacity: Capacity::TablePoints,
                needed: points.len(),
                available: TABLE_POINTS,
            });
        }
        for (slot, p) in stored.iter_mut().zip(points) {
            *slot = *p;
        }
        Ok(Self::Table {
            points: stored,
            len: points.len(),
        })
    }

    /// A cubic Hermite table through (t, f) points with the slopes df/dt given at each point.
    pub fn hermite(points: &[(R, R)], slopes: &[R]) -> Result<Self, BuildError> {
        CubicTable::hermite(points, slopes).map(Self::Cubic)
    }

    /// A not-a-knot cubic spline through (t, f) points (C2; reproduces any cubic exactly).
    pub fn spline(points: &[(R, R)]) -> Result<Self, BuildError> {
        CubicTable::spline(points).map(Self::Cubic)
    }

    /// A monotone (PCHIP, Fritsch–Butland) cubic through (t, f) points: no overshoot.
    pub fn monotone(points: &[(R, R)]) -> Result<Self, BuildError> {
        CubicTable::monotone(points).map(Self::Cubic)
    }

    /// A piecewise function from pieces sorted by strictly increasing start.
    pub fn piecewise(pieces: &[Piece<R>]) -> Result<Self, BuildError> {
        Piecewise::new(pieces).map(Self::Piecewise)
    }

    /// A ramp whose slope rises smoothly from 0 to `slope` over `duration` (cycloidal,
    /// C2): f = initial before `start`; for start ≤ t < start + duration, with τ = t − start,
    /// T = duration, f = initial + (slope/T)[τ²/2 + (T/2π)²(cos(2πτ/T) − 1)]; after it,
    /// f = initial + slope·(τ − T/2). With start = 0, initial = 0, duration = Ts and
    /// slope = Ωs this is the Kane–Ryan–Banerjee (1987) spin-up angle.
    pub fn smooth_ramp(start: R, initial: R, duration: R, slope: R) -> Result<Self, BuildError> {
        Piecewise::smooth_ramp(start, initial, duration, slope).map(Self::Piecewise)
    }

    /// initial + ∫₀ᵗ self: the position whose rate is `self` (a velocity drive's profile).
    /// Exact (closed form per piece); an integral of an integral is refused.
    pub fn integral(&self, initial: R) -> Result<Self, BuildError> {
        let rate = Rate::of(self).ok_or(BuildError::InvalidParameter {
            item: Item::Ground,
            reason: "a velocity profile cannot itself be an integral",
        })?;
        Ok(Self::Integral { initial, rate })
    }

    /// Checks parameters: finite numbers, a non-empty table with strictly increasing times.
    pub fn validate(&self, item: Item) -> Result<(), BuildError> {
        let finite = match self {
            Self::Constant(v) => v.is_finite(),
            Self::Ramp {
                start,
                initial,
                slope,
            } => start.is_finite() && initial.is_finite() && slope.is_finite(),
            Self::Sine {
                offset,
                amplitude,
                omega,
                phase,
            } => offset.is_finite() && amplitude.is_finite() && omega.is_finite() && phase.is_finite(),
            Self::Table { points, len } => basic::validate_points(points, *len, item)?,
            Self::Cubic(c) => return c.validate(item),
            Self::Piecewise(p) => return p.validate(item),
            Self::Integral { initial, rate } => {
                rate.validate(item)?;
                initial.is_finite()
            }
        };
        if finite {
            Ok(())
        } else {
            Err(BuildError::NonFinite { item })
        }
    }

    /// Evaluates f, df/dt and d²f/dt² at time `t`.
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
            Self::Integral { initial, rate } => {
                let f = rate.eval(t);
                TimeValue {
                    value: *initial + rate.integral(t),
                    rate: f.value,
                    accel: f.rate,
                }
            }
        }
    }
}
