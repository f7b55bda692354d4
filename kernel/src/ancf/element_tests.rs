//! Element-level tests: mass and load, patch tests, exact homogeneous stretch, and
//! finite-difference checks of force and tangent. Each test names its reference.
// Dense index loops read like the formulas they check.
#![allow(clippy::needless_range_loop)]

use super::test_support::{skewed_vertices, Lcg};
use super::*;
use crate::math::{Mat3, Quat, Vec3};

const N: usize = ELEMENT_COORDS;

fn materials() -> [Material<f64>; 2] {
    [
        Material::st_venant_kirchhoff(1.0e6, 0.3, 1200.0).unwrap(),
        Material::neo_hookean(1.0e6, 0.3, 1200.0).unwrap(),
    ]
}

fn element(mat: &Material<f64>) -> TetElement<f64> {
    TetElement::new(skewed_vertices(), mat).unwrap()
}

/// Coordinates of the affine motion r = F0 X + t: positions F0 p + t, gradients the columns of F0.
fn affine<R: crate::Real>(vertices: &[Vec3<R>; 4], f0: &Mat3<R>, t: Vec3<R>) -> [R; N] {
    let mut e = [R::ZERO; N];
    for (n, p) in vertices.iter().enumerate() {
        e[12 * n..12 * n + 3].copy_from_slice(&(f0.mul_vec(*p) + t).to_array());
        for d in 0..3 {
            e[12 * n + 3 * (d + 1)..12 * n + 3 * (d + 2)].copy_from_slice(&f0.column(d).to_array());
        }
    }
    e
}

fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// A random deformed state: reference + 8% random perturbation of every coordinate.
fn random_state(rng: &mut Lcg) -> [f64; N] {
    let mut e = reference_coordinates(&skewed_vertices());
    for v in e.iter_mut() {
        *v += 0.08 * rng.signed();
    }
    e
}

#[test]
fn mass_matrix_total_mass_second_moment_and_positive_definite() {
    // References: total mass ρV (rigid translation: value DOFs 1, gradient DOFs 0); the exact
    // second moment ∫ρ X·X dV = ρV/20 (Σ|p_m|² + |Σp_m|²) since r = X is reproduced; Cholesky.
    let mat = materials()[0];
    let el = element(&mat);
    let m = el.scalar_mass();
    let rho_v = mat.density * el.volume();
    let total: f64 = (0..4)
        .flat_map(|a| (0..4).map(move |b| (a, b)))
        .map(|(a, b)| m[4 * a][4 * b])
        .sum();
    assert!(
        (total / rho_v - 1.0).abs() < 1e-14,
        "total mass error {:e}",
        total / rho_v - 1.0
    );
    let p = skewed_vertices::<f64>();
    let sum = p[0] + p[1] + p[2] + p[3];
    let exact = rho_v / 20.0 * (p.iter().map(|v| v.norm_squared()).sum::<f64>() + sum.norm_squared());
    let e = reference_coordinates(&p);
    let mut me = [0.0; N];
    el.mass_times(&e, &mut me);
    let second: f64 = e.iter().zip(me.iter()).map(|(a, b)| a * b).sum();
    assert!((second / exact - 1.0).abs() < 1e-13);
    // Symmetric and positive definite (Cholesky succeeds).
    let mut l = *m;
    for j in 0..16 {
        for i in 0..16 {
            assert_eq!(m[i][j], m[j][i]);
        }
        for k in 0..j {
            let ljk = l[j][k];
            for i in j..16 {
                l[i][j] -= l[i][k] * ljk;
            }
        }
        assert!(l[j][j] > 0.0, "pivot {j} not positive");
        let d = l[j][j].sqrt();
        for i in j..16 {
            l[i][j] /= d;
        }
    }
}

#[test]
fn gravity_load_totals_and_moment() {
    // Reference: Σ value-DOF loads = ρV g; e_refᵀ f_g = ∫ρ g·X dV = ρV g·centroid.
    let mat = materials()[1];
    let el = element(&mat);
    let g = Vec3::new(0.3, -1.2, -9.81);
    let mut f = [0.0; N];
    el.gravity_load(g, &mut f);
    let rho_v = mat.density * el.volume();
    for i in 0..3 {
        let s: f64 = (0..4).map(|n| f[12 * n + i]).sum();
        assert!((s - rho_v * g.to_array()[i]).abs() < 1e-12 * rho_v * 10.0);
    }
    let p = skewed_vertices::<f64>();
    let c = (p[0] + p[1] + p[2] + p[3]).scale(0.25);
    let e = reference_coordinates(&p);
    let w: f64 = e.iter().zip(f.iter()).map(|(a, b)| a * b).sum();
    assert!((w / (rho_v * g.dot(c)) - 1.0).abs() < 1e-13);
}

