//! Implicit integrators for rigid multibody systems (host `dae`): BDF1, BDF2 and generalized-α
//! against the linear-oscillator theory, the exact pendulum period and RK4 references.

use crate::common::{exact_period, mean_period, swing, upward_crossings};
use ferrodyn::host::dae::{Bdf, GeneralizedAlpha, HostMethod};
use ferrodyn::host::spec::NewtonSettings;
use ferrodyn::host::storage::RigidModel;
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::{Quat, Vec3};
use ferrodyn::kernel::rigid::{self, Body, BodyRef, Data, Force, Frame, Joint, JointKind, Model};
use ferrodyn::kernel::samples::{revolute_chain, simple_pendulum, ChainSpec, PendulumCapacities};
use ferrodyn::kernel::*;

fn bdf(order: u8) -> Bdf {
    Bdf::new(order, NewtonSettings::default())
}

fn alpha(rho_inf: f64) -> GeneralizedAlpha {
    GeneralizedAlpha::new(rho_inf, NewtonSettings::default())
}

/// A 1 kg body on a prismatic joint along z held by a zero-length spring of stiffness k to the
/// ground origin, no gravity: x'' = −k x exactly (the constraints hold exactly, so projection
/// does nothing), released at x0 = 0.1 m.
fn oscillator(stiffness: f64) -> Model<f64, Fixed<1, 1, 1, 5, 15>> {
    let mut b = Model::builder(Vec3::ZERO);
    let body = b
        .add_body(Body::sphere(1.0, 0.01).at(Vec3::new(0.0, 0.0, 0.1), Quat::IDENTITY))
        .unwrap();
    b.add_joint(Joint::new(
        JointKind::Prismatic,
        BodyRef::Ground,
        Frame::at(Vec3::ZERO),
        body,
        Frame::at(Vec3::ZERO),
    ))
    .unwrap();
    b.add_force(Force::SpringDamper {
        body_i: BodyRef::Ground,
        point_i: Vec3::ZERO,
        body_j: body,
        point_j: Vec3::ZERO,
        stiffness,
        damping: 0.0,
        rest_length: 0.0,
    })
    .unwrap();
    b.build().unwrap()
}

/// E_n / E_0 of the oscillator for n = 0 … `steps` steps of `h`.
fn energy_ratios<I: Integrator<f64>>(stiffness: f64, integrator: &mut I, h: f64, steps: usize) -> Vec<f64> {
    let model = oscillator(stiffness);
    let mut data = Data::new(&model);
    let e0 = rigid::energy(&model, &data).total();
    let mut ratios = vec![1.0];
    for _ in 0..steps {
        step(&model, &mut data, integrator, h).unwrap();
        ratios.push(rigid::energy(&model, &data).total() / e0);
    }
    ratios
}

/// Amplitude factor per step between steps `from` and `to`: (E_to / E_from)^(1/(2(to − from))).
fn amplitude_factor(ratios: &[f64], from: usize, to: usize) -> f64 {
    (ratios[to] / ratios[from]).powf(0.5 / (to - from) as f64)
}

#[test]
fn bdf_energy_decay_matches_the_linear_stability_theory() {
    // BDF applied to x'' = −ω²x (eigenvalues ±iω, z = iωh): the amplitude is multiplied by the
    // modulus of the principal root ζ per step, so E_N/E_0 = |ζ|^{2N} (after BDF2's BDF1
    // start-up step). BDF1: ζ = 1/(1 − z). BDF2: (3/2 − z)ζ² − 2ζ + ½ = 0,
    // ζ = (2 + √(1 + 2z)) / (3 − 2z).
    let (k, h, n) = (100.0, 0.01, 200); // ω = 10 rad/s, ωh = 0.1
    let zeta1 = 1.0 / (1.0 + (10.0f64 * h).powi(2)).sqrt();
    let bdf1 = energy_ratios(k, &mut bdf(1), h, n)[n];
    let theory1 = zeta1.powi(2 * n as i32);
    println!("BDF1 ωh = 0.1, {n} steps: E/E0 = {bdf1:.9}, theory |ζ|^2N = {theory1:.9}");
    assert!((bdf1 / theory1 - 1.0).abs() < 1e-8, "{bdf1} vs {theory1}");

    // |ζ| of BDF2's principal root, by complex arithmetic on (re, im) pairs.
    let wh = 10.0 * h;
    let (sr, si) = complex_sqrt(1.0, 2.0 * wh); // √(1 + 2iωh)
    let (nr, ni) = (2.0 + sr, si);
    let (dr, di) = (3.0, -2.0 * wh);
    let zeta2 = ((nr * nr + ni * ni) / (dr * dr + di * di)).sqrt();
    // The BDF1 start-up step excites BDF2's parasitic root ζ ≈ 1/3, gone after a few steps,
    // and shifts the amplitude once by O((ωh)²): compare the decay from step 50 on.
    let ratios = energy_ratios(k, &mut bdf(2), h, n);
    let factor = amplitude_factor(&ratios, 50, n);
    println!("BDF2 ωh = 0.1: amplitude factor per step {factor:.12}, theory |ζ| = {zeta2:.12}");
    assert!((factor / zeta2 - 1.0).abs() < 1e-9, "{factor} vs {zeta2}");
    assert!(ratios[n] > bdf1, "BDF2 dissipates less than BDF1");
}

