//! The contact force law: Hertz normal stiffness, Flores dissipation, regularized Coulomb
//! friction (DESIGN.md, "Contact (host)").
//!
//! F_n = K δ^{3/2} (1 + D δ̇) ≥ 0,  K = 4/3 E* √R*,  1/E* = (1−ν₁²)/E₁ + (1−ν₂²)/E₂,
//! 1/R* = 1/R₁ + 1/R₂,  D = χ / v₀ with Flores' χ = 8(1−e)/(5e) (Flores et al., Mech. Mach.
//! Theory 46, 2011) and v₀ the approach speed captured at first touch;
//! F_t = −μ F_n v_t / max(|v_t|, v_reg).

use crate::spec::{ContactMaterial, Dissipation, Elastic};

/// Effective modulus E* of two materials in contact.
pub fn effective_modulus(a: &Elastic, b: &Elastic) -> f64 {
    1.0 / (a.compliance() + b.compliance())
}

/// Effective radius R* from two curvature radii (`f64::INFINITY` for a flat surface).
pub fn effective_radius(r1: f64, r2: f64) -> f64 {
    1.0 / (1.0 / r1 + 1.0 / r2)
}

/// Hertz stiffness K = 4/3 E* √R* (N/m^{3/2}).
pub fn hertz_stiffness(e_star: f64, r_star: f64) -> f64 {
    4.0 / 3.0 * e_star * r_star.sqrt()
}

/// The damping factor χ = D·v₀ of `material` (validated).
pub fn damping_factor(material: &ContactMaterial) -> f64 {
    let e = material.restitution;
    match material.dissipation {
        Dissipation::Flores => 8.0 * (1.0 - e) / (5.0 * e),
        Dissipation::FloresCalibrated => calibrated_damping_factor(e),
    }
}

/// Normal force K δ^{3/2}(1 + χ δ̇/v₀), clamped at zero (no adhesion). `delta` > 0 is the
/// penetration, `delta_rate` its rate (> 0 approaching), `impact_speed` v₀ > 0.
pub fn normal_force(k: f64, chi: f64, delta: f64, delta_rate: f64, impact_speed: f64) -> f64 {
    if delta <= 0.0 {
        return 0.0;
    }
    (k * delta * delta.sqrt() * (1.0 + chi * delta_rate / impact_speed)).max(0.0)
}

/// ∂F_n/∂δ and ∂F_n/∂δ̇ of [`normal_force`] (N/m, N·s/m), the contact's part of an implicit
/// tangent; zero while the damper holds the force at zero. With `v0_follows_rate` (a contact
/// not yet committed takes v₀ = δ̇) the damper term χδ̇/v₀ is the constant χ: no rate part.
pub fn normal_force_derivatives(
    k: f64,
    chi: f64,
    delta: f64,
    delta_rate: f64,
    impact_speed: f64,
    v0_follows_rate: bool,
) -> (f64, f64) {
    if normal_force(k, chi, delta, delta_rate, impact_speed) <= 0.0 {
        return (0.0, 0.0);
    }
    let stiffness = 1.5 * k * delta.sqrt() * (1.0 + chi * delta_rate / impact_speed);
    let damping = if v0_follows_rate {
        0.0
    } else {
        k * delta * delta.sqrt() * chi / impact_speed
    };
    (stiffness, damping)
}

/// Energy of a Hertz spring K δ^{3/2} compressed by δ: ∫₀^δ K x^{3/2} dx = (2/5) K δ^{5/2} (J).
pub fn hertz_energy(k: f64, delta: f64) -> f64 {
    if delta <= 0.0 {
        return 0.0;
    }
    0.4 * k * delta * delta * delta.sqrt()
}

/// Regularized Coulomb friction −μ F_n v_t / max(|v_t|, v_reg) (on the body whose tangential
/// slip velocity is `slip`).
pub fn friction_force(mu: f64, normal: f64, slip: [f64; 3], v_reg: f64) -> [f64; 3] {
    let speed = (slip[0] * slip[0] + slip[1] * slip[1] + slip[2] * slip[2]).sqrt();
    let scale = -friction_damping(mu, normal, speed, v_reg);
    [scale * slip[0], scale * slip[1], scale * slip[2]]
}

/// μ F_n / max(|v_t|, v_reg) (N·s/m): the regularized friction force is minus this times the
/// slip velocity, so it is also the friction's damping in an implicit tangent.
pub fn friction_damping(mu: f64, normal: f64, slip_speed: f64, v_reg: f64) -> f64 {
    mu * normal / slip_speed.max(v_reg)
}

/// Rebound speed (per unit impact speed) of one impact of x'' = −max(0, x^{3/2}(1 + χ x')),
/// x(0) = 0, x'(0) = 1: the restitution the Hertz–Flores law achieves with factor χ (mass,
/// stiffness and v₀ scale out). RK4 with step 1e-3 (the elastic contact lasts τ ≈ 3.2).
pub fn nondimensional_restitution(chi: f64) -> f64 {
    let accel = |x: f64, v: f64| {
        if x <= 0.0 {
            0.0
        } else {
            -(x * x.sqrt() * (1.0 + chi * v)).max(0.0)
        }
    };
    let h = 1e-3;
    let (mut x, mut v) = (0.0_f64, 1.0_f64);
    // Bounded: with χ ≥ 0 the contact ends well before τ = 100 (or the body stops inside).
    for _ in 0..100_000 {
        let (k1x, k1v) = (v, accel(x, v));
        let (k2x, k2v) = (v + 0.5 * h * k1v, accel(x + 0.5 * h * k1x, v + 0.5 * h * k1v));
        let (k3x, k3v) = (v + 0.5 * h * k2v, accel(x + 0.5 * h * k2x, v + 0.5 * h * k2v));
        let (k4x, k4v) = (v + h * k3v, accel(x + h * k3x, v + h * k3v));
        let (x1, v1) = (
            x + h / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            v + h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v),
        );
        if x1 <= 0.0 && v1 < 0.0 {
            // Interpolate the exit speed at x = 0 within the step.
            let s = x / (x - x1);
            return -(v + s * (v1 - v));
        }
        (x, v) = (x1, v1);
    }
    0.0
}

