//! Piecewise cubic Hermite tables: values and slopes at up to [`TABLE_POINTS`] times.
//!
//! On [tₖ, tₖ₊₁), with τ = t − tₖ, h = tₖ₊₁ − tₖ, δ = (fₖ₊₁ − fₖ)/h and slopes mₖ, mₖ₊₁,
//! f = fₖ + mₖτ + c₂τ² + c₃τ³, c₂ = (3δ − 2mₖ − mₖ₊₁)/h, c₃ = (mₖ + mₖ₊₁ − 2δ)/h²: the
//! cubic with those end values and slopes, so the table is C1 and its derivatives are exact.
//! Outside the table it continues along the end tangents (C1 everywhere; zero end slopes
//! hold the end values). The slopes are given ([`CubicTable::hermite`]) or set by a rule:
//! the not-a-knot spline ([`CubicTable::spline`], C2, reproduces every cubic exactly, as
//! MATLAB's `spline`) or the monotone rule ([`CubicTable::monotone`], Fritsch–Butland as in
//! MATLAB's `pchip`: monotone data give a monotone curve, flat runs stay flat, C1 only).

use super::{basic, TimeValue, TABLE_POINTS};
use crate::{BuildError, Capacity, Item, Real};

/// A piecewise cubic Hermite table (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CubicTable<R> {
    /// (t, f) points, sorted by strictly increasing time; only `len` are used.
    pub points: [(R, R); TABLE_POINTS],
    /// df/dt at each point.
    pub slopes: [R; TABLE_POINTS],
    /// Number of points used (1..=TABLE_POINTS).
    pub len: usize,
}

/// One segment's cubic in τ = t − tₖ.
struct Segment<R> {
    c: [R; 4],
}

impl<R: Real> Segment<R> {
    fn new((ta, fa): (R, R), (tb, fb): (R, R), ma: R, mb: R) -> Self {
        let h = tb - ta;
        let delta = (fb - fa) / h;
        let c2 = (R::from_f64(3.0) * delta - R::TWO * ma - mb) / h;
        let c3 = (ma + mb - R::TWO * delta) / (h * h);
        Self { c: [fa, ma, c2, c3] }
    }
    fn eval(&self, tau: R) -> TimeValue<R> {
        let [c0, c1, c2, c3] = self.c;
        let three = R::from_f64(3.0);
        TimeValue {
            value: c0 + tau * (c1 + tau * (c2 + tau * c3)),
            rate: c1 + tau * (R::TWO * c2 + tau * three * c3),
            accel: R::TWO * c2 + R::from_f64(6.0) * c3 * tau,
        }
    }
    /// ∫₀^τ.
    fn integral(&self, tau: R) -> R {
        let [c0, c1, c2, c3] = self.c;
        tau * (c0 + tau * (c1 * R::HALF + tau * (c2 / R::from_f64(3.0) + tau * c3 * R::from_f64(0.25))))
    }
}

impl<R: Real> CubicTable<R> {
    fn stored(points: &[(R, R)]) -> Result<Self, BuildError> {
        if points.len() > TABLE_POINTS {
            return Err(BuildError::CapacityExceeded {
                capacity: Capacity::TablePoints,
                needed: points.len(),
                available: TABLE_POINTS,
            });
        }
        let mut table = Self {
            points: [(R::ZERO, R::ZERO); TABLE_POINTS],
            slopes: [R::ZERO; TABLE_POINTS],
            len: points.len(),
        };
        for (slot, p) in table.points.iter_mut().zip(points) {
            *slot = *p;
        }
        Ok(table)
    }

    /// The checked points, to compute slopes from.
    fn checked(points: &[(R, R)]) -> Result<Self, BuildError> {
        let table = Self::stored(points)?;
        table.validate(Item::Ground)?;
        Ok(table)
    }

    /// Cubic Hermite interpolation with the slopes given (one per point).
    pub fn hermite(points: &[(R, R)], slopes: &[R]) -> Result<Self, BuildError> {
        if slopes.len() != points.len() {
            return Err(BuildError::InvalidParameter {
                item: Item::Ground,
                reason: "a cubic table needs one slope per point",
            });
        }
        let mut table = Self::stored(points)?;
        for (slot, m) in table.slopes.iter_mut().zip(slopes) {
            *slot = *m;
        }
        Ok(table)
    }

