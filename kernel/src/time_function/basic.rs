//! The first forms (constant, ramp, sine, piecewise-linear table): values with derivatives,
//! and their integrals from 0 in closed form for velocity drives.

use super::{TimeValue, TABLE_POINTS};
use crate::{BuildError, Item, Real};

/// f = v.
pub(super) fn constant<R: Real>(v: R) -> TimeValue<R> {
    TimeValue {
        value: v,
        rate: R::ZERO,
        accel: R::ZERO,
    }
}

/// f = initial for t < start, then initial + slope·(t − start).
pub(super) fn ramp<R: Real>(start: R, initial: R, slope: R, t: R) -> TimeValue<R> {
    let z = R::ZERO;
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

/// f = offset + amplitude·sin(omega·t + phase).
pub(super) fn sine<R: Real>(offset: R, amplitude: R, omega: R, phase: R, t: R) -> TimeValue<R> {
    let arg = omega * t + phase;
    let (s, c) = (arg.sin(), arg.cos());
    TimeValue {
        value: offset + amplitude * s,
        rate: amplitude * omega * c,
        accel: -(amplitude * omega * omega * s),
    }
}

/// Piecewise-linear interpolation, held constant outside the points.
pub(super) fn interpolate<R: Real>(pts: &[(R, R)], t: R) -> TimeValue<R> {
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

/// Checks a table's length and order; `Ok(all finite)`.
pub(super) fn validate_points<R: Real>(
    points: &[(R, R)],
    len: usize,
    item: Item,
) -> Result<bool, BuildError> {
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
    Ok(pts.iter().all(|(t, f)| t.is_finite() && f.is_finite()))
}

/// ∫₀ᵗ of a ramp: initial·t + (slope/2)(p(t)² − p(0)²), p(x) = max(x − start, 0).
pub(super) fn ramp_integral<R: Real>(start: R, initial: R, slope: R, t: R) -> R {
    let p = |x: R| (x - start).max(R::ZERO);
    let (pt, p0) = (p(t), p(R::ZERO));
    initial * t + slope * R::HALF * (pt * pt - p0 * p0)
}

/// ∫₀ᵗ of a sine: offset·t + (A/ω)(cos φ − cos(ωt + φ)), written as
/// (2A/ω) sin(φ + ωt/2) sin(ωt/2) to keep its relative accuracy for small ωt.
pub(super) fn sine_integral<R: Real>(offset: R, amplitude: R, omega: R, phase: R, t: R) -> R {
    if omega == R::ZERO {
        return (offset + amplitude * phase.sin()) * t;
    }
    let half = omega * t * R::HALF;
    offset * t + R::TWO * amplitude / omega * (phase + half).sin() * half.sin()
}

/// ∫₀ᵗ of a piecewise-linear table held constant outside its points.
pub(super) fn table_integral<R: Real>(pts: &[(R, R)], t: R) -> R {
    from_first(pts, t) - from_first(pts, R::ZERO)
}

/// ∫ from the first point to t (negative before it).
fn from_first<R: Real>(pts: &[(R, R)], t: R) -> R {
    let (Some(&(t0, f0)), Some(&(tn, fn_))) = (pts.first(), pts.last()) else {
        return R::ZERO;
    };
    if t <= t0 {
        return f0 * (t - t0);
    }
    let mut sum = R::ZERO;
    for w in pts.windows(2) {
        let ((ta, fa), (tb, fb)) = (w[0], w[1]);
        if t < tb {
            let slope = (fb - fa) / (tb - ta);
            let tau = t - ta;
            return sum + tau * (fa + slope * tau * R::HALF);
        }
        sum += (tb - ta) * (fa + fb) * R::HALF;
    }
    sum + fn_ * (t - tn)
}