/// χ with [`nondimensional_restitution`]`(χ) = e`, by bisection (e in (0, 1]).
pub fn calibrated_damping_factor(e: f64) -> f64 {
    if e >= 1.0 {
        return 0.0;
    }
    // Flores' χ overdamps, so the answer lies below it; widen until bracketed.
    let (mut lo, mut hi) = (0.0, 8.0 * (1.0 - e) / (5.0 * e));
    while nondimensional_restitution(hi) > e && hi < 1e6 {
        hi *= 2.0;
    }
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if nondimensional_restitution(mid) > e {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < 1e-10 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effective_modulus_of_two_steels() {
        // 1/E* = 2(1 − 0.09)/210e9  →  E* = 115.38 GPa.
        let e_star = effective_modulus(&Elastic::STEEL, &Elastic::STEEL);
        assert!((e_star - 210e9 / (2.0 * 0.91)).abs() < 1.0);
    }

    #[test]
    fn hertz_stiffness_sphere_on_plane() {
        // Sphere R = 0.01 m on a flat: R* = R; K = 4/3 E* √R*.
        let r = effective_radius(0.01, f64::INFINITY);
        assert_eq!(r, 0.01);
        let k = hertz_stiffness(1e9, r);
        assert!((k - 4.0 / 3.0 * 1e9 * 0.1).abs() < 1e-3);
        assert!((effective_radius(0.02, 0.02) - 0.01).abs() < 1e-15);
    }

    #[test]
    fn normal_force_is_hertz_plus_flores() {
        let (k, e, v0) = (1e8, 0.5, 2.0);
        let chi = damping_factor(
            &ContactMaterial::elastic()
                .with_restitution(e)
                .with_dissipation(Dissipation::Flores),
        );
        assert!((chi - 8.0 * 0.5 / 2.5).abs() < 1e-15);
        let (d, dd) = (1e-4_f64, 1.5);
        let expected = k * d.powf(1.5) * (1.0 + 8.0 * (1.0 - e) / (5.0 * e * v0) * dd);
        assert!((normal_force(k, chi, d, dd, v0) - expected).abs() < 1e-9 * expected);
        assert_eq!(normal_force(k, chi, -1e-6, 1.0, v0), 0.0);
        // Separating fast: the damping term would pull; the force is clamped at zero.
        assert_eq!(normal_force(k, 10.0, d, -v0, v0), 0.0);
    }

    #[test]
    fn friction_is_regularized_coulomb() {
        let f = friction_force(0.4, 10.0, [2.0, 0.0, 0.0], 1e-3);
        assert!((f[0] + 4.0).abs() < 1e-12 && f[1] == 0.0);
        // Below v_reg: linear, μ F_n v / v_reg.
        let f = friction_force(0.4, 10.0, [0.0, 5e-4, 0.0], 1e-3);
        assert!((f[1] + 2.0).abs() < 1e-12);
        assert_eq!(friction_force(0.4, 10.0, [0.0; 3], 1e-3), [0.0; 3]);
    }

    #[test]
    fn elastic_impact_is_elastic_and_flores_overdamps() {
        assert!((nondimensional_restitution(0.0) - 1.0).abs() < 1e-6);
        // Reference: independent RK4 (h = 2e-5) of x'' = −x^{3/2}(1 + χx') with Flores' χ.
        for (e, achieved) in [(0.3, 0.256_208), (0.5, 0.470_445), (0.8, 0.788_539)] {
            let chi = 8.0 * (1.0 - e) / (5.0 * e);
            assert!(
                (nondimensional_restitution(chi) - achieved).abs() < 1e-5,
                "e = {e}"
            );
        }
    }

    #[test]
    fn calibrated_factor_gives_the_requested_restitution() {
        for e in [0.1, 0.3, 0.5, 0.8, 0.95] {
            let chi = calibrated_damping_factor(e);
            assert!((nondimensional_restitution(chi) - e).abs() < 1e-8, "e = {e}");
            assert!(chi < 8.0 * (1.0 - e) / (5.0 * e));
        }
        assert_eq!(calibrated_damping_factor(1.0), 0.0);
    }

    #[test]
    fn bad_parameters_are_named_errors() {
        let bad = ContactMaterial::elastic().with_restitution(0.0);
        let msg = bad.validate("material steel/steel").unwrap_err().to_string();
        assert!(
            msg.contains("steel/steel") && msg.contains("restitution"),
            "{msg}"
        );
        let bad = Elastic {
            youngs_modulus: -1.0,
            poisson_ratio: 0.3,
        };
        assert!(bad
            .validate("shape ball")
            .unwrap_err()
            .to_string()
            .contains("ball"));
    }
}