#[test]
fn rigid_motion_gives_zero_force() {
    // Reference: patch test; E = 0 under any rigid motion, so S = 0 and Q_e = 0.
    let p = skewed_vertices::<f64>();
    let rot = Quat::from_roll_pitch_yaw(0.7, -1.1, 2.3).to_matrix();
    for mat in materials() {
        let el = element(&mat);
        let scale = mat.mu * el.volume();
        for (f0, t) in [
            (Mat3::IDENTITY, Vec3::new(0.4, -2.0, 1.5)),
            (rot, Vec3::new(-0.3, 0.2, 5.0)),
        ] {
            let e = affine(&p, &f0, t);
            let mut q = [0.0; N];
            el.elastic_force(&mat, &e, &mut q).unwrap();
            let rel = max_abs(&q) / scale;
            assert!(rel < 1e-12, "{:?}: |Q|/(μV) = {rel:e}", mat.law);
            assert!(el.strain_energy(&mat, &e).unwrap().abs() < 1e-12 * scale);
        }
    }
}

/// W(F0) from the textbook formulas, written out here independently of the material code.
fn exact_stress_and_energy(mat: &Material<f64>, f0: &Mat3<f64>) -> (Mat3<f64>, f64) {
    let c = f0.transpose().mul_mat(f0);
    let (l, mu) = (mat.lambda, mat.mu);
    let tr = |a: &Mat3<f64>| a.m[0][0] + a.m[1][1] + a.m[2][2];
    match mat.law {
        MaterialLaw::StVenantKirchhoff => {
            let mut e = c;
            for i in 0..3 {
                e.m[i][i] -= 1.0;
            }
            e = e.scale(0.5);
            let mut s = e.scale(2.0 * mu);
            for i in 0..3 {
                s.m[i][i] += l * tr(&e);
            }
            let ee: f64 = (0..9).map(|k| e.m[k / 3][k % 3] * e.m[k / 3][k % 3]).sum();
            (s, 0.5 * l * tr(&e) * tr(&e) + mu * ee)
        }
        MaterialLaw::NeoHookean => {
            let j = f0.determinant();
            let ci = c.inverse().unwrap();
            let mut s = ci.scale(l * j.ln() - mu);
            for i in 0..3 {
                s.m[i][i] += mu;
            }
            (
                s,
                0.5 * mu * (tr(&c) - 3.0) - mu * j.ln() + 0.5 * l * j.ln() * j.ln(),
            )
        }
    }
}

#[test]
fn uniform_stretch_gives_the_exact_stress_and_energy() {
    // Reference: for r = F0 X the interpolation is exact (linear fields are reproduced), so
    // F = F0 at every point, S = S(F0) (SVK: λ trE I + 2μE; NH: μ(I − C⁻¹) + λ lnJ C⁻¹) and
    // U = W(F0) V.
    let p = skewed_vertices::<f64>();
    let f0 = Mat3::from_rows([[1.25, 0.10, -0.05], [0.02, 0.90, 0.15], [-0.08, 0.04, 1.10]]);
    let e = affine(&p, &f0, Vec3::new(0.1, 0.2, 0.3));
    for mat in materials() {
        let el = element(&mat);
        let (s_exact, w_exact) = exact_stress_and_energy(&mat, &f0);
        let mut fs = [Mat3::ZERO; FORCE_POINTS];
        let mut ss = [Mat3::ZERO; FORCE_POINTS];
        el.deformation_gradients(&e, &mut fs);
        el.stresses(&mat, &e, &mut ss).unwrap();
        let mut worst: f64 = 0.0;
        for (f, s) in fs.iter().zip(ss.iter()) {
            for i in 0..3 {
                for j in 0..3 {
                    assert!((f.m[i][j] - f0.m[i][j]).abs() < 1e-13);
                    worst = worst.max((s.m[i][j] - s_exact.m[i][j]).abs() / mat.mu);
                }
            }
        }
        assert!(worst < 1e-12, "{:?}: stress error / μ = {worst:e}", mat.law);
        let u = el.strain_energy(&mat, &e).unwrap();
        let rel = (u / (w_exact * el.volume()) - 1.0).abs();
        assert!(rel < 1e-13, "{:?}: energy error {rel:e}", mat.law);
    }
}

