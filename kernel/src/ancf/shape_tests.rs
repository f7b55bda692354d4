// Dense index loops read like the formulas they check.
#![allow(clippy::needless_range_loop)]

use super::*;
use crate::ancf::test_support::{skewed_vertices, Lcg};

fn shape() -> TetShape<f64> {
    TetShape::new(skewed_vertices()).unwrap()
}

#[test]
fn kronecker_property_at_vertices() {
    // Reference: definition of a Hermite nodal basis (value and gradient DOFs are dual).
    let s = shape();
    let mut worst: f64 = 0.0;
    for (m, p) in s.vertices().iter().enumerate() {
        let v = s.values(*p);
        let g = s.gradients(*p);
        for n in 0..4 {
            for d in 0..4 {
                let k = 4 * n + d;
                let value = if n == m && d == 0 { 1.0 } else { 0.0 };
                worst = worst.max((v[k] - value).abs());
                for (e, ge) in g[k].iter().enumerate() {
                    let grad = if n == m && d == e + 1 { 1.0 } else { 0.0 };
                    worst = worst.max((ge - grad).abs());
                }
            }
        }
    }
    assert!(worst < 1e-13, "Kronecker error {worst:e}");
}

#[test]
fn partition_of_unity() {
    // Reference: constants are in the space, so the value functions sum to 1, gradients to 0.
    let s = shape();
    let mut rng = Lcg(7);
    for _ in 0..50 {
        let x = s.point(rng.bary());
        let v = s.values(x);
        let g = s.gradients(x);
        let sum: f64 = (0..4).map(|n| v[4 * n]).sum();
        assert!((sum - 1.0).abs() < 1e-13);
        for d in 0..3 {
            let gs: f64 = (0..4).map(|n| g[4 * n][d]).sum();
            assert!(gs.abs() < 1e-12);
        }
    }
}

/// q(X) = X^a Y^b Z^c and its gradient.
fn monomial(e: [usize; 3], x: Vec3<f64>) -> (f64, [f64; 3]) {
    let c = x.to_array();
    let pow = |t: f64, n: usize| (0..n).fold(1.0, |p, _| p * t);
    let v = pow(c[0], e[0]) * pow(c[1], e[1]) * pow(c[2], e[2]);
    let g: [f64; 3] = core::array::from_fn(|d| {
        if e[d] == 0 {
            return 0.0;
        }
        let mut p = e[d] as f64 * pow(c[d], e[d] - 1);
        for o in 0..3 {
            if o != d {
                p *= pow(c[o], e[o]);
            }
        }
        p
    });
    (v, g)
}

const QUADRATIC_EXPONENTS: [[usize; 3]; 10] = [
    [0, 0, 0],
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
    [2, 0, 0],
    [0, 2, 0],
    [0, 0, 2],
    [1, 1, 0],
    [1, 0, 1],
    [0, 1, 1],
];

#[test]
fn reproduces_every_quadratic_exactly() {
    // Reference: the face-centroid elimination rule is exact for quadratics (module doc), so
    // interpolating X^a Y^b Z^c (a+b+c ≤ 2) from its vertex values and gradients is exact.
    let s = shape();
    let mut rng = Lcg(11);
    let mut worst: f64 = 0.0;
    for e in QUADRATIC_EXPONENTS {
        let mut dofs = [0.0; SHAPE_FUNCTIONS];
        for (m, p) in s.vertices().iter().enumerate() {
            let (v, g) = monomial(e, *p);
            dofs[4 * m] = v;
            dofs[4 * m + 1..4 * m + 4].copy_from_slice(&g);
        }
        for _ in 0..40 {
            let x = s.point(rng.bary());
            let (v, g) = monomial(e, x);
            let sv = s.values(x);
            let sg = s.gradients(x);
            let interp: f64 = (0..16).map(|k| sv[k] * dofs[k]).sum();
            worst = worst.max((interp - v).abs());
            for d in 0..3 {
                let gi: f64 = (0..16).map(|k| sg[k][d] * dofs[k]).sum();
                worst = worst.max((gi - g[d]).abs());
            }
        }
    }
    assert!(worst < 1e-13, "quadratic reproduction error {worst:e}");
}

#[test]
fn elimination_rule_is_exact_for_quadratics_but_not_cubics() {
    // Reference: f(c) = 1/3 Σ f(p_m) + 1/6 Σ ∇f(p_m)·(c − p_m) on each face (derived in the
    // module doc); a cubic breaks it, which shows the test is not vacuous.
    let p = skewed_vertices::<f64>();
    for f in 0..4 {
        let face: [usize; 3] = match f {
            0 => [1, 2, 3],
            1 => [0, 2, 3],
            2 => [0, 1, 3],
            _ => [0, 1, 2],
        };
        let c = (p[face[0]] + p[face[1]] + p[face[2]]).scale(1.0 / 3.0);
        let rule = |e: [usize; 3]| {
            let mut r = 0.0;
            for &m in face.iter() {
                let (v, g) = monomial(e, p[m]);
                r += v / 3.0 + Vec3::from_array(g).dot(c - p[m]) / 6.0;
            }
            r - monomial(e, c).0
        };
        for e in QUADRATIC_EXPONENTS {
            assert!(rule(e).abs() < 1e-15, "face {f}, exponents {e:?}");
        }
        // X³ + Y³ + Z³: the error is −(1/36) Σ_m T[d_m, d_m, d_m], about 1e-2 here.
        assert!((rule([3, 0, 0]) + rule([0, 3, 0]) + rule([0, 0, 3])).abs() > 1e-4);
    }
}

#[test]
fn degenerate_tetrahedra_are_errors() {
    // Reference: coplanar vertices have zero volume; a NaN vertex is not a tetrahedron.
    let mut v = skewed_vertices::<f64>();
    v[3] = (v[0] + v[1] + v[2]).scale(1.0 / 3.0) + (v[1] - v[0]).scale(0.2);
    assert!(matches!(
        TetShape::new(v),
        Err(ElementError::DegenerateElement { .. })
    ));
    let mut w = skewed_vertices::<f64>();
    w[2].y = f64::NAN;
    assert!(matches!(
        TetShape::new(w),
        Err(ElementError::DegenerateElement { .. })
    ));
    // Either orientation is accepted, with the same positive volume.
    let mut flipped = skewed_vertices::<f64>();
    flipped.swap(0, 1);
    let a = TetShape::new(flipped).unwrap().volume();
    assert!((a - shape().volume()).abs() < 1e-15 && a > 0.0);
}