    /// The not-a-knot cubic spline: the third derivative is continuous at the second and the
    /// next-to-last points, so 4 or more points of a cubic give that cubic exactly; 3 points
    /// give their parabola, 2 their line, 1 a constant.
    pub fn spline(points: &[(R, R)]) -> Result<Self, BuildError> {
        let mut table = Self::checked(points)?;
        let n = table.len;
        let p = &table.points;
        let h = |k: usize| p[k + 1].0 - p[k].0;
        let d = |k: usize| (p[k + 1].1 - p[k].1) / h(k);
        let m = &mut table.slopes;
        match n {
            0 | 1 => {}
            2 => {
                m[0] = d(0);
                m[1] = d(0);
            }
            3 => {
                // The parabola f₀ + δ₀τ + c τ(τ − h₀), c = (δ₁ − δ₀)/(h₀ + h₁).
                let c = (d(1) - d(0)) / (h(0) + h(1));
                m[0] = d(0) - c * h(0);
                m[1] = d(0) + c * h(0);
                m[2] = d(0) + c * (h(0) + R::TWO * h(1));
            }
            _ => {
                // Slopes from the tridiagonal system of C2 continuity, closed at each end by
                // the not-a-knot condition with the neighbouring row eliminated.
                let three = R::from_f64(3.0);
                let mut a = [[R::ZERO; TABLE_POINTS]; TABLE_POINTS];
                let mut b = [R::ZERO; TABLE_POINTS];
                let (h0, h1) = (h(0), h(1));
                a[0][0] = h1;
                a[0][1] = h0 + h1;
                b[0] = (d(0) * h1 * (R::TWO * h1 + three * h0) + d(1) * h0 * h0) / (h0 + h1);
                for k in 1..n - 1 {
                    a[k][k - 1] = h(k);
                    a[k][k] = R::TWO * (h(k - 1) + h(k));
                    a[k][k + 1] = h(k - 1);
                    b[k] = three * (h(k) * d(k - 1) + h(k - 1) * d(k));
                }
                let (near, far) = (h(n - 2), h(n - 3));
                a[n - 1][n - 2] = near + far;
                a[n - 1][n - 1] = far;
                b[n - 1] =
                    (d(n - 2) * far * (R::TWO * far + three * near) + d(n - 3) * near * near) / (near + far);
                solve(&mut a, &mut b, n);
                m[..n].copy_from_slice(&b[..n]);
            }
        }
        Ok(table)
    }

    /// The monotone piecewise cubic (Fritsch–Butland slopes, MATLAB's `pchip`): a slope is 0
    /// where the data turn, else the weighted harmonic mean of the neighbouring secants;
    /// end slopes from the one-sided three-point formula, limited to keep the shape.
    pub fn monotone(points: &[(R, R)]) -> Result<Self, BuildError> {
        let mut table = Self::checked(points)?;
        let n = table.len;
        let p = &table.points;
        let h = |k: usize| p[k + 1].0 - p[k].0;
        let d = |k: usize| (p[k + 1].1 - p[k].1) / h(k);
        let m = &mut table.slopes;
        match n {
            0 | 1 => {}
            2 => {
                m[0] = d(0);
                m[1] = d(0);
            }
            _ => {
                for (k, slot) in m.iter_mut().enumerate().take(n - 1).skip(1) {
                    let (dl, dr) = (d(k - 1), d(k));
                    *slot = if dl * dr <= R::ZERO {
                        R::ZERO
                    } else {
                        let w1 = R::TWO * h(k) + h(k - 1);
                        let w2 = h(k) + R::TWO * h(k - 1);
                        (w1 + w2) / (w1 / dl + w2 / dr)
                    };
                }
                m[0] = end_slope(h(0), h(1), d(0), d(1));
                m[n - 1] = end_slope(h(n - 2), h(n - 3), d(n - 2), d(n - 3));
            }
        }
        Ok(table)
    }