#[test]
fn force_is_minus_the_gradient_of_the_strain_energy() {
    // Reference: hyperelasticity, Q_e = −∂U/∂e; central differences of U, step 1e-6.
    let mut rng = Lcg(2024);
    for mat in materials() {
        let el = element(&mat);
        let e = random_state(&mut rng);
        let mut q = [0.0; N];
        el.elastic_force(&mat, &e, &mut q).unwrap();
        let h = 1e-6;
        let mut worst: f64 = 0.0;
        for a in 0..N {
            let (mut ep, mut em) = (e, e);
            ep[a] += h;
            em[a] -= h;
            let du =
                (el.strain_energy(&mat, &ep).unwrap() - el.strain_energy(&mat, &em).unwrap()) / (2.0 * h);
            worst = worst.max((q[a] + du).abs());
        }
        let rel = worst / max_abs(&q);
        assert!(rel < 1e-6, "{:?}: relative error {rel:e}", mat.law);
    }
}

#[test]
fn tangent_matches_finite_differences_of_the_force() {
    // Reference: K = −∂Q_e/∂e by central differences of Q_e, step 1e-6; K is symmetric
    // (it is the Hessian of U).
    let mut rng = Lcg(99);
    let mut k = [[0.0; N]; N];
    for mat in materials() {
        let el = element(&mat);
        let e = random_state(&mut rng);
        let mut q0 = [0.0; N];
        el.elastic_force_and_tangent(&mat, &e, &mut q0, &mut k).unwrap();
        let mut q1 = [0.0; N];
        el.elastic_force(&mat, &e, &mut q1).unwrap();
        assert_eq!(q0, q1);
        let kmax = k.iter().fold(0.0, |m: f64, row| m.max(max_abs(row)));
        let h = 1e-6;
        let (mut worst, mut asym): (f64, f64) = (0.0, 0.0);
        for b in 0..N {
            let (mut ep, mut em) = (e, e);
            ep[b] += h;
            em[b] -= h;
            let (mut qp, mut qm) = ([0.0; N], [0.0; N]);
            el.elastic_force(&mat, &ep, &mut qp).unwrap();
            el.elastic_force(&mat, &em, &mut qm).unwrap();
            for a in 0..N {
                let fd = -(qp[a] - qm[a]) / (2.0 * h);
                worst = worst.max((k[a][b] - fd).abs());
                asym = asym.max((k[a][b] - k[b][a]).abs());
            }
        }
        let rel = worst / kmax;
        assert!(rel < 1e-6, "{:?}: relative error {rel:e}", mat.law);
        assert_eq!(asym, 0.0);
    }
}

/// K by the generic route, column by column: for coordinate (b, j), δE = sym(f_j ⊗ ∇s_b),
/// δS = (∂S/∂E) : δE from `stress_increment`, K_(a,i),(b,j) = w (F δS ∇s_a)_i, plus the
/// geometric part w (∇s_a · S ∇s_b) δ_ij; no symmetry used.
fn generic_tangent(el: &TetElement<f64>, mat: &Material<f64>, e: &[f64; N]) -> [[f64; N]; N] {
    let mut k = [[0.0; N]; N];
    let mut fs = [Mat3::ZERO; FORCE_POINTS];
    el.deformation_gradients(e, &mut fs);
    for ((&w, grads), f) in el.weights.iter().zip(el.gradients.iter()).zip(fs) {
        let point = mat.evaluate(&f).unwrap();
        for (b, gb) in grads.iter().enumerate() {
            for j in 0..3 {
                let mut de = Mat3::ZERO;
                for x in 0..3 {
                    for y in 0..3 {
                        de.m[x][y] = 0.5 * (f.m[j][x] * gb[y] + gb[x] * f.m[j][y]);
                    }
                }
                let fds = f.mul_mat(&point.stress_increment(&de));
                for (a, ga) in grads.iter().enumerate() {
                    let v = fds.mul_vec(Vec3::from_array(*ga));
                    let geometric = point
                        .stress
                        .mul_vec(Vec3::from_array(*gb))
                        .dot(Vec3::from_array(*ga));
                    for i in 0..3 {
                        let g = if i == j { geometric } else { 0.0 };
                        k[3 * a + i][3 * b + j] += w * (v.to_array()[i] + g);
                    }
                }
            }
        }
    }
    k
}

