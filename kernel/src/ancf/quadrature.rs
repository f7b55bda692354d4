//! Fully symmetric quadrature rules on the tetrahedron, as const tables in barycentric coordinates.
//!
//! Weights are fractions of the volume (they sum to 1): `∫_T f dV ≈ V Σ_q w_q f(Σ_m λ_qm p_m)`.
//! Orbit parameters are given with 20 significant digits and expanded at compile time, so the
//! tables are the same bits on every target. The tests check every monomial of the barycentric
//! coordinates up to the stated degree against the exact formula
//! `∫_T λ1^a λ2^b λ3^c λ4^d dV = 6V a! b! c! d! / (a+b+c+d+3)!`.

// The published 20-digit values are kept as printed (rounded to f64 by the compiler).
#![allow(clippy::excessive_precision)]

/// A quadrature rule on the tetrahedron with `N` points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TetRule<const N: usize> {
    /// Highest total polynomial degree integrated exactly.
    pub degree: u32,
    /// Barycentric coordinates (λ1..λ4, summing to 1) of each point.
    pub points: [[f64; 4]; N],
    /// Weights as fractions of the element volume (summing to 1).
    pub weights: [f64; N],
}

/// Points of an S31 orbit (one coordinate `1 − 3a`, three equal to `a`).
const fn s31(a: f64) -> [[f64; 4]; 4] {
    let b = 1.0 - 3.0 * a;
    [[b, a, a, a], [a, b, a, a], [a, a, b, a], [a, a, a, b]]
}

/// Points of an S22 orbit (two coordinates `a`, two equal to `1/2 − a`).
const fn s22(a: f64) -> [[f64; 4]; 6] {
    let b = 0.5 - a;
    [
        [b, b, a, a],
        [b, a, b, a],
        [b, a, a, b],
        [a, b, b, a],
        [a, b, a, b],
        [a, a, b, b],
    ]
}

/// Points of an S211 orbit (two coordinates `a`, one `b`, one `1 − 2a − b`): 12 permutations.
const fn s211(a: f64, b: f64) -> [[f64; 4]; 12] {
    let c = 1.0 - 2.0 * a - b;
    [
        [a, a, b, c],
        [a, a, c, b],
        [a, b, a, c],
        [a, c, a, b],
        [a, b, c, a],
        [a, c, b, a],
        [b, a, a, c],
        [c, a, a, b],
        [b, a, c, a],
        [c, a, b, a],
        [b, c, a, a],
        [c, b, a, a],
    ]
}

// Degree-5, 14-point rule, all weights positive, all points interior.
// Source: Gellert & Harbord (1991), "Moderate degree cubature formulas for 3-D tetrahedral
// finite-element approximations", Commun. Appl. Numer. Methods 7, 487–495, Table VI (closed form);
// the same rule with 20 digits in Walkington (2000), "Quadrature on simplices of arbitrary
// dimension", CMU tech. report. Weights there are for the unit tetrahedron of volume 1/6, hence ×6.
const D5_A1: f64 = 0.310_885_919_263_300_609_80;
const D5_W1: f64 = 6.0 * 0.018_781_320_953_002_641_800;
const D5_A2: f64 = 0.092_735_250_310_891_226_402;
const D5_W2: f64 = 6.0 * 0.012_248_840_519_393_658_257;
const D5_A3: f64 = 0.045_503_704_125_649_649_492;
const D5_W3: f64 = 6.0 * 0.007_091_003_462_846_911_073_0;

/// Points of the degree-5 rule.
const fn d5_points() -> [[f64; 4]; 14] {
    let o1 = s31(D5_A1);
    let o2 = s31(D5_A2);
    let o3 = s22(D5_A3);
    [
        o1[0], o1[1], o1[2], o1[3], o2[0], o2[1], o2[2], o2[3], o3[0], o3[1], o3[2], o3[3], o3[4], o3[5],
    ]
}

/// Degree-5, 14 points, positive weights (Gellert & Harbord 1991; Walkington 2000).
///
/// M. Gellert, R. Harbord, Commun. Appl. Numer. Methods 7 (1991) 487–495, Table VI;
/// N. Walkington, "Quadrature on simplices of arbitrary dimension" (CMU, 2000).
pub const TET_DEGREE5: TetRule<14> = TetRule {
    degree: 5,
    points: d5_points(),
    weights: [
        D5_W1, D5_W1, D5_W1, D5_W1, D5_W2, D5_W2, D5_W2, D5_W2, D5_W3, D5_W3, D5_W3, D5_W3, D5_W3, D5_W3,
    ],
};

