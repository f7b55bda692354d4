//! Designs of experiments: the full grid, Latin hypercube and Monte Carlo samples, each case
//! with its own seed.
//!
//! Random numbers come from ChaCha8 (`rand_chacha`), which gives the same stream on every
//! platform. A case's seed is drawn from the study seed on the case's own ChaCha stream, and
//! the case's uniforms come from a generator seeded with it, so one case can be regenerated
//! from its seed alone; the Latin hypercube's permutations come from the study seed.

use super::spec::Axis;
use rand::distr::Open01;
use rand::seq::SliceRandom;
use rand::{Rng, RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One planned case: its seed and one manifest cell per parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Draw {
    /// The case's seed.
    pub seed: u64,
    /// The parameters' values, as manifest cells.
    pub cells: Vec<String>,
}

/// The seed of case `index` of a study seeded with `study_seed`.
pub fn case_seed(study_seed: u64, index: usize) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(study_seed);
    // Stream 0 is the Latin hypercube's permutations; case k uses stream k + 1.
    rng.set_stream(index as u64 + 1);
    rng.next_u64()
}

/// Every combination of the axes' levels, the first axis varying slowest (as nested loops in
/// the order given); `None` when an axis is continuous.
pub fn grid(axes: &[Axis], study_seed: u64) -> Option<Vec<Draw>> {
    let levels: Vec<&Vec<String>> = axes
        .iter()
        .map(|a| match a {
            Axis::Levels(l) => Some(l),
            Axis::Continuous(_) => None,
        })
        .collect::<Option<_>>()?;
    let count: usize = levels.iter().map(|l| l.len()).product();
    let draws = (0..count)
        .map(|index| {
            let mut rest = index;
            let mut cells = vec![String::new(); levels.len()];
            for (cell, l) in cells.iter_mut().zip(&levels).rev() {
                *cell = l[rest % l.len()].clone();
                rest /= l.len();
            }
            Draw {
                seed: case_seed(study_seed, index),
                cells,
            }
        })
        .collect();
    Some(draws)
}

/// `cases` independent draws: every parameter of every case from its own uniform.
pub fn monte_carlo(axes: &[Axis], cases: usize, study_seed: u64) -> Vec<Draw> {
    (0..cases)
        .map(|index| {
            let seed = case_seed(study_seed, index);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let cells = axes.iter().map(|a| a.sample(rng.sample(Open01))).collect();
            Draw { seed, cells }
        })
        .collect()
}

/// A Latin hypercube of `cases` points: each parameter's probability range is cut into
/// `cases` equal strata and each stratum is taken by exactly one case (a seeded permutation
/// per parameter), at a uniform point inside it.
pub fn latin_hypercube(axes: &[Axis], cases: usize, study_seed: u64) -> Vec<Draw> {
    let mut shuffler = ChaCha8Rng::seed_from_u64(study_seed);
    let strata: Vec<Vec<usize>> = axes
        .iter()
        .map(|_| {
            let mut p: Vec<usize> = (0..cases).collect();
            p.shuffle(&mut shuffler);
            p
        })
        .collect();
    (0..cases)
        .map(|index| {
            let seed = case_seed(study_seed, index);
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let cells = axes
                .iter()
                .zip(&strata)
                .map(|(axis, p)| {
                    let within: f64 = rng.sample(Open01);
                    axis.sample((p[index] as f64 + within) / cases as f64)
                })
                .collect();
            Draw { seed, cells }
        })
        .collect()
}

/// The standard normal quantile Φ⁻¹(p) for p ∈ (0, 1): Acklam's rational approximation
/// (relative error 1.2e-9) and one Halley step on Φ(x) − p through libm's erfc, which brings it
/// to full double precision. ±∞ at 0 and 1, NaN outside.
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const LOW: f64 = 0.024_25;
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    let x = if p < LOW {
        tail(libm::sqrt(-2.0 * libm::log(p)))
    } else if p > 1.0 - LOW {
        -tail(libm::sqrt(-2.0 * libm::log(1.0 - p)))
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // Halley: e = Φ(x) − p, u = e·√(2π)·exp(x²/2), x ← x − u / (1 + x u / 2).
    let e = 0.5 * libm::erfc(-x / core::f64::consts::SQRT_2) - p;
    let u = e * libm::sqrt(2.0 * core::f64::consts::PI) * libm::exp(x * x / 2.0);
    x - u / (1.0 + x * u / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_quantile_matches_reference_values() {
        // Φ⁻¹ at 0.5, 0.8413447460685429 (Φ(1)), 0.975, 1e-10 (published tables).
        assert_eq!(normal_quantile(0.5), 0.0);
        assert!((normal_quantile(0.841_344_746_068_542_9) - 1.0).abs() < 1e-14);
        assert!((normal_quantile(0.975) - 1.959_963_984_540_054).abs() < 1e-14);
        assert!((normal_quantile(1e-10) + 6.361_340_902_404_056).abs() < 1e-12);
        assert!((normal_quantile(0.3) + normal_quantile(0.7)).abs() < 1e-15);
        assert!(normal_quantile(1.5).is_nan());
    }

    #[test]
    fn grid_is_the_product_with_the_first_axis_slowest() {
        let axes = [
            Axis::Levels(vec!["a".into(), "b".into()]),
            Axis::Levels(vec!["1".into(), "2".into(), "3".into()]),
        ];
        let cells: Vec<Vec<String>> = grid(&axes, 0).unwrap().into_iter().map(|d| d.cells).collect();
        let expected: Vec<Vec<String>> = ["a1", "a2", "a3", "b1", "b2", "b3"]
            .iter()
            .map(|s| vec![s[..1].to_string(), s[1..].to_string()])
            .collect();
        assert_eq!(cells, expected);
    }
}
