use super::*;
use crate::ancf::test_support::Lcg;

fn laws() -> [Material<f64>; 2] {
    [
        Material::st_venant_kirchhoff(2.0e5, 0.3, 1000.0).unwrap(),
        Material::neo_hookean(2.0e5, 0.3, 1000.0).unwrap(),
    ]
}

fn random_f(rng: &mut Lcg, amp: f64) -> Mat3<f64> {
    let mut f = Mat3::IDENTITY;
    for row in f.m.iter_mut() {
        for v in row.iter_mut() {
            *v += amp * rng.signed();
        }
    }
    f
}

#[test]
fn lame_parameters_from_youngs_modulus_and_poisson_ratio() {
    // Reference: λ = Eν/((1+ν)(1−2ν)), μ = E/(2(1+ν)); for E = 210 GPa, ν = 0.3:
    // λ = 121.153846... GPa, μ = 80.769230... GPa.
    let m = Material::<f64>::st_venant_kirchhoff(210e9, 0.3, 7850.0).unwrap();
    assert!((m.lambda / 121.153_846_153_846e9 - 1.0).abs() < 1e-12);
    assert!((m.mu / 80.769_230_769_230_8e9 - 1.0).abs() < 1e-12);
}

#[test]
fn invalid_parameters_are_errors_naming_the_parameter() {
    let reason = |r: Result<Material<f64>, ElementError>| match r {
        Err(ElementError::InvalidMaterial { reason }) => reason,
        other => panic!("expected an error, got {other:?}"),
    };
    assert!(reason(Material::neo_hookean(0.0, 0.3, 1.0)).contains("Young"));
    assert!(reason(Material::neo_hookean(f64::NAN, 0.3, 1.0)).contains("Young"));
    assert!(reason(Material::neo_hookean(1.0, 0.5, 1.0)).contains("Poisson"));
    assert!(reason(Material::neo_hookean(1.0, -1.0, 1.0)).contains("Poisson"));
    assert!(reason(Material::st_venant_kirchhoff(1.0, 0.2, -1.0)).contains("density"));
    let ok = Material::st_venant_kirchhoff(1.0, 0.2, 1.0).unwrap();
    assert!(reason(ok.with_rayleigh(-1.0, 0.0)).contains("alpha"));
    assert!(reason(ok.with_rayleigh(0.0, f64::INFINITY)).contains("beta"));
    let damped = ok.with_rayleigh(0.5, 1e-3).unwrap();
    assert_eq!((damped.rayleigh_mass, damped.rayleigh_stiffness), (0.5, 1e-3));
}

#[test]
fn stress_is_the_derivative_of_the_energy() {
    // Reference: hyperelasticity, P = F S = ∂W/∂F (central differences of W).
    let mut rng = Lcg(3);
    for mat in laws() {
        let f = random_f(&mut rng, 0.2);
        let p = f.mul_mat(&mat.evaluate(&f).unwrap().stress);
        let h = 1e-6;
        for i in 0..3 {
            for j in 0..3 {
                let (mut fp, mut fm) = (f, f);
                fp.m[i][j] += h;
                fm.m[i][j] -= h;
                let wp = mat.evaluate(&fp).unwrap().energy;
                let wm = mat.evaluate(&fm).unwrap().energy;
                let fd = (wp - wm) / (2.0 * h);
                assert!(
                    (fd - p.m[i][j]).abs() < 1e-6 * mat.mu,
                    "{:?} P[{i}][{j}]",
                    mat.law
                );
            }
        }
    }
}

#[test]
fn stress_increment_matches_finite_differences() {
    // Reference: dS = (∂S/∂E) : dE with dE = sym(Fᵀ dF), central differences of S(F).
    let mut rng = Lcg(5);
    for mat in laws() {
        let f = random_f(&mut rng, 0.2);
        let df = random_f(&mut rng, 1.0);
        let mut de = f.transpose().mul_mat(&df);
        de = combine(0.5, &de, 0.5, &de.transpose());
        let ds = mat.evaluate(&f).unwrap().stress_increment(&de);
        let h = 1e-6;
        let fp = combine(1.0, &f, h, &df);
        let fm = combine(1.0, &f, -h, &df);
        let sp = mat.evaluate(&fp).unwrap().stress;
        let sm = mat.evaluate(&fm).unwrap().stress;
        for i in 0..3 {
            for j in 0..3 {
                let fd = (sp.m[i][j] - sm.m[i][j]) / (2.0 * h);
                assert!(
                    (fd - ds.m[i][j]).abs() < 1e-6 * mat.mu,
                    "{:?} dS[{i}][{j}]",
                    mat.law
                );
            }
        }
    }
}

#[test]
fn small_strain_limit_is_hookes_law() {
    // Reference: linear elasticity σ = λ tr(ε) I + 2με for both laws as ε → 0.
    let eps = 1e-7;
    let f = Mat3::from_rows([
        [1.0 + eps, 0.5 * eps, 0.0],
        [0.5 * eps, 1.0, 0.0],
        [0.0, 0.0, 1.0 - eps],
    ]);
    for mat in laws() {
        let s = mat.evaluate(&f).unwrap().stress;
        // tr ε = 0 here, so σ_xx = 2με_xx.
        let lin = 2.0 * mat.mu * eps;
        assert!((s.m[0][0] / lin - 1.0).abs() < 1e-5, "{:?}", mat.law);
        assert!((s.m[0][1] / (mat.mu * eps) - 1.0).abs() < 1e-5, "{:?}", mat.law);
    }
}

#[test]
fn inverted_deformation_has_no_stress() {
    let f = Mat3::<f64>::diagonal(crate::math::Vec3::new(1.0, 1.0, -0.5));
    for mat in laws() {
        assert!(mat.evaluate(&f).is_none());
    }
}

#[test]
fn f32_small_strain_keeps_relative_precision() {
    // Reference: Hooke's law σ = λ tr(ε) I + 2με, evaluated in f64 from the same H. Formed from
    // the displacement gradient, an f32 strain of 1e-6 keeps f32's relative precision; through
    // E = ½(FᵀF − I) it would carry an absolute error ≈ ε₃₂ ≈ 1e-7, i.e. 10% of this strain.
    let eps = 1e-6f32;
    let h = Mat3::from_rows([
        [eps, 0.5 * eps, 0.0],
        [0.5 * eps, 0.3 * eps, 0.0],
        [0.0, 0.0, -eps],
    ]);
    for law in [MaterialLaw::StVenantKirchhoff, MaterialLaw::NeoHookean] {
        let mat = Material::<f32>::new(law, 2.1e11, 0.3, 7850.0).unwrap();
        let s = mat.evaluate_displacement_gradient(&h).unwrap().stress;
        let (lambda, mu) = (mat.lambda as f64, mat.mu as f64);
        let tr = (eps as f64) * 0.3;
        let hooke_xx = lambda * tr + 2.0 * mu * eps as f64;
        let hooke_xy = mu * eps as f64;
        // Second-order terms are O(ε²) ≈ 1e-6 relative; f32 rounding adds a few ε₃₂.
        assert!(
            (s.m[0][0] as f64 / hooke_xx - 1.0).abs() < 1e-5,
            "{law:?}: {}",
            s.m[0][0]
        );
        assert!(
            (s.m[0][1] as f64 / hooke_xy - 1.0).abs() < 1e-5,
            "{law:?}: {}",
            s.m[0][1]
        );
    }
}