// Degree-6, 24-point rule, all weights positive, all points interior.
// Source: Keast (1986), "Moderate-degree tetrahedral quadrature formulas", Comput. Methods Appl.
// Mech. Engrg. 55, 339–348, rule with 24 points (three S31 orbits and one S211 orbit); 20-digit
// values as tabulated for the unit tetrahedron (volume 1/6, hence ×6) in MFEM's intrules.cpp.
const D6_A1: f64 = 0.214_602_871_259_152_029_29;
const D6_W1: f64 = 6.0 * 6.653_791_709_694_582_016_6e-3;
const D6_A2: f64 = 0.040_673_958_534_611_353_116;
const D6_W2: f64 = 6.0 * 1.679_535_175_886_773_824_7e-3;
// Tabulated by its single coordinate 1 − 3a = 0.032986329573173468968.
const D6_A3: f64 = (1.0 - 0.032_986_329_573_173_468_968) / 3.0;
const D6_W3: f64 = 6.0 * 9.226_196_923_942_453_682_5e-3;
const D6_A4: f64 = 0.063_661_001_875_017_525_299;
const D6_B4: f64 = 0.269_672_331_458_315_808_03;
// 27/560 exactly in Keast's table.
const D6_W4: f64 = 27.0 / 560.0;

/// Points of the degree-6 rule.
const fn d6_points() -> [[f64; 4]; 24] {
    let o1 = s31(D6_A1);
    let o2 = s31(D6_A2);
    let o3 = s31(D6_A3);
    let o4 = s211(D6_A4, D6_B4);
    [
        o1[0], o1[1], o1[2], o1[3], o2[0], o2[1], o2[2], o2[3], o3[0], o3[1], o3[2], o3[3], o4[0], o4[1],
        o4[2], o4[3], o4[4], o4[5], o4[6], o4[7], o4[8], o4[9], o4[10], o4[11],
    ]
}

/// Degree-6, 24 points, positive weights (Keast 1986).
///
/// P. Keast, "Moderate-degree tetrahedral quadrature formulas", Comput. Methods Appl. Mech.
/// Engrg. 55 (1986) 339–348.
pub const TET_DEGREE6: TetRule<24> = TetRule {
    degree: 6,
    points: d6_points(),
    weights: [
        D6_W1, D6_W1, D6_W1, D6_W1, D6_W2, D6_W2, D6_W2, D6_W2, D6_W3, D6_W3, D6_W3, D6_W3, D6_W4, D6_W4,
        D6_W4, D6_W4, D6_W4, D6_W4, D6_W4, D6_W4, D6_W4, D6_W4, D6_W4, D6_W4,
    ],
};

/// Rule for the mass matrix and the gravity load: s sᵀ is a product of two cubics (degree 6).
pub const MASS_RULE: TetRule<24> = TET_DEGREE6;

/// Rule for elastic forces, strain energy and tangent (see the module doc for why degree 5).
pub const FORCE_RULE: TetRule<14> = TET_DEGREE5;

/// Number of quadrature points of [`FORCE_RULE`].
pub const FORCE_POINTS: usize = 14;

#[cfg(test)]
mod tests {
    use super::*;

    fn pow(x: f64, n: u32) -> f64 {
        (0..n).fold(1.0, |p, _| p * x)
    }

    fn factorial(n: u32) -> f64 {
        (1..=n).fold(1.0, |p, k| p * k as f64)
    }

    /// Largest error over all barycentric monomials of total degree `deg`, against
    /// ∫ λ1^a λ2^b λ3^c λ4^d dV / V = 6 a! b! c! d! / (a+b+c+d+3)!.
    fn worst_error<const N: usize>(rule: &TetRule<N>, deg: u32) -> f64 {
        let mut worst: f64 = 0.0;
        for a in 0..=deg {
            for b in 0..=deg - a {
                for c in 0..=deg - a - b {
                    let d = deg - a - b - c;
                    let exact =
                        6.0 * factorial(a) * factorial(b) * factorial(c) * factorial(d) / factorial(deg + 3);
                    let mut sum = 0.0;
                    for (p, w) in rule.points.iter().zip(rule.weights.iter()) {
                        sum += w * pow(p[0], a) * pow(p[1], b) * pow(p[2], c) * pow(p[3], d);
                    }
                    worst = worst.max(((sum - exact) / exact).abs());
                }
            }
        }
        worst
    }

    fn check_rule<const N: usize>(rule: &TetRule<N>) {
        for p in rule.points.iter() {
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
            assert!(p.iter().all(|&l| l > 0.0), "points are interior");
        }
        assert!(rule.weights.iter().all(|&w| w > 0.0), "weights are positive");
        let mut worst: f64 = 0.0;
        for deg in 0..=rule.degree {
            let e = worst_error(rule, deg);
            assert!(e < 1e-14, "degree {deg}: relative error {e:e}");
            worst = worst.max(e);
        }
        // And no more: the next degree is not integrated exactly.
        assert!(worst_error(rule, rule.degree + 1) > 1e-8);
    }

    #[test]
    fn degree5_rule_is_exact_to_degree_5() {
        // Reference: exact simplex monomial integral (see worst_error).
        check_rule(&TET_DEGREE5);
    }

    #[test]
    fn degree6_rule_is_exact_to_degree_6() {
        // Reference: exact simplex monomial integral (see worst_error).
        check_rule(&TET_DEGREE6);
    }
}