fn complex_sqrt(re: f64, im: f64) -> (f64, f64) {
    let r = (re * re + im * im).sqrt();
    (((r + re) / 2.0).sqrt(), im.signum() * ((r - re) / 2.0).sqrt())
}

#[test]
fn generalized_alpha_conserves_or_damps_as_rho_inf_says() {
    // Spectral radius of the generalized-α amplification matrix for x'' = −ω²x (Chung &
    // Hulbert 1993, fig. 1; eigenvalues of the 3×3 matrix of (x, v, a) computed for ρ∞ = 0.5):
    // ρ(ωh) = 0.99999816 at ωh = 0.1 and 0.5372 at ωh = 100, → ρ∞ as ωh → ∞. ρ∞ = 1 keeps
    // ρ = 1 at every ωh: no dissipation.
    let (k, h) = (1e8, 0.01); // ω = 1e4 rad/s, ωh = 100: far beyond resolution
    let kept = energy_ratios(k, &mut alpha(1.0), h, 100)[100];
    println!("generalized-α ρ∞ = 1, ωh = 100: E/E0 after 100 steps = {kept:.12}");
    assert!((kept - 1.0).abs() < 1e-8, "{kept}");
    // Over steps 10…30 the amplitude stays far above the Newton tolerance floor (~1e-18 m).
    let damped = energy_ratios(k, &mut alpha(0.5), h, 30);
    let factor = amplitude_factor(&damped, 10, 30);
    println!("generalized-α ρ∞ = 0.5, ωh = 100: amplitude factor per step {factor:.4} (ρ = 0.5372)");
    assert!((factor - 0.5372).abs() < 0.05, "{factor}");
    // Resolved motion is hardly touched: ωh = 0.1. The discrete mode's energy also oscillates
    // at 2ω by O((ωh)²) (x and v are not exactly in quadrature), so measure over 2000 steps.
    let resolved = energy_ratios(100.0, &mut alpha(0.5), 0.01, 2000);
    let factor = amplitude_factor(&resolved, 20, 2000);
    println!("generalized-α ρ∞ = 0.5, ωh = 0.1: amplitude factor per step {factor:.9} (ρ = 0.999998160)");
    assert!((factor - 0.999998160).abs() < 1e-8, "{factor}");
}

/// Relative period error and relative energy change over 10 s of the 1 m pendulum released at
/// 90°, stepped by `integrator` at `dt`.
fn pendulum_errors<I: Integrator<f64>>(integrator: &mut I, dt: f64) -> (f64, f64) {
    let model = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, std::f64::consts::FRAC_PI_2).unwrap();
    let (samples, energies) = swing(&model, integrator, 10.0, dt, Vec3::ZERO);
    let reference = exact_period(1.0, std::f64::consts::FRAC_PI_2);
    let period = mean_period(&upward_crossings(&samples));
    let e0 = energies[0];
    let de = (energies[energies.len() - 1] - e0) / e0.abs().max(1.0);
    ((period - reference) / reference, de)
}