#[test]
fn closed_form_tangent_equals_the_generic_formula() {
    // Reference: the column-by-column tangent through the material's stress increment
    // (generic_tangent) at a random deformed state; equal to round-off (measured 1.6e-16 SVK,
    // 3.4e-16 Neo-Hookean, relative to max |K|), for both laws.
    let mut rng = Lcg(7);
    let mut k = [[0.0; N]; N];
    let mut q = [0.0; N];
    for mat in materials() {
        let el = element(&mat);
        let e = random_state(&mut rng);
        el.elastic_force_and_tangent(&mat, &e, &mut q, &mut k).unwrap();
        let generic = generic_tangent(&el, &mat, &e);
        let kmax = k.iter().fold(0.0, |m: f64, row| m.max(max_abs(row)));
        let worst = (0..N * N).fold(0.0f64, |m, x| {
            m.max((k[x / N][x % N] - generic[x / N][x % N]).abs())
        });
        assert!(
            worst < 1e-14 * kmax,
            "{:?}: max difference / max |K| = {:e}",
            mat.law,
            worst / kmax
        );
    }
}

/// Numerical rank by Gaussian elimination with full pivoting.
fn rank(mut a: [[f64; N]; N], tol: f64) -> usize {
    let mut r = 0;
    for col in 0..N {
        let (mut pi, mut pj, mut best) = (r, col, 0.0);
        for i in r..N {
            for j in col..N {
                if a[i][j].abs() > best {
                    (pi, pj, best) = (i, j, a[i][j].abs());
                }
            }
        }
        if best <= tol {
            break;
        }
        a.swap(r, pi);
        for row in a.iter_mut() {
            row.swap(col, pj);
        }
        for i in r + 1..N {
            let f = a[i][col] / a[r][col];
            for j in col..N {
                a[i][j] -= f * a[r][j];
            }
        }
        r += 1;
    }
    r
}

#[test]
fn reference_tangent_has_exactly_the_six_rigid_modes() {
    // Reference: a stable element has rank 48 − 6 (rigid translations and rotations only);
    // fewer would mean spurious zero-energy (hourglass) modes from under-integration.
    let mut k = [[0.0; N]; N];
    for mat in materials() {
        let el = element(&mat);
        el.tangent_stiffness(&mat, &reference_coordinates(&skewed_vertices()), &mut k)
            .unwrap();
        let kmax = k.iter().fold(0.0, |m: f64, row| m.max(max_abs(row)));
        assert_eq!(rank(k, 1e-10 * kmax), 42, "{:?}", mat.law);
    }
}

#[test]
fn inverted_element_is_an_error_naming_the_point() {
    // Reference: J = det F ≤ 0 has no physical meaning; a mirror image has J = −1 everywhere.
    let p = skewed_vertices::<f64>();
    let mirror = Mat3::diagonal(Vec3::new(1.0, 1.0, -1.0));
    let e = affine(&p, &mirror, Vec3::ZERO);
    let mut q = [0.0; N];
    let mut k = [[0.0; N]; N];
    for mat in materials() {
        let el = element(&mat);
        let is_first_point = |r: Result<(), ElementError>| matches!(r, Err(ElementError::Inverted { qp: 0, jacobian }) if (jacobian + 1.0).abs() < 1e-12);
        assert!(is_first_point(el.elastic_force(&mat, &e, &mut q)));
        assert!(is_first_point(el.strain_energy(&mat, &e).map(|_| ())));
        assert!(is_first_point(el.tangent_stiffness(&mat, &e, &mut k)));
        // Locally inverted: drag one node through the opposite face (positions and gradients).
        let mut local = reference_coordinates(&p);
        let c = (p[1] + p[2] + p[3]).scale(1.0 / 3.0);
        local[0..3].copy_from_slice(&(c + (c - p[0]).scale(0.6)).to_array());
        assert!(matches!(
            el.elastic_force(&mat, &local, &mut q),
            Err(ElementError::Inverted { .. })
        ));
    }
    // Non-finite coordinates are reported too (det F is NaN).
    let mut nan = reference_coordinates(&p);
    nan[5] = f64::NAN;
    let mat = materials()[0];
    assert!(matches!(
        element(&mat).elastic_force(&mat, &nan, &mut q),
        Err(ElementError::Inverted { .. })
    ));
}

