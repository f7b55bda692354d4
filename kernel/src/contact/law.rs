//! The contact force law: Hertz normal stiffness, Flores dissipation, regularized Coulomb
//! friction, generic over [`Real`] (the host's contact and the kernel's ground contacts share
//! it: one formula).
//!
//! F_n = K δ^{3/2} (1 + D δ̇) ≥ 0,  K = 4/3 E* √R*,  1/E* = (1−ν₁²)/E₁ + (1−ν₂²)/E₂,
//! 1/R* = 1/R₁ + 1/R₂,  D = χ / v₀ with Flores' χ = 8(1−e)/(5e) (Flores et al., Mech. Mach.
//! Theory 46, 2011) and v₀ the approach speed captured at first touch;
//! F_t = −μ F_n v_t / max(|v_t|, v_reg).

use crate::math::Vec3;
use crate::Real;

fn c<R: Real>(x: f64) -> R {
    R::from_f64(x)
}

/// Effective modulus E* = 1 / (c₁ + c₂) of two surfaces of compliances cᵢ = (1 − νᵢ²)/Eᵢ.
pub fn effective_modulus<R: Real>(compliance_a: R, compliance_b: R) -> R {
    R::ONE / (compliance_a + compliance_b)
}

/// Effective radius R* from two curvature radii (infinity for a flat surface).
pub fn effective_radius<R: Real>(r1: R, r2: R) -> R {
    R::ONE / (R::ONE / r1 + R::ONE / r2)
}

/// Hertz stiffness K = 4/3 E* √R* (N/m^{3/2}).
pub fn hertz_stiffness<R: Real>(e_star: R, r_star: R) -> R {
    c::<R>(4.0) / c::<R>(3.0) * e_star * r_star.sqrt()
}

/// Flores' damping factor χ = 8(1 − e)/(5e) of restitution `e` in (0, 1].
pub fn flores_damping_factor<R: Real>(e: R) -> R {
    c::<R>(8.0) * (R::ONE - e) / (c::<R>(5.0) * e)
}

/// Normal force K δ^{3/2}(1 + χ δ̇/v₀), clamped at zero (no adhesion). `delta` > 0 is the
/// penetration, `delta_rate` its rate (> 0 approaching), `impact_speed` v₀ > 0.
pub fn normal_force<R: Real>(k: R, chi: R, delta: R, delta_rate: R, impact_speed: R) -> R {
    if delta <= R::ZERO {
        return R::ZERO;
    }
    (k * delta * delta.sqrt() * (R::ONE + chi * delta_rate / impact_speed)).max(R::ZERO)
}

/// ∂F_n/∂δ and ∂F_n/∂δ̇ of [`normal_force`] (N/m, N·s/m), the contact's part of an implicit
/// tangent; zero while the damper holds the force at zero. With `v0_follows_rate` (a contact
/// not yet committed takes v₀ = δ̇) the damper term χδ̇/v₀ is the constant χ: no rate part.
pub fn normal_force_derivatives<R: Real>(
    k: R,
    chi: R,
    delta: R,
    delta_rate: R,
    impact_speed: R,
    v0_follows_rate: bool,
) -> (R, R) {
    if normal_force(k, chi, delta, delta_rate, impact_speed) <= R::ZERO {
        return (R::ZERO, R::ZERO);
    }
    let stiffness = c::<R>(1.5) * k * delta.sqrt() * (R::ONE + chi * delta_rate / impact_speed);
    let damping = if v0_follows_rate {
        R::ZERO
    } else {
        k * delta * delta.sqrt() * chi / impact_speed
    };
    (stiffness, damping)
}

/// Energy of a Hertz spring K δ^{3/2} compressed by δ: ∫₀^δ K x^{3/2} dx = (2/5) K δ^{5/2} (J).
pub fn hertz_energy<R: Real>(k: R, delta: R) -> R {
    if delta <= R::ZERO {
        return R::ZERO;
    }
    c::<R>(0.4) * k * delta * delta * delta.sqrt()
}

/// Regularized Coulomb friction −μ F_n v_t / max(|v_t|, v_reg) (on the body whose tangential
/// slip velocity is `slip`).
pub fn friction_force<R: Real>(mu: R, normal: R, slip: Vec3<R>, v_reg: R) -> Vec3<R> {
    let speed = (slip.x * slip.x + slip.y * slip.y + slip.z * slip.z).sqrt();
    let scale = -friction_damping(mu, normal, speed, v_reg);
    Vec3::new(scale * slip.x, scale * slip.y, scale * slip.z)
}

/// μ F_n / max(|v_t|, v_reg) (N·s/m): the regularized friction force is minus this times the
/// slip velocity, so it is also the friction's damping in an implicit tangent.
pub fn friction_damping<R: Real>(mu: R, normal: R, slip_speed: R, v_reg: R) -> R {
    mu * normal / slip_speed.max(v_reg)
}

