//! Hyperelastic materials in the reference (Lagrangian) description: strain energy density W,
//! second Piola–Kirchhoff stress S = ∂W/∂E and its increment dS = (∂S/∂E) : dE.

use super::ElementError;
use crate::math::Mat3;
use crate::Real;

/// Constitutive law.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MaterialLaw {
    /// St. Venant–Kirchhoff: S = λ tr(E) I + 2μE, W = λ/2 (tr E)² + μ E:E.
    StVenantKirchhoff,
    /// Compressible Neo-Hookean: S = μ(I − C⁻¹) + λ ln(J) C⁻¹,
    /// W = μ/2 (tr C − 3) − μ ln J + λ/2 (ln J)².
    NeoHookean,
}

/// An isotropic elastic material with density and optional Rayleigh damping coefficients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Material<R> {
    /// Constitutive law.
    pub law: MaterialLaw,
    /// First Lamé parameter λ = Eν / ((1 + ν)(1 − 2ν)), in Pa.
    pub lambda: R,
    /// Shear modulus μ = E / (2(1 + ν)), in Pa.
    pub mu: R,
    /// Mass density ρ, in kg/m³.
    pub density: R,
    /// Rayleigh mass-proportional damping α, in 1/s (D = αM + βK); carried, not applied here.
    pub rayleigh_mass: R,
    /// Rayleigh stiffness-proportional damping β, in s; carried, not applied here.
    pub rayleigh_stiffness: R,
}

/// Stress state of a material at one point, with its tangent moduli.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialPoint<R> {
    /// Second Piola–Kirchhoff stress S.
    pub stress: Mat3<R>,
    /// Strain energy density W per unit reference volume.
    pub energy: R,
    /// ∂S/∂E at this point.
    moduli: TangentModuli<R>,
}

/// The material tangent ∂S/∂E at a point in the form both laws share:
/// (∂S/∂E) : dE = λ (A : dE) A + 2c A dE A with A symmetric
/// (St. Venant–Kirchhoff: A = I, c = μ; Neo-Hookean: A = C⁻¹, c = μ − λ ln J).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TangentModuli<R> {
    /// λ.
    pub lambda: R,
    /// c.
    pub shear: R,
    /// A.
    pub metric: Mat3<R>,
}

/// Double contraction A : B.
pub(crate) fn ddot<R: Real>(a: &Mat3<R>, b: &Mat3<R>) -> R {
    let mut s = R::ZERO;
    for i in 0..3 {
        for j in 0..3 {
            s += a.m[i][j] * b.m[i][j];
        }
    }
    s
}

/// Trace.
fn trace<R: Real>(a: &Mat3<R>) -> R {
    a.m[0][0] + a.m[1][1] + a.m[2][2]
}

/// `a · A + b · B`.
fn combine<R: Real>(a: R, x: &Mat3<R>, b: R, y: &Mat3<R>) -> Mat3<R> {
    let mut r = Mat3::ZERO;
    for i in 0..3 {
        for j in 0..3 {
            r.m[i][j] = a * x.m[i][j] + b * y.m[i][j];
        }
    }
    r
}

impl<R: Real> Material<R> {
    /// Builds from Young's modulus E (Pa), Poisson's ratio ν and density ρ (kg/m³), validated.
    pub fn new(law: MaterialLaw, youngs: R, poisson: R, density: R) -> Result<Self, ElementError> {
        let bad = |reason| Err(ElementError::InvalidMaterial { reason });
        if !(youngs > R::ZERO && youngs.is_finite()) {
            return bad("Young's modulus E must be finite and > 0");
        }
        if !(poisson > -R::ONE && poisson < R::HALF) {
            return bad("Poisson's ratio nu must satisfy -1 < nu < 0.5");
        }
        if !(density > R::ZERO && density.is_finite()) {
            return bad("density rho must be finite and > 0");
        }
        let one = R::ONE;
        let lambda = youngs * poisson / ((one + poisson) * (one - R::TWO * poisson));
        let mu = youngs / (R::TWO * (one + poisson));
        Ok(Self {
            law,
            lambda,
            mu,
            density,
            rayleigh_mass: R::ZERO,
            rayleigh_stiffness: R::ZERO,
        })
    }

    /// St. Venant–Kirchhoff material from (E, ν, ρ).
    pub fn st_venant_kirchhoff(youngs: R, poisson: R, density: R) -> Result<Self, ElementError> {
        Self::new(MaterialLaw::StVenantKirchhoff, youngs, poisson, density)
    }

    /// Compressible Neo-Hookean material from (E, ν, ρ).
    pub fn neo_hookean(youngs: R, poisson: R, density: R) -> Result<Self, ElementError> {
        Self::new(MaterialLaw::NeoHookean, youngs, poisson, density)
    }

    /// Sets Rayleigh damping D = αM + βK (α in 1/s, β in s, both finite and ≥ 0).
    pub fn with_rayleigh(mut self, alpha: R, beta: R) -> Result<Self, ElementError> {
        if !(alpha >= R::ZERO && alpha.is_finite()) {
            return Err(ElementError::InvalidMaterial {
                reason: "Rayleigh mass coefficient alpha must be finite and >= 0",
            });
        }
        if !(beta >= R::ZERO && beta.is_finite()) {
            return Err(ElementError::InvalidMaterial {
                reason: "Rayleigh stiffness coefficient beta must be finite and >= 0",
            });
        }
        self.rayleigh_mass = alpha;
        self.rayleigh_stiffness = beta;
        Ok(self)
    }

