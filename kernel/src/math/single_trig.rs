//! Sine and cosine of an `f32` in plain `f32` arithmetic.
//!
//! `libm::sinf` reduces its argument in `f64`, which the Cortex-M4F emulates in software: about
//! 1,260 instructions a call. This is Cephes' `sinf`/`cosf` (S. L. Moshier, *Methods and
//! Programs for Mathematical Functions*, 1989): Cody–Waite reduction by π/4 with a three-part
//! constant (exact for |x| ≤ 8192) and minimax polynomials on [−π/4, π/4], sharing one
//! reduction for both functions. Only IEEE +, −, ×: the same bits on every target. Beyond 8192
//! (a joint that has turned more than 1,300 times) it falls back to libm.

/// Largest |x| whose reduction is exact (Cephes' `lossth`).
const EXACT_REDUCTION_LIMIT: f32 = 8192.0;
const FOUR_OVER_PI: f32 = 1.273_239_5;
/// π/4 = DP1 + DP2 + DP3; DP1 and DP2 have few enough bits that y·DP1 and y·DP2 are exact.
const DP1: f32 = 0.785_156_25;
const DP2: f32 = 2.418_756_5e-4;
const DP3: f32 = 3.774_895e-8;
const SIN_COEFFICIENTS: [f32; 3] = [-1.951_529_6e-4, 8.332_161e-3, -1.666_665_5e-1];
const COS_COEFFICIENTS: [f32; 3] = [2.443_315_7e-5, -1.388_731_6e-3, 4.166_664_6e-2];

/// `(sin x, cos x)`: absolute error ≤ 1.5 × 2⁻²⁴ for |x| ≤ 8192 and ≤ 1 ulp for |x| ≤ π
/// (see the test), libm beyond.
pub(crate) fn sin_cos(x: f32) -> (f32, f32) {
    let magnitude = libm::fabsf(x);
    // Also NaN and infinity.
    if magnitude.is_nan() || magnitude > EXACT_REDUCTION_LIMIT {
        return (libm::sinf(x), libm::cosf(x));
    }
    // Octant j of |x| rounded up to even, so the remainder r lies in [−π/4, π/4].
    let mut octant = (FOUR_OVER_PI * magnitude) as u32;
    let mut y = octant as f32;
    if octant & 1 == 1 {
        octant += 1;
        y += 1.0;
    }
    let r = ((magnitude - y * DP1) - y * DP2) - y * DP3;
    let z = r * r;
    let [s0, s1, s2] = SIN_COEFFICIENTS;
    let [c0, c1, c2] = COS_COEFFICIENTS;
    let sin_r = ((s0 * z + s1) * z + s2) * z * r + r;
    let cos_r = ((c0 * z + c1) * z + c2) * z * z - 0.5 * z + 1.0;
    let (sin, cos) = match octant & 7 {
        0 => (sin_r, cos_r),
        2 => (cos_r, -sin_r),
        4 => (-sin_r, -cos_r),
        _ => (-cos_r, sin_r),
    };
    // sin is odd, cos is even.
    (if x < 0.0 { -sin } else { sin }, cos)
}

#[cfg(test)]
mod tests {
    use super::sin_cos;

    /// Distance in units in the last place between `got` and the f64 reference rounded to f32.
    fn ulps(got: f32, reference: f64) -> u32 {
        let want = reference as f32;
        if got == want {
            return 0;
        }
        let ulp = libm::fabsf(libm::nextafterf(want, f32::INFINITY) - want);
        (libm::fabs(f64::from(got) - f64::from(want)) / f64::from(ulp)).round() as u32
    }

    #[test]
    fn absolute_error_below_1_5_ulp_of_one_and_1_ulp_on_the_first_half_turn() {
        // Reference: libm's f64 sin/cos (< 1 ulp in f64). Dense sweep of [−8192, 8192] plus
        // the neighbourhoods of multiples of π/4, where the reduction loses most. Absolute error
        // is what a rotation needs; the relative error near the zeros of sin and cos grows
        // with |x| (478 ulp at x = −505.8), but there the f32 argument itself is uncertain by
        // far more (ulp(505.8) = 3e-5).
        let (mut worst_absolute, mut worst_ulps_near_zero) = (0.0f64, 0);
        let mut check = |x: f32| {
            let (s, c) = sin_cos(x);
            let (rs, rc) = (libm::sin(f64::from(x)), libm::cos(f64::from(x)));
            let error = libm::fabs(f64::from(s) - rs).max(libm::fabs(f64::from(c) - rc));
            worst_absolute = worst_absolute.max(error);
            if libm::fabsf(x) <= core::f32::consts::PI {
                worst_ulps_near_zero = worst_ulps_near_zero.max(ulps(s, rs).max(ulps(c, rc)));
            }
        };
        for i in -2_000_000..=2_000_000 {
            check(i as f32 * 4.096e-3);
        }
        for k in -10_430..=10_430 {
            let mut x = k as f32 * core::f32::consts::FRAC_PI_4;
            for _ in 0..8 {
                check(x);
                x = libm::nextafterf(x, f32::INFINITY);
            }
        }
        let ulp_of_one = libm::ldexp(1.0, -24);
        assert!(
            worst_absolute <= 1.5 * ulp_of_one,
            "{:.3} × 2⁻²⁴",
            worst_absolute / ulp_of_one
        );
        assert!(worst_ulps_near_zero <= 1, "{worst_ulps_near_zero} ulp on [−π, π]");
    }

    #[test]
    fn exact_values_and_fallback() {
        assert_eq!(sin_cos(0.0), (0.0, 1.0));
        assert_eq!(sin_cos(-0.0).1, 1.0);
        // Beyond the exact-reduction range: libm's values.
        assert_eq!(sin_cos(1.0e5), (libm::sinf(1.0e5), libm::cosf(1.0e5)));
        let (s, c) = sin_cos(f32::NAN);
        assert!(s.is_nan() && c.is_nan());
    }
}