/// Rebound speed (per unit impact speed) of one impact of x'' = −max(0, x^{3/2}(1 + χ x')),
/// x(0) = 0, x'(0) = 1: the restitution the Hertz–Flores law achieves with factor χ (mass,
/// stiffness and v₀ scale out). RK4 with step 1e-3 (the elastic contact lasts τ ≈ 3.2).
pub fn nondimensional_restitution<R: Real>(chi: R) -> R {
    let accel = |x: R, v: R| {
        if x <= R::ZERO {
            R::ZERO
        } else {
            -(x * x.sqrt() * (R::ONE + chi * v)).max(R::ZERO)
        }
    };
    let h = c::<R>(1e-3);
    let (two, sixth) = (R::TWO, c::<R>(6.0));
    let (mut x, mut v) = (R::ZERO, R::ONE);
    // Bounded: with χ ≥ 0 the contact ends well before τ = 100 (or the body stops inside).
    for _ in 0..100_000 {
        let (k1x, k1v) = (v, accel(x, v));
        let (k2x, k2v) = (
            v + R::HALF * h * k1v,
            accel(x + R::HALF * h * k1x, v + R::HALF * h * k1v),
        );
        let (k3x, k3v) = (
            v + R::HALF * h * k2v,
            accel(x + R::HALF * h * k2x, v + R::HALF * h * k2v),
        );
        let (k4x, k4v) = (v + h * k3v, accel(x + h * k3x, v + h * k3v));
        let (x1, v1) = (
            x + h / sixth * (k1x + two * k2x + two * k3x + k4x),
            v + h / sixth * (k1v + two * k2v + two * k3v + k4v),
        );
        if x1 <= R::ZERO && v1 < R::ZERO {
            // Interpolate the exit speed at x = 0 within the step.
            let s = x / (x - x1);
            return -(v + s * (v1 - v));
        }
        (x, v) = (x1, v1);
    }
    R::ZERO
}

/// χ with [`nondimensional_restitution`]`(χ) = e`, by bisection (e in (0, 1]).
pub fn calibrated_damping_factor<R: Real>(e: R) -> R {
    if e >= R::ONE {
        return R::ZERO;
    }
    // Flores' χ overdamps, so the answer lies below it; widen until bracketed.
    let (mut lo, mut hi) = (R::ZERO, flores_damping_factor(e));
    while nondimensional_restitution(hi) > e && hi < c::<R>(1e6) {
        hi *= R::TWO;
    }
    for _ in 0..60 {
        let mid = R::HALF * (lo + hi);
        if nondimensional_restitution(mid) > e {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo < c::<R>(1e-10) * hi {
            break;
        }
    }
    R::HALF * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hertz_stiffness_sphere_on_plane() {
        // Sphere R = 0.01 m on a flat: R* = R; K = 4/3 E* √R*.
        let r = effective_radius(0.01, f64::INFINITY);
        assert_eq!(r, 0.01);
        let k = hertz_stiffness(1e9, r);
        assert!((k - 4.0 / 3.0 * 1e9 * 0.1).abs() < 1e-3);
        assert!((effective_radius(0.02, 0.02) - 0.01_f64).abs() < 1e-15);
        // 1/E* = 2(1 − 0.09)/210e9  →  E* = 115.38 GPa.
        let steel = (1.0 - 0.09) / 210e9;
        assert!((effective_modulus(steel, steel) - 210e9 / (2.0 * 0.91)).abs() < 1.0);
    }

    #[test]
    fn normal_force_is_hertz_plus_flores() {
        let (k, e, v0) = (1e8, 0.5, 2.0);
        let chi = flores_damping_factor(e);
        assert!((chi - 8.0 * 0.5 / 2.5_f64).abs() < 1e-15);
        let (d, dd) = (1e-4_f64, 1.5);
        let expected = k * libm::pow(d, 1.5) * (1.0 + 8.0 * (1.0 - e) / (5.0 * e * v0) * dd);
        assert!((normal_force(k, chi, d, dd, v0) - expected).abs() < 1e-9 * expected);
        assert_eq!(normal_force(k, chi, -1e-6, 1.0, v0), 0.0);
        // Separating fast: the damping term would pull; the force is clamped at zero.
        assert_eq!(normal_force(k, 10.0, d, -v0, v0), 0.0);
        // f32 agrees with f64 to its precision.
        let single = normal_force(k as f32, chi as f32, d as f32, dd as f32, v0 as f32);
        assert!((f64::from(single) - expected).abs() < 1e-5 * expected);
    }

    #[test]
    fn friction_is_regularized_coulomb() {
        let f = friction_force(0.4, 10.0, Vec3::new(2.0, 0.0, 0.0), 1e-3);
        assert!((f.x + 4.0_f64).abs() < 1e-12 && f.y == 0.0);
        // Below v_reg: linear, μ F_n v / v_reg.
        let f = friction_force(0.4, 10.0, Vec3::new(0.0, 5e-4, 0.0), 1e-3);
        assert!((f.y + 2.0_f64).abs() < 1e-12);
        assert_eq!(friction_force(0.4, 10.0, Vec3::<f64>::ZERO, 1e-3), Vec3::ZERO);
    }

    #[test]
    fn elastic_impact_is_elastic_and_flores_overdamps() {
        assert!((nondimensional_restitution(0.0_f64) - 1.0).abs() < 1e-6);
        // Reference: independent RK4 (h = 2e-5) of x'' = −x^{3/2}(1 + χx') with Flores' χ.
        for (e, achieved) in [(0.3, 0.256_208), (0.5, 0.470_445), (0.8, 0.788_539)] {
            let chi = flores_damping_factor(e);
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
            assert!(chi < flores_damping_factor(e));
        }
        assert_eq!(calibrated_damping_factor(1.0_f64), 0.0);
    }
}