    /// Stress and energy for the deformation gradient F; `None` when J = det F ≤ 0 or not finite.
    /// Prefer [`Material::evaluate_displacement_gradient`] when H = F − I is at hand: forming
    /// H from F here loses the precision that function keeps.
    pub fn evaluate(&self, f: &Mat3<R>) -> Option<MaterialPoint<R>> {
        self.evaluate_displacement_gradient(&(*f - Mat3::IDENTITY))
    }

    /// Stress and energy for the displacement gradient H = F − I; `None` when J = det F ≤ 0 or
    /// not finite. Everything is formed from H without cancellation: E = ½(H + Hᵀ + HᵀH),
    /// J − 1 = tr H + i₂(H) + det H, ln J = ln_1p(J − 1), μ(I − C⁻¹) = 2μ C⁻¹E. The textbook
    /// E = ½(FᵀF − I) keeps only the absolute precision of F ≈ I, which in f32 is a stress
    /// error of about ε₃₂·E_young: far above the strain of a stiff body at rest.
    pub fn evaluate_displacement_gradient(&self, h: &Mat3<R>) -> Option<MaterialPoint<R>> {
        self.evaluate_split_gradient(h, h)
    }

    /// [`Material::evaluate_displacement_gradient`] for H given with a part H′ = H − W, W skew
    /// to the bit (a rotation): E = ½((H′ + H′ᵀ) + HᵀH) keeps the precision of H′, where
    /// H + Hᵀ would take the rounding of W in H and cancel W only then.
    pub fn evaluate_split_gradient(&self, h: &Mat3<R>, rest: &Mat3<R>) -> Option<MaterialPoint<R>> {
        let j_minus_one = trace(h) + principal_minors(h) + h.determinant();
        // Inverted or NaN: SVK would still give numbers, but they describe no physical state.
        if !(j_minus_one > -R::ONE && j_minus_one.is_finite()) {
            return None;
        }
        let symmetric = *rest + rest.transpose();
        let e = combine(R::HALF, &symmetric, R::HALF, &h.transpose().mul_mat(h));
        let (lambda, mu) = (self.lambda, self.mu);
        match self.law {
            MaterialLaw::StVenantKirchhoff => {
                let tr = trace(&e);
                let stress = combine(lambda * tr, &Mat3::IDENTITY, R::TWO * mu, &e);
                let energy = R::HALF * lambda * tr * tr + mu * ddot(&e, &e);
                // dS = λ tr(dE) I + 2μ dE.
                let moduli = TangentModuli {
                    lambda,
                    shear: mu,
                    metric: Mat3::IDENTITY,
                };
                Some(MaterialPoint {
                    stress,
                    energy,
                    moduli,
                })
            }
            MaterialLaw::NeoHookean => {
                let c = combine(R::ONE, &Mat3::IDENTITY, R::TWO, &e);
                let c_inv = c.inverse()?;
                let ln_j = j_minus_one.ln_1p();
                // C⁻¹ and E commute; the symmetric part removes the round-off asymmetry.
                let c_inv_e = c_inv.mul_mat(&e).symmetric_part();
                let stress = combine(R::TWO * mu, &c_inv_e, lambda * ln_j, &c_inv);
                let energy = mu * trace(&e) - mu * ln_j + R::HALF * lambda * ln_j * ln_j;
                // With dC = 2 dE: d(C⁻¹) = −2 C⁻¹ dE C⁻¹ and d(ln J) = C⁻¹ : dE, so
                // dS = 2(μ − λ ln J) C⁻¹ dE C⁻¹ + λ (C⁻¹ : dE) C⁻¹.
                let moduli = TangentModuli {
                    lambda,
                    shear: mu - lambda * ln_j,
                    metric: c_inv,
                };
                Some(MaterialPoint {
                    stress,
                    energy,
                    moduli,
                })
            }
        }
    }
}

/// Sum of the principal 2×2 minors of H (its second invariant): det(I + H) = 1 + tr H + i₂ + det H.
fn principal_minors<R: Real>(h: &Mat3<R>) -> R {
    let m = &h.m;
    (m[0][0] * m[1][1] - m[0][1] * m[1][0])
        + (m[0][0] * m[2][2] - m[0][2] * m[2][0])
        + (m[1][1] * m[2][2] - m[1][2] * m[2][1])
}

impl<R: Real> MaterialPoint<R> {
    /// The tangent moduli (λ, c, A) of ∂S/∂E at this point.
    pub fn tangent_moduli(&self) -> TangentModuli<R> {
        self.moduli
    }

    /// Stress increment dS = (∂S/∂E) : dE for a symmetric strain increment dE.
    pub fn stress_increment(&self, de: &Mat3<R>) -> Mat3<R> {
        let t = self.tangent_moduli();
        let a = &t.metric;
        let ada = a.mul_mat(de).mul_mat(a);
        combine(R::TWO * t.shear, &ada, t.lambda * ddot(a, de), a)
    }
}

#[cfg(test)]
#[path = "material_tests.rs"]
mod tests;
