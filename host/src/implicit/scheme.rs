//! The Newmark-family time discretizations of the implicit multibody solver: HHT-α (Hilber,
//! Hughes & Taylor 1977) and generalized-α (Chung & Hulbert 1993, in the Arnold & Brüls 2007
//! form with pseudo-accelerations), as the coefficients one Newton step needs.
//!
//! With ẍ the true and a the Newmark (pseudo-)acceleration of every unknown, a step of h sets
//!   (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) ẍ_{n+1} + α_f ẍ_n     (HHT: a = ẍ)
//!   Δ = h u_n + h² ((½ − β) a_n + β a_{n+1}),   q_{n+1} = q_n ⊕ Δ,
//!   u_{n+1} = u_n + h ((1 − γ) a_n + γ a_{n+1}),
//! and the equations of motion are weighted as
//!   M ẍ_{n+1} + c_f (Φ_qᵀλ − Q)_{n+1} + (1 − c_f)(Φ_qᵀλ − Q)_n = 0,
//! with c_f = 1 for generalized-α (equilibrium at t_{n+1}) and c_f = 1 + α for HHT.

/// HHT-α or generalized-α with its parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scheme {
    /// HHT-α, α ∈ [−1/3, 0], with its Newmark β and γ (α = 0: Newmark).
    Hht {
        /// α.
        alpha: f64,
        /// β.
        beta: f64,
        /// γ.
        gamma: f64,
    },
    /// Generalized-α with spectral radius ρ∞ ∈ [0, 1] at ωh → ∞.
    GeneralizedAlpha {
        /// ρ∞.
        rho_inf: f64,
    },
}

/// The coefficients of one step of size h.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// Newmark β.
    pub beta: f64,
    /// Newmark γ.
    pub gamma: f64,
    /// α_m (0 for HHT).
    pub alpha_m: f64,
    /// α_f (0 for HHT: its weighting is `force_weight`).
    pub alpha_f: f64,
    /// c_f: the weight of the forces at t_{n+1}.
    pub force_weight: f64,
    /// ∂Δ/∂ẍ_{n+1} = h² β (1 − α_f)/(1 − α_m).
    pub position: f64,
    /// ∂u_{n+1}/∂ẍ_{n+1} = h γ (1 − α_f)/(1 − α_m).
    pub velocity: f64,
}

impl Scheme {
    /// The name, as in scene files.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Hht { alpha, .. } if *alpha != 0.0 => "hht",
            Self::Hht { .. } => "newmark",
            Self::GeneralizedAlpha { .. } => "generalized-alpha",
        }
    }

    /// The coefficients of a step of `h`.
    pub fn coefficients(&self, h: f64) -> Coefficients {
        let (beta, gamma, alpha_m, alpha_f, force_weight) = match *self {
            Self::Hht { alpha, beta, gamma } => (beta, gamma, 0.0, 0.0, 1.0 + alpha),
            Self::GeneralizedAlpha { rho_inf } => {
                let alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0);
                let alpha_f = rho_inf / (rho_inf + 1.0);
                let gamma = 0.5 + alpha_f - alpha_m;
                (0.25 * (gamma + 0.5) * (gamma + 0.5), gamma, alpha_m, alpha_f, 1.0)
            }
        };
        let ratio = (1.0 - alpha_f) / (1.0 - alpha_m);
        Coefficients {
            beta,
            gamma,
            alpha_m,
            alpha_f,
            force_weight,
            position: h * h * beta * ratio,
            velocity: h * gamma * ratio,
        }
    }
}

impl Coefficients {
    /// The Newmark acceleration a_{n+1} for the true acceleration `x` (ẍ_{n+1}), from a_n and ẍ_n.
    pub fn pseudo(&self, x: f64, x_n: f64, a_n: f64) -> f64 {
        ((1.0 - self.alpha_f) * x + self.alpha_f * x_n - self.alpha_m * a_n) / (1.0 - self.alpha_m)
    }

    /// The position increment Δ and the velocity u_{n+1} of a step of `h` from u_n, a_n to a.
    pub fn advance(&self, h: f64, u_n: f64, a_n: f64, a: f64) -> (f64, f64) {
        let delta = h * u_n + h * h * ((0.5 - self.beta) * a_n + self.beta * a);
        (delta, u_n + h * ((1.0 - self.gamma) * a_n + self.gamma * a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chung & Hulbert (1993), eqs. 25–27: ρ∞ = 1 is the trapezoidal rule (α_m = α_f = ½).
    #[test]
    fn generalized_alpha_parameters_follow_chung_hulbert() {
        let c = Scheme::GeneralizedAlpha { rho_inf: 1.0 }.coefficients(0.1);
        assert_eq!((c.alpha_m, c.alpha_f, c.gamma, c.beta), (0.5, 0.5, 0.5, 0.25));
        let c = Scheme::GeneralizedAlpha { rho_inf: 0.0 }.coefficients(0.1);
        assert_eq!((c.alpha_m, c.alpha_f, c.gamma, c.beta), (-1.0, 0.0, 1.5, 1.0));
    }

    /// A linear oscillator ẍ = −ω²x by the scheme's formulas (solved exactly for ẍ each step):
    /// the phase error falls as h² (Hilber et al. 1977; Chung & Hulbert 1993).
    #[test]
    fn oscillator_phase_error_is_second_order() {
        let run = |scheme: Scheme, h: f64| {
            let omega2 = 4.0 * std::f64::consts::PI * std::f64::consts::PI;
            let c = scheme.coefficients(h);
            let (mut q, mut u, mut x) = (1.0, 0.0, -omega2);
            let mut a = x;
            let steps = (0.25 / h).round() as usize;
            for _ in 0..steps {
                // ẍ + ω² (c_f q_{n+1} + (1 − c_f) q_n) = 0, q_{n+1} = q + Δ(ẍ) linear in ẍ.
                let a0 = c.pseudo(0.0, x, a);
                let (d0, _) = c.advance(h, u, a, a0);
                let cf = c.force_weight;
                let x_new = -omega2 * (q + cf * d0) / (1.0 + cf * omega2 * c.position);
                let a_new = c.pseudo(x_new, x, a);
                let (d, u_new) = c.advance(h, u, a, a_new);
                q += d;
                u = u_new;
                x = x_new;
                a = a_new;
            }
            // At a quarter period q crosses 0: the error is the phase error, O(h²).
            q.abs()
        };
        let trapezoid = Scheme::GeneralizedAlpha { rho_inf: 1.0 };
        let (e1, e2) = (run(trapezoid, 1e-2), run(trapezoid, 5e-3));
        assert!((e1 / e2 - 4.0).abs() < 0.1, "order 2: {e1} / {e2}");
        let hht = Scheme::Hht {
            alpha: -0.1,
            beta: 0.3025,
            gamma: 0.6,
        };
        let (h1, h2) = (run(hht, 1e-2), run(hht, 5e-3));
        assert!((h1 / h2 - 4.0).abs() < 0.3, "HHT order 2: {h1} / {h2}");
    }
}
