//! The contact force law on the host's descriptions: the kernel's Hertz–Flores–Coulomb law
//! ([`ferrodyn_kernel::contact::law`], its one home: the host's contact and the kernel's ground
//! contacts evaluate the same formulas) with the scene's materials (DESIGN.md, "Contact").
//!
//! F_n = K δ^{3/2} (1 + D δ̇) ≥ 0,  K = 4/3 E* √R*,  D = χ / v₀,
//! F_t = −μ F_n v_t / max(|v_t|, v_reg).

use crate::spec::{ContactMaterial, Dissipation, Elastic};
use ferrodyn_kernel::contact::law;
use ferrodyn_kernel::math::Vec3;

pub use ferrodyn_kernel::contact::law::{
    calibrated_damping_factor, effective_radius, friction_damping, hertz_energy, hertz_stiffness,
    nondimensional_restitution, normal_force, normal_force_derivatives,
};

/// Effective modulus E* of two materials in contact.
pub fn effective_modulus(a: &Elastic, b: &Elastic) -> f64 {
    law::effective_modulus(a.compliance(), b.compliance())
}

/// The damping factor χ = D·v₀ of `material` (validated).
pub fn damping_factor(material: &ContactMaterial) -> f64 {
    let e = material.restitution;
    match material.dissipation {
        Dissipation::Flores => law::flores_damping_factor(e),
        Dissipation::FloresCalibrated => calibrated_damping_factor(e),
    }
}

/// Regularized Coulomb friction on the body whose tangential slip velocity is `slip`
/// ([`law::friction_force`] on arrays).
pub fn friction_force(mu: f64, normal: f64, slip: [f64; 3], v_reg: f64) -> [f64; 3] {
    law::friction_force(mu, normal, Vec3::from_array(slip), v_reg).to_array()
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
