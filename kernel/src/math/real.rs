//! The one scalar trait: every elementary function of the kernel goes through it.
//!
//! Both implementations call `libm`, which is plain IEEE arithmetic in software and therefore
//! gives the same bits on every target (x86_64, Cortex-M4F). Never use `std` float methods or
//! `mul_add` in the kernel: they may compile to platform intrinsics or fused operations.

use core::fmt::Debug;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

/// A floating-point scalar (`f32` or `f64`) with libm-backed elementary functions.
pub trait Real:
    Copy
    + Debug
    + Default
    + PartialEq
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Send
    + Sync
    + bytemuck::Zeroable
    + 'static
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// 2.
    const TWO: Self;
    /// 1/2.
    const HALF: Self;
    /// π.
    const PI: Self;
    /// Machine epsilon.
    const EPSILON: Self;
    /// Largest finite value.
    const MAX: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// ε^⅔, a constant so no hot path computes it (a soft-float `pow` on a Cortex-M4F).
    const EPSILON_TWO_THIRDS: Self;

    /// Converts an `f64` constant (rounding to nearest for `f32`).
    fn from_f64(x: f64) -> Self;
    /// Widens to `f64` (exact for both types).
    fn to_f64(self) -> f64;
    /// Converts a count.
    fn from_usize(n: usize) -> Self;
    /// Square root (correctly rounded).
    fn sqrt(self) -> Self;
    /// Sine.
    fn sin(self) -> Self;
    /// Cosine.
    fn cos(self) -> Self;
    /// Sine and cosine together. `f64`: libm's `sincos` (one argument reduction for both; the
    /// same kernels, so the same values, as `sin` and `cos`). `f32`: one shared reduction in
    /// plain `f32` arithmetic (absolute error ≤ 1.5 × 2⁻²⁴ up to |x| = 8192; libm's `sinf`
    /// computes in `f64`, which costs about 1,260 instructions on a Cortex-M4F).
    fn sin_cos(self) -> (Self, Self);
    /// Four-quadrant arctangent of `self / x`.
    fn atan2(self, x: Self) -> Self;
    /// Natural exponential.
    fn exp(self) -> Self;
    /// Natural logarithm.
    fn ln(self) -> Self;
    /// ln(1 + self), accurate for small `self`.
    fn ln_1p(self) -> Self;
    /// `self` raised to a real power.
    fn powf(self, e: Self) -> Self;
    /// Hyperbolic tangent (the smoothed sign of a joint's friction).
    fn tanh(self) -> Self;
    /// Absolute value.
    fn abs(self) -> Self;
    /// Whether the value is neither NaN nor infinite.
    fn is_finite(self) -> bool;
    /// Bytes of the IEEE representation (4 or 8).
    const BYTES: usize;
    /// The IEEE bits, widened to 64 (for digests of the state).
    fn ieee_bits(self) -> u64;

    /// Larger of two values (NaN-propagating through comparison order: returns `other` if `self` is NaN).
    #[inline]
    fn max(self, other: Self) -> Self {
        if self > other {
            self
        } else {
            other
        }
    }
    /// Smaller of two values.
    #[inline]
    fn min(self, other: Self) -> Self {
        if self < other {
            self
        } else {
            other
        }
    }
    /// Square.
    #[inline]
    fn squared(self) -> Self {
        self * self
    }
}

macro_rules! impl_real {
    ($t:ty, $epsilon_two_thirds:expr, $sqrt:path, $sin:path, $cos:path, $sin_cos:expr, $atan2:path, $exp:ident, $log:ident, $log1p:ident, $pow:ident, $tanh:ident, $fabs:ident) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const TWO: Self = 2.0;
            const HALF: Self = 0.5;
            const PI: Self = core::f64::consts::PI as $t;
            const EPSILON: Self = <$t>::EPSILON;
            const MAX: Self = <$t>::MAX;
            const INFINITY: Self = <$t>::INFINITY;
            const EPSILON_TWO_THIRDS: Self = $epsilon_two_thirds;
            #[inline]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline]
            fn from_usize(n: usize) -> Self {
                n as $t
            }
            #[inline]
            fn sqrt(self) -> Self {
                $sqrt(self)
            }
            #[inline]
            fn sin(self) -> Self {
                $sin(self)
            }
            #[inline]
            fn cos(self) -> Self {
                $cos(self)
            }
            #[inline]
            fn sin_cos(self) -> (Self, Self) {
                $sin_cos(self)
            }
            #[inline]
            fn atan2(self, x: Self) -> Self {
                $atan2(self, x)
            }
            #[inline]
            fn exp(self) -> Self {
                libm::$exp(self)
            }
            #[inline]
            fn ln(self) -> Self {
                libm::$log(self)
            }
            #[inline]
            fn ln_1p(self) -> Self {
                libm::$log1p(self)
            }
            #[inline]
            fn powf(self, e: Self) -> Self {
                libm::$pow(self, e)
            }
            #[inline]
            fn tanh(self) -> Self {
                libm::$tanh(self)
            }
            #[inline]
            fn abs(self) -> Self {
                libm::$fabs(self)
            }
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            const BYTES: usize = core::mem::size_of::<$t>();
            #[inline]
            fn ieee_bits(self) -> u64 {
                self.to_bits().into()
            }
        }
    };
}

impl_real!(
    f64,
    3.666852862501036e-11,
    libm::sqrt,
    libm::sin,
    libm::cos,
    libm::sincos,
    libm::atan2,
    exp,
    log,
    log1p,
    pow,
    tanh,
    fabs
);
#[cfg(not(feature = "fast-math-f32"))]
impl_real!(
    f32,
    2.4221818e-5,
    libm::sqrtf,
    libm::sinf,
    libm::cosf,
    super::single_trig::sin_cos,
    libm::atan2f,
    expf,
    logf,
    log1pf,
    powf,
    tanhf,
    fabsf
);
// Opt-in: micromath's approximations (docs/firmware.md: fewer instructions, less accuracy).
#[cfg(feature = "fast-math-f32")]
impl_real!(
    f32,
    2.4221818e-5,
    super::fast_f32::sqrt,
    super::fast_f32::sin,
    super::fast_f32::cos,
    super::fast_f32::sin_cos,
    super::fast_f32::atan2,
    expf,
    logf,
    log1pf,
    powf,
    tanhf,
    fabsf
);

#[cfg(test)]
mod tests {
    use super::Real;

    #[test]
    fn epsilon_two_thirds_is_libm_pow_of_epsilon() {
        assert_eq!(f64::EPSILON_TWO_THIRDS, libm::pow(f64::EPSILON, 2.0 / 3.0));
        assert_eq!(
            f32::EPSILON_TWO_THIRDS,
            libm::pow(f32::EPSILON as f64, 2.0 / 3.0) as f32
        );
    }

    #[test]
    fn libm_functions_match_known_values() {
        // Reference values: exact identities of the functions.
        assert_eq!(<f64 as Real>::sqrt(4.0), 2.0);
        assert!((<f64 as Real>::sin(core::f64::consts::FRAC_PI_2) - 1.0).abs() < 1e-16);
        assert!((<f32 as Real>::atan2(1.0, 1.0) - core::f32::consts::FRAC_PI_4).abs() < 1e-7);
        assert!((<f64 as Real>::ln(<f64 as Real>::exp(1.5)) - 1.5).abs() < 1e-15);
    }
}
