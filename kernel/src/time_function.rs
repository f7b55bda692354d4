//! Prescribed functions of time for driving constraints and applied loads (allocation-free).

use crate::{BuildError, Capacity, Item, Real};

/// Most points a piecewise-linear table can hold (stored inline: no allocation).
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

    /// Checks parameters: finite numbers, a non-empty table with strictly increasing times.
    pub fn validate(&self, item: Item) -> Result<(), BuildError> {
        let finite = match *self {
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
            Self::Table { points, len } => {
                if len == 0 || len > TABLE_POINTS {
                    return Err(BuildError::InvalidParameter {
                        item,
                        reason: "time table needs 1..=16 points",
                    });
                }
                let pts = &points[..len];
                if pts.windows(2).any(|w| w[1].0 <= w[0].0) {
                    return Err(BuildError::InvalidParameter {
                        item,
                        reason: "time table times must increase strictly",
                    });
                }
                pts.iter().all(|(t, f)| t.is_finite() && f.is_finite())
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
        let z = R::ZERO;
        match *self {
            Self::Constant(v) => TimeValue {
                value: v,
                rate: z,
                accel: z,
            },
            Self::Ramp {
                start,
                initial,
                slope,
            } => {
                if t < start {
                    TimeValue {
                        value: initial,
                        rate: z,
                        accel: z,
                    }
                } else {
                    TimeValue {
                        value: initial + slope * (t - start),
                        rate: slope,
                        accel: z,
                    }
                }
            }
            Self::Sine {
                offset,
                amplitude,
                omega,
                phase,
            } => {
                let arg = omega * t + phase;
                let (s, c) = (arg.sin(), arg.cos());
                TimeValue {
                    value: offset + amplitude * s,
                    rate: amplitude * omega * c,
                    accel: -(amplitude * omega * omega * s),
                }
            }
            Self::Table { points, len } => Self::interpolate(&points[..len.min(TABLE_POINTS)], t),
        }
    }

    fn interpolate(pts: &[(R, R)], t: R) -> TimeValue<R> {
        let z = R::ZERO;
        let hold = |v: R| TimeValue {
            value: v,
            rate: z,
            accel: z,
        };
        match (pts.first(), pts.last()) {
            (Some(&(t0, f0)), _) if t <= t0 => hold(f0),
            (_, Some(&(t1, f1))) if t >= t1 => hold(f1),
            _ => {
                for w in pts.windows(2) {
                    let ((ta, fa), (tb, fb)) = (w[0], w[1]);
                    if t < tb {
                        let slope = (fb - fa) / (tb - ta);
                        return TimeValue {
                            value: fa + slope * (t - ta),
                            rate: slope,
                            accel: z,
                        };
                    }
                }
                hold(z)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sine_derivatives_match_analytic() {
        let f = TimeFunction::Sine {
            offset: 1.0,
            amplitude: 2.0,
            omega: 3.0,
            phase: 0.5,
        };
        let v = f.eval(0.7);
        let arg: f64 = 3.0 * 0.7 + 0.5;
        assert!((v.value - (1.0 + 2.0 * libm::sin(arg))).abs() < 1e-15);
        assert!((v.rate - 6.0 * libm::cos(arg)).abs() < 1e-14);
        assert!((v.accel + 18.0 * libm::sin(arg)).abs() < 1e-13);
    }

    #[test]
    fn ramp_and_table_interpolate_linearly() {
        let r = TimeFunction::Ramp {
            start: 1.0,
            initial: 2.0,
            slope: 0.5,
        };
        assert_eq!(r.eval(0.5).value, 2.0);
        assert_eq!(r.eval(3.0).value, 3.0);
        let t = TimeFunction::table(&[(0.0, 0.0), (1.0, 2.0), (2.0, 2.0)]).unwrap();
        assert_eq!(t.eval(0.25).value, 0.5);
        assert_eq!(t.eval(0.25).rate, 2.0);
        assert_eq!(t.eval(5.0).value, 2.0);
        assert_eq!(t.eval(-1.0).value, 0.0);
    }

    #[test]
    fn bad_tables_are_rejected() {
        let bad = TimeFunction::table(&[(0.0, 0.0), (0.0, 1.0)]).unwrap();
        assert!(matches!(
            bad.validate(Item::Joint(3)),
            Err(BuildError::InvalidParameter {
                item: Item::Joint(3),
                ..
            })
        ));
        let too_long = [(0.0f64, 0.0f64); 17];
        assert!(matches!(
            TimeFunction::table(&too_long),
            Err(BuildError::CapacityExceeded {
                capacity: Capacity::TablePoints,
                needed: 17,
                ..
            })
        ));
        let nan = TimeFunction::Constant(f64::NAN);
        assert_eq!(
            nan.validate(Item::Force(0)),
            Err(BuildError::NonFinite { item: Item::Force(0) })
        );
    }
}