    /// Checks length, order and finiteness.
    pub fn validate(&self, item: Item) -> Result<(), BuildError> {
        let finite = basic::validate_points(&self.points, self.len, item)?;
        if finite && self.slopes[..self.len].iter().all(|m| m.is_finite()) {
            Ok(())
        } else {
            Err(BuildError::NonFinite { item })
        }
    }

    fn used(&self) -> (&[(R, R)], &[R]) {
        let n = self.len.min(TABLE_POINTS);
        (&self.points[..n], &self.slopes[..n])
    }

    /// f, df/dt, d²f/dt² at `t`.
    pub fn eval(&self, t: R) -> TimeValue<R> {
        let (p, m) = self.used();
        let (Some(&(t0, f0)), Some(&(tn, fn_))) = (p.first(), p.last()) else {
            return TimeValue::default();
        };
        let tangent = |t1: R, f1: R, m1: R| TimeValue {
            value: f1 + m1 * (t - t1),
            rate: m1,
            accel: R::ZERO,
        };
        if t < t0 {
            return tangent(t0, f0, m[0]);
        }
        for k in 0..p.len() - 1 {
            if t < p[k + 1].0 {
                return Segment::new(p[k], p[k + 1], m[k], m[k + 1]).eval(t - p[k].0);
            }
        }
        tangent(tn, fn_, m[p.len() - 1])
    }

    /// ∫₀ᵗ f in closed form.
    pub fn integral(&self, t: R) -> R {
        self.integral_from_first(t) - self.integral_from_first(R::ZERO)
    }

    /// ∫ from the first point to t (negative before it).
    fn integral_from_first(&self, t: R) -> R {
        let (p, m) = self.used();
        let (Some(&(t0, f0)), Some(&(tn, fn_))) = (p.first(), p.last()) else {
            return R::ZERO;
        };
        let line = |tau: R, f1: R, m1: R| tau * (f1 + m1 * tau * R::HALF);
        if t < t0 {
            return line(t - t0, f0, m[0]);
        }
        let mut sum = R::ZERO;
        for k in 0..p.len() - 1 {
            let segment = Segment::new(p[k], p[k + 1], m[k], m[k + 1]);
            if t < p[k + 1].0 {
                return sum + segment.integral(t - p[k].0);
            }
            sum += segment.integral(p[k + 1].0 - p[k].0);
        }
        sum + line(t - tn, fn_, m[p.len() - 1])
    }
}

/// PCHIP's end slope from the end secant δ₀ (interval h₀) and the next δ₁ (interval h₁).
fn end_slope<R: Real>(h0: R, h1: R, d0: R, d1: R) -> R {
    let s = ((R::TWO * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
    let sign = |x: R| {
        if x > R::ZERO {
            1
        } else if x < R::ZERO {
            -1
        } else {
            0
        }
    };
    if sign(s) != sign(d0) {
        R::ZERO
    } else if sign(d0) != sign(d1) && s.abs() > (R::from_f64(3.0) * d0).abs() {
        R::from_f64(3.0) * d0
    } else {
        s
    }
}

/// Solves the leading n×n system in place (Gaussian elimination with partial pivoting; the
/// spline matrices are non-singular for strictly increasing times). The solution ends in `b`.
fn solve<R: Real>(a: &mut [[R; TABLE_POINTS]; TABLE_POINTS], b: &mut [R; TABLE_POINTS], n: usize) {
    for col in 0..n {
        let mut pivot = col;
        for row in col + 1..n {
            if a[row][col].abs() > a[pivot][col].abs() {
                pivot = row;
            }
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let diag = a[col][col];
        if diag == R::ZERO {
            continue;
        }
        let (pivot_row, pivot_b) = (a[col], b[col]);
        for row in col + 1..n {
            let factor = a[row][col] / diag;
            if factor != R::ZERO {
                for (x, v) in a[row][col..n].iter_mut().zip(&pivot_row[col..n]) {
                    *x -= factor * *v;
                }
                b[row] -= factor * pivot_b;
            }
        }
    }
    for col in (0..n).rev() {
        let mut s = b[col];
        for k in col + 1..n {
            s -= a[col][k] * b[k];
        }
        b[col] = if a[col][col] == R::ZERO {
            R::ZERO
        } else {
            s / a[col][col]
        };
    }
}
