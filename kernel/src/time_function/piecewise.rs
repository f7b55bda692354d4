//! Piecewise functions: each piece a cubic polynomial plus one harmonic term in the time
//! since its start, so sums of polynomials and sines or cosines, switched at given times,
//! are written exactly (the spin-up profile is two pieces), with exact derivatives and
//! integrals.

use super::TimeValue;
use crate::{BuildError, Item, Real};

/// Most pieces a [`Piecewise`] function can hold (stored inline: no allocation).
pub const PIECES: usize = 8;

/// One piece: with τ = t − start,
/// f = poly\[0\] + poly\[1\]τ + poly\[2\]τ² + poly\[3\]τ³ + cos·cos(ωτ) + sin·sin(ωτ).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Piece<R> {
    /// Time from which the piece applies (until the next piece's start).
    pub start: R,
    /// Polynomial coefficients in powers of τ = t − start (τ⁰ to τ³).
    pub poly: [R; 4],
    /// Amplitude of cos(ωτ).
    pub cos: R,
    /// Amplitude of sin(ωτ).
    pub sin: R,
    /// Angular frequency ω of the harmonic term (rad/s).
    pub omega: R,
}

impl<R: Real> Piece<R> {
    /// A polynomial piece from `start`, coefficients in powers of τ (at most 4, missing ones 0).
    pub fn polynomial(start: R, coefficients: &[R]) -> Self {
        let mut poly = [R::ZERO; 4];
        for (slot, c) in poly.iter_mut().zip(coefficients) {
            *slot = *c;
        }
        Self {
            start,
            poly,
            cos: R::ZERO,
            sin: R::ZERO,
            omega: R::ZERO,
        }
    }

    /// The same piece plus cos·cos(ωτ) + sin·sin(ωτ) (replacing any harmonic term).
    pub fn with_harmonic(self, cos: R, sin: R, omega: R) -> Self {
        Self {
            cos,
            sin,
            omega,
            ..self
        }
    }

    fn is_finite(&self) -> bool {
        self.start.is_finite()
            && self.poly.iter().all(|c| c.is_finite())
            && self.cos.is_finite()
            && self.sin.is_finite()
            && self.omega.is_finite()
    }

    /// f, df/dt, d²f/dt² at τ = t − start.
    pub fn eval(&self, tau: R) -> TimeValue<R> {
        let [c0, c1, c2, c3] = self.poly;
        let three = R::from_f64(3.0);
        let mut f = TimeValue {
            value: c0 + tau * (c1 + tau * (c2 + tau * c3)),
            rate: c1 + tau * (R::TWO * c2 + tau * three * c3),
            accel: R::TWO * c2 + R::from_f64(6.0) * c3 * tau,
        };
        if self.cos != R::ZERO || self.sin != R::ZERO {
            let w = self.omega;
            let (s, c) = (w * tau).sin_cos();
            let h = self.cos * c + self.sin * s;
            f.value += h;
            f.rate += w * (self.sin * c - self.cos * s);
            f.accel -= w * w * h;
        }
        f
    }

    /// ∫₀^τ: the polynomial term by term; the harmonic as (cos·sin ωτ + sin·2 sin²(ωτ/2))/ω
    /// (cos·τ when ω = 0).
    pub fn integral(&self, tau: R) -> R {
        let [c0, c1, c2, c3] = self.poly;
        let mut sum =
            tau * (c0 + tau * (c1 * R::HALF + tau * (c2 / R::from_f64(3.0) + tau * c3 * R::from_f64(0.25))));
        if self.cos != R::ZERO || self.sin != R::ZERO {
            let w = self.omega;
            if w == R::ZERO {
                sum += self.cos * tau;
            } else {
                let half = (w * tau * R::HALF).sin();
                sum += (self.cos * (w * tau).sin() + self.sin * R::TWO * half * half) / w;
            }
        }
        sum
    }
}