#[test]
fn pendulum_period_and_energy_against_exact_and_rk4() {
    // Reference: T = 4√(L/g) K(sin 45°) = 2.3678419 s; RK4 at the same step for comparison.
    let (rk4, rk4_e) = pendulum_errors(&mut Rk4, 1e-3);
    println!("RK4 dt = 1e-3: period error {rk4:.2e}, energy change {rk4_e:.2e}");
    let method = |name: &str| match name {
        "bdf2" => HostMethod::Bdf(bdf(2)),
        "generalized-alpha 1.0" => HostMethod::GeneralizedAlpha(alpha(1.0)),
        _ => HostMethod::GeneralizedAlpha(alpha(0.8)),
    };
    for name in ["bdf2", "generalized-alpha 1.0", "generalized-alpha 0.8"] {
        let (coarse, _) = pendulum_errors(&mut method(name), 2e-3);
        let (fine, energy) = pendulum_errors(&mut method(name), 1e-3);
        let order = (coarse / fine).abs().log2();
        println!(
            "{name}: period error {fine:.2e} at 1 ms ({coarse:.2e} at 2 ms, order {order:.2}), \
             energy change {energy:.2e} over 10 s"
        );
        // Second-order methods: the error falls 4× when h halves.
        assert!((1.8..2.2).contains(&order), "{name}: observed order {order}");
        assert!(fine.abs() < 1e-4 && fine.abs() > rk4.abs(), "{name}: {fine}");
        if name == "bdf2" {
            assert!(energy < 0.0, "BDF2 dissipates: {energy}");
        }
    }
}

/// The 20-link chain after 1 s from horizontal: joint-0 end position (all body positions) and
/// total energy.
fn chain_state<I: Integrator<f64>>(integrator: &mut I, dt: f64) -> (Vec<Vec3<f64>>, f64, f64) {
    let model: RigidModel = revolute_chain(&ChainSpec::standard(20)).unwrap();
    let mut data = Data::new(&model);
    let e0 = rigid::energy(&model, &data).total();
    let mut worst = 0.0f64;
    for _ in 0..(1.0 / dt).round() as usize {
        step(&model, &mut data, integrator, dt).unwrap();
        worst = worst.max(rigid::violation(&model, &data).position);
    }
    let positions = (0..20).map(|b| data.position(b)).collect();
    let e = rigid::energy(&model, &data).total();
    (positions, (e - e0) / e0.abs().max(1.0), worst)
}

fn max_distance(a: &[Vec3<f64>], b: &[Vec3<f64>]) -> f64 {
    a.iter().zip(b).map(|(p, q)| (*p - *q).norm()).fold(0.0, f64::max)
}

#[test]
fn twenty_link_chain_against_an_rk4_reference() {
    // Reference: RK4 at 0.1 ms (its own error at 1 ms is ~1e-9 m here).
    let (reference, _, _) = chain_state(&mut Rk4, 1e-4);
    let (rk4, rk4_e, _) = chain_state(&mut Rk4, 1e-3);
    println!(
        "RK4 1 ms: position error {:.2e} m, energy change {rk4_e:.2e}",
        max_distance(&rk4, &reference)
    );
    for (name, coarse, fine) in [
        (
            "bdf2",
            chain_state(&mut bdf(2), 2e-3),
            chain_state(&mut bdf(2), 1e-3),
        ),
        (
            "generalized-alpha 0.9",
            chain_state(&mut alpha(0.9), 2e-3),
            chain_state(&mut alpha(0.9), 1e-3),
        ),
    ] {
        let (e_coarse, e_fine) = (
            max_distance(&coarse.0, &reference),
            max_distance(&fine.0, &reference),
        );
        let order = (e_coarse / e_fine).log2();
        println!(
            "{name}: 20-link chain after 1 s, position error {e_fine:.2e} m at 1 ms ({e_coarse:.2e} at \
             2 ms, order {order:.2}), energy change {:.2e}, max |Φ| {:.1e}",
            fine.1, fine.2
        );
        assert!((1.7..2.3).contains(&order), "{name}: observed order {order}");
        assert!(
            fine.2 <= 1e-12,
            "{name}: constraint violation {} above the projection tolerance",
            fine.2
        );
    }
}

#[test]
fn a_step_that_does_not_converge_is_an_error_and_keeps_the_state() {
    // No Newton iteration allowed: the predictor's residual (gravity is unbalanced at release)
    // stays above the tolerance, so the step must fail with NotConverged and leave the state.
    let model = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, std::f64::consts::FRAC_PI_2).unwrap();
    let mut data = Data::new(&model);
    let before = data.state().to_vec();
    let newton = NewtonSettings {
        max_iterations: 0,
        ..NewtonSettings::default()
    };
    for mut method in [
        HostMethod::Bdf(Bdf::new(2, newton)),
        HostMethod::GeneralizedAlpha(GeneralizedAlpha::new(0.8, newton)),
    ] {
        let e = step(&model, &mut data, &mut method, 1e-3).unwrap_err();
        assert!(
            matches!(e, KernelError::NotConverged { iterations: 0, .. }),
            "{e:?}"
        );
        assert_eq!(data.state(), &before[..]);
        assert_eq!(data.time(), 0.0);
    }
}