#[test]
fn f32_smoke_test() {
    // Reference: the same closed forms as the f64 tests, to f32 accuracy.
    let mat = Material::<f32>::neo_hookean(1.0e6, 0.3, 1200.0).unwrap();
    let p = skewed_vertices::<f32>();
    let el = TetElement::new(p, &mat).unwrap();
    let total: f32 = (0..4)
        .flat_map(|a| (0..4).map(move |b| (a, b)))
        .map(|(a, b)| el.scalar_mass()[4 * a][4 * b])
        .sum();
    assert!((total / (mat.density * el.volume()) - 1.0).abs() < 1e-5);
    let rot = Quat::<f32>::from_roll_pitch_yaw(0.3, 0.2, -0.4).to_matrix();
    let mut q = [0.0f32; N];
    el.elastic_force(&mat, &affine(&p, &rot, Vec3::new(1.0, 2.0, 3.0)), &mut q)
        .unwrap();
    let scale = mat.mu * el.volume();
    assert!(q.iter().all(|v| v.abs() < 1e-4 * scale));
    let f0 = Mat3::<f32>::diagonal(Vec3::new(1.2, 0.9, 1.05));
    let mut ss = [Mat3::ZERO; FORCE_POINTS];
    el.stresses(&mat, &affine(&p, &f0, Vec3::ZERO), &mut ss).unwrap();
    let mat64 = materials()[1];
    let (s_exact, _) = exact_stress_and_energy(&mat64, &Mat3::diagonal(Vec3::new(1.2, 0.9, 1.05)));
    for s in ss.iter() {
        for i in 0..3 {
            for j in 0..3 {
                assert!((s.m[i][j] as f64 - s_exact.m[i][j]).abs() < 1e-4 * mat64.mu);
            }
        }
    }
    let mut k = [[0.0f32; N]; N];
    el.tangent_stiffness(&mat, &reference_coordinates(&p), &mut k)
        .unwrap();
    assert!(k.iter().all(|row| row.iter().all(|v| v.is_finite())));
}

#[test]
fn memory_per_element_is_as_documented() {
    // Reference: the module doc (983 scalars per element).
    assert_eq!(core::mem::size_of::<TetElement<f64>>(), 983 * 8);
    assert_eq!(core::mem::size_of::<TetElement<f32>>(), 983 * 4);
}

#[test]
fn f32_force_of_a_turned_element_keeps_the_precision_of_its_strain() {
    // Reference: the f64 element at the same vertices (f32 ones, exact in f64) in the motion
    // r = R (I + s D) X + t, turned by 0.02 rad, strained by s = 1e-5. The displacements
    // u = e − e_ref are formed in f64 and handed to the f32 element as the flexible body's state
    // holds them: their f32 rounding and what it left out. Summed plainly in f32, H carries an
    // error of ε₃₂θ: the force was off by 4.0e-3 of its size. Split from the rotation, what is
    // left comes from the rotation's second order (θ², cancelling in E) and the f32 vertex
    // offsets: 4.6e-5 (at θ = 0.005: 1.6e-5, plainly 1.4e-3).
    let p32 = skewed_vertices::<f32>();
    let p64 = p32.map(|v| Vec3::new(v.x as f64, v.y as f64, v.z as f64));
    let axis = Vec3::new(0.3, -0.5, 0.8).normalized().unwrap();
    let turn = Quat::from_axis_angle(axis, 0.02).to_matrix();
    let strain = Mat3 {
        m: [[1.0, 0.4, -0.2], [0.4, -0.3, 0.1], [-0.2, 0.1, 0.2]],
    };
    let f0 = turn.mul_mat(&(Mat3::IDENTITY + strain.scale(1e-5)));
    let e = affine(&p64, &f0, Vec3::new(0.5, -0.2, 0.1));
    let reference = reference_coordinates(&p64);
    let u: [f64; N] = core::array::from_fn(|k| e[k] - reference[k]);
    let high = u.map(|x| x as f32);
    let low: [f32; N] = core::array::from_fn(|k| (u[k] - high[k] as f64) as f32);
    for law in [MaterialLaw::StVenantKirchhoff, MaterialLaw::NeoHookean] {
        let mat32 = Material::<f32>::new(law, 1.0e6, 0.3, 1200.0).unwrap();
        let mat64 = Material::<f64>::new(law, 1.0e6, 0.3, 1200.0).unwrap();
        let (mut q32, mut q64) = ([0.0f32; N], [0.0f64; N]);
        TetElement::new(p32, &mat32)
            .unwrap()
            .elastic_force_from_displacement(&mat32, &high, Some(&low), &mut q32)
            .unwrap();
        TetElement::new(p64, &mat64)
            .unwrap()
            .elastic_force_from_displacement(&mat64, &u, None, &mut q64)
            .unwrap();
        let error = q32
            .iter()
            .zip(&q64)
            .fold(0.0f64, |m, (a, b)| m.max((*a as f64 - b).abs()));
        let relative = error / max_abs(&q64);
        assert!(
            relative < 1e-4,
            "{law:?}: f32 force off by {relative:.2e} of its size"
        );
    }
}