/// Up to [`PIECES`] pieces with strictly increasing starts. Piece k applies on
/// [startₖ, startₖ₊₁), the last one from its start on; before the first start the function
/// holds the first piece's value there (rate and acceleration 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Piecewise<R> {
    /// The pieces; only `len` are used.
    pub pieces: [Piece<R>; PIECES],
    /// Number of pieces used (1..=PIECES).
    pub len: usize,
}

impl<R: Real> Piecewise<R> {
    /// From pieces sorted by strictly increasing start (checked by [`Self::validate`]).
    pub fn new(pieces: &[Piece<R>]) -> Result<Self, BuildError> {
        if pieces.len() > PIECES {
            return Err(BuildError::InvalidParameter {
                item: Item::Ground,
                reason: "a piecewise function has at most 8 pieces",
            });
        }
        let mut stored = [Piece::default(); PIECES];
        stored[..pieces.len()].copy_from_slice(pieces);
        Ok(Self {
            pieces: stored,
            len: pieces.len(),
        })
    }

    /// See [`TimeFunction::smooth_ramp`](super::TimeFunction::smooth_ramp): two pieces,
    /// K = slope·T/(4π²), ω = 2π/T: [initial − K, 0, slope/(2T)] + K cos(ωτ) from `start`,
    /// then [initial + slope·T/2, slope] from start + T. C2 everywhere.
    pub fn smooth_ramp(start: R, initial: R, duration: R, slope: R) -> Result<Self, BuildError> {
        if !(duration.is_finite() && duration > R::ZERO) {
            return Err(BuildError::InvalidParameter {
                item: Item::Ground,
                reason: "a smooth ramp's duration must be finite and > 0",
            });
        }
        let two_pi = R::TWO * R::PI;
        let k = slope * duration / (two_pi * two_pi);
        let rise = Piece::polynomial(start, &[initial - k, R::ZERO, slope / (R::TWO * duration)])
            .with_harmonic(k, R::ZERO, two_pi / duration);
        let cruise = Piece::polynomial(start + duration, &[initial + slope * duration * R::HALF, slope]);
        let f = Self::new(&[rise, cruise])?;
        f.validate(Item::Ground)?;
        Ok(f)
    }

    fn used(&self) -> &[Piece<R>] {
        &self.pieces[..self.len.min(PIECES)]
    }

    /// Checks the count, the order of the starts and finiteness.
    pub fn validate(&self, item: Item) -> Result<(), BuildError> {
        if self.len == 0 || self.len > PIECES {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "a piecewise function needs 1..=8 pieces",
            });
        }
        let used = self.used();
        if !used.iter().all(Piece::is_finite) {
            return Err(BuildError::NonFinite { item });
        }
        if used.windows(2).any(|w| w[1].start <= w[0].start) {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "piece starts must increase strictly",
            });
        }
        Ok(())
    }

    /// Index of the piece applying at `t` (None before the first start).
    fn piece_at(&self, t: R) -> Option<usize> {
        self.used().iter().rposition(|p| p.start <= t)
    }

    /// f, df/dt, d²f/dt² at `t`.
    pub fn eval(&self, t: R) -> TimeValue<R> {
        let used = self.used();
        match self.piece_at(t) {
            Some(k) => used[k].eval(t - used[k].start),
            None => match used.first() {
                Some(p) => TimeValue {
                    value: p.eval(R::ZERO).value,
                    rate: R::ZERO,
                    accel: R::ZERO,
                },
                None => TimeValue::default(),
            },
        }
    }

    /// ∫₀ᵗ f in closed form.
    pub fn integral(&self, t: R) -> R {
        self.integral_from_first(t) - self.integral_from_first(R::ZERO)
    }

    /// ∫ from the first start to t (negative before it).
    fn integral_from_first(&self, t: R) -> R {
        let used = self.used();
        let Some(first) = used.first() else {
            return R::ZERO;
        };
        let Some(k) = self.piece_at(t) else {
            return first.eval(R::ZERO).value * (t - first.start);
        };
        let mut sum = R::ZERO;
        for w in used[..=k].windows(2) {
            sum += w[0].integral(w[1].start - w[0].start);
        }
        sum + used[k].integral(t - used[k].start)
    }
}
