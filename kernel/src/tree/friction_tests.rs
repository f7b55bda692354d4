//! Tests of joint friction (smoothed Coulomb, [`super::JointFriction`]) and of the joint
//! spring-damper on a prismatic joint: a sliding pendulum's deceleration against (friction +
//! gravity) torque / inertia, its turning points against the Coulomb energy balance, the energy
//! lost against the friction's work, the creep below breakaway against v_s·atanh(τ / F_c), the
//! 3-D algorithm's accelerations against M⁻¹ times the friction forces, a prismatic mass on a
//! spring-damper against the damped oscillator's closed form, and the builder's refusals.

use super::*;
use crate::integrators::Rk4;
use crate::math::Mat3;
use crate::tree::{accelerations, energy, mass_matrix_at, Data};
use crate::{step, BuildError, Dynamics, Fixed, Item};

type Tree = Model<f64, Fixed<4>>;

const G: f64 = 9.81;
/// Pendulum: a 1.3 kg link, CG 0.4 m below a hinge about y, inertia about the CG 0.02 kg·m².
const MASS: f64 = 1.3;
const ARM: f64 = 0.4;
const OWN: f64 = 0.02;
/// Sliding friction (N·m), a sixteenth of the largest gravity torque m g l = 5.1 N·m.
const FRICTION: f64 = 0.3;
/// Smoothing velocity (rad/s): near rest the law is a damper of F_c / v_s = 300 N·m·s/rad, a
/// decay rate of 1,316 /s on the pendulum, so RK4 takes it at steps below 2 ms.
const SMOOTHING: f64 = 1e-3;

fn pendulum(friction: f64) -> Tree {
    let mut b = Tree::builder(Vec3::new(0.0, 0.0, -G));
    let inertia = Mat3::diagonal(Vec3::new(OWN, OWN, OWN));
    let link = Link::revolute(None, Vec3::ZERO, Vec3::Y)
        .with_mass(MASS, Vec3::new(0.0, 0.0, -ARM), inertia)
        .with_friction(friction, SMOOTHING);
    b.add_link(link).unwrap();
    b.build().unwrap()
}

/// Moment of inertia about the hinge: I_cg + m l².
fn pivot_inertia() -> f64 {
    OWN + MASS * ARM * ARM
}

/// Gravity's torque about the hinge at angle q (the CG at (−l sin q, 0, −l cos q)).
fn gravity_torque(q: f64) -> f64 {
    -MASS * G * ARM * q.sin()
}

#[test]
fn a_sliding_pendulum_decelerates_by_friction_plus_gravity_over_its_inertia() {
    // Sliding at |q̇| ≫ v_s, tanh(q̇ / v_s) = ±1 to the last bit: q̈ = (∓F_c + τ_g) / I_pivot
    // (the friction opposing the rate in both directions), and at any rate
    // q̈ = (−F_c tanh(q̇ / v_s) + τ_g) / I_pivot.
    let model = pendulum(FRICTION);
    let mut data = Data::new(&model);
    for (q, rate, friction) in [
        (0.7, 1.5, -FRICTION),
        (0.7, -1.5, FRICTION),
        (-0.2, 0.5, -FRICTION),
        (0.3, 0.4 * SMOOTHING, -FRICTION * 0.4f64.tanh()),
    ] {
        model.set_state(&mut data, &[q, rate]).unwrap();
        let mut accel = [0.0];
        accelerations(&model, &mut data, &mut accel).unwrap();
        let expected = (friction + gravity_torque(q)) / pivot_inertia();
        assert!(
            (accel[0] - expected).abs() <= 1e-14 * expected.abs(),
            "q {q}, q̇ {rate}: {} vs {expected}",
            accel[0]
        );
    }
}

/// Steps the pendulum from rest at `q0` for `steps` RK4 steps of `h`, calling `each` with
/// (q, q̇, total energy, the friction's work so far by the trapezoidal rule).
fn swing(q0: f64, h: f64, steps: usize, mut each: impl FnMut(f64, f64, f64, f64)) {
    let model = pendulum(FRICTION);
    let mut data = Data::new(&model);
    model.set_state(&mut data, &[q0, 0.0]).unwrap();
    let friction = model.links()[0].friction;
    let power = |rate: f64| friction.force(rate) * rate;
    let (mut work, mut last) = (0.0, 0.0);
    for _ in 0..steps {
        step(&model, &mut data, &mut Rk4, h).unwrap();
        let (q, rate) = (data.positions()[0], data.velocities()[0]);
        work += 0.5 * h * (power(last) + power(rate));
        last = rate;
        let e = energy(&model, &data);
        each(q, rate, e.kinetic + e.potential, work);
    }
}

#[test]
fn the_energy_a_swinging_pendulum_loses_is_the_friction_work() {
    // E(0) − E(t) = −∫ F(q̇) q̇ dt: the friction is the only non-conservative force. The work is
    // summed by the trapezoidal rule at 0.1 ms (its error, (h² / 12) ∫ P'' dt, is largest where
    // the rate turns through ±v_s; 2e-6 of the work here), and energy from the kernel.
    let e0 = -MASS * G * ARM * 1.0f64.cos();
    let (mut lost, mut worked) = (0.0, 0.0);
    swing(1.0, 1e-4, 30_000, |_, _, e, work| {
        lost = e0 - e;
        worked = -work;
    });
    assert!(lost > 1.0, "3 s of swinging lose much of the energy: {lost} J");
    assert!(
        (lost - worked).abs() < 1e-5 * lost,
        "lost {lost} J, friction work {worked} J"
    );
}

#[test]
fn successive_turning_points_follow_the_coulomb_energy_balance() {
    // Between turning points q_a and q_b the pendulum slides the whole way, so gravity's work
    // equals the friction's: m g l (cos q_b − cos q_a) = F_c (|q_a| + |q_b|) (the dry-friction
    // decrement of a nonlinear pendulum). The smoothing only acts while |q̇| < 3 v_s, for
    // 2·3 v_s / q̈ ≈ 1 ms at each turn, in which the pendulum moves (3 v_s)² / q̈ ≈ 2e-6 rad.
    let (mut turns, mut count) = ([0.0f64; 16], 1);
    turns[0] = 1.0;
    let (mut last_rate, mut last_q) = (0.0f64, 1.0);
    swing(1.0, 1e-4, 30_000, |q, rate, _, _| {
        if last_rate != 0.0 && rate.signum() != last_rate.signum() && count < turns.len() {
            turns[count] = if rate.abs() < last_rate.abs() { q } else { last_q };
            count += 1;
        }
        (last_rate, last_q) = (rate, q);
    });
    assert!(count >= 5, "turning points {:?}", &turns[..count]);
    let mgl = MASS * G * ARM;
    for pair in turns[..count].windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let gravity = mgl * (b.cos() - a.cos());
        let friction = FRICTION * (a.abs() + b.abs());
        assert!(
            (gravity - friction).abs() < 1e-4 * friction,
            "{a} → {b}: gravity's work {gravity} J, friction's {friction} J"
        );
    }
}

#[test]
fn below_breakaway_friction_holds_the_pendulum_but_for_the_creep_of_the_smoothing() {
    // Gravity's torque is half the breakaway force: Coulomb friction would hold the pendulum;
    // the smoothed law lets it creep at q̇ = −v_s·atanh(τ_g / F_c) (= 0.55 v_s here), reached
    // within a few I v_s / F_c = 0.8 ms. So over T = 1 s the angle moves at most
    // T·v_s·atanh(|τ_g| / F_c) (0.55 mrad), and the rate is the creep's at the angle it is at.
    let q0 = (0.5 * FRICTION / (MASS * G * ARM)).asin();
    let creep = |q: f64| -SMOOTHING * (-gravity_torque(q) / FRICTION).atanh();
    let (mut q_end, mut rate_end) = (q0, 0.0);
    swing(q0, 1e-4, 10_000, |q, rate, _, _| (q_end, rate_end) = (q, rate));
    let bound = 1.0 * SMOOTHING * 0.5f64.atanh();
    assert!(
        q_end < q0 && q0 - q_end <= bound,
        "moved {} rad, bound {bound}",
        q0 - q_end
    );
    assert!(
        q0 - q_end > 0.9 * bound,
        "it creeps (the smoothing's price): {}",
        q0 - q_end
    );
    assert!(
        (rate_end - creep(q_end)).abs() < 1e-3 * creep(q_end).abs(),
        "rate {rate_end} vs creep {}",
        creep(q_end)
    );
}

type Wide = Model<f64, Fixed<5>>;

/// A hinge about a skew axis with a slide below it, each with friction `friction`.
fn hinge_and_slide(friction: f64) -> Wide {
    let mut b = Wide::builder(Vec3::new(0.3, -0.5, -9.81));
    let inertia = Mat3::symmetric(Vec3::new(0.031, 0.027, 0.019), 0.002, -0.003, 0.001);
    let top = Link::revolute(None, Vec3::new(0.1, 0.0, 0.2), Vec3::new(0.0, 0.6, 0.8))
        .with_mass(1.1, Vec3::new(0.0, 0.1, -0.3), inertia)
        .with_friction(friction, 0.01);
    let slide = Link::prismatic(Some(0), Vec3::new(0.0, 0.2, -0.6), Vec3::new(0.6, 0.0, 0.8))
        .with_mass(0.7, Vec3::new(0.1, 0.0, -0.2), inertia)
        .with_friction(2.0 * friction, 0.02);
    b.add_link(top).unwrap();
    b.add_link(slide).unwrap();
    b.build().unwrap()
}

#[test]
fn friction_enters_the_three_dimensional_algorithm_as_a_joint_force() {
    // M (q̈ − q̈₀) = τ_f, q̈₀ the accelerations without friction at the same state and τ_f =
    // −F_c tanh(q̇ / v_s) per joint (a torque on the hinge, a force on the slide).
    let state = [0.8, -0.1, 0.012, -0.9];
    let run = |friction: f64| {
        let model = hinge_and_slide(friction);
        assert!(!model.is_planar());
        let mut data = Data::new(&model);
        model.set_state(&mut data, &state).unwrap();
        let (mut m, mut accel) = ([0.0; 4], [0.0; 2]);
        mass_matrix_at(&model, &mut data, &mut m).unwrap();
        accelerations(&model, &mut data, &mut accel).unwrap();
        (m, accel)
    };
    let friction = 0.4;
    let ((m, accel), (_, accel0)) = (run(friction), run(0.0));
    let expected = [
        -friction * (state[2] / 0.01f64).tanh(),
        -2.0 * friction * (state[3] / 0.02f64).tanh(),
    ];
    for (i, want) in expected.into_iter().enumerate() {
        let got: f64 = (0..2).map(|j| m[2 * i + j] * (accel[j] - accel0[j])).sum();
        assert!((got - want).abs() < 1e-12, "joint {i}: {got} vs {want}");
    }
}

#[test]
fn a_prismatic_mass_on_a_spring_damper_oscillates_as_the_closed_form() {
    // m ẍ + c ẋ + k (x − x_r) = 0: x − x_r = e^(−ζω₀t) (A cos ω_d t + B sin ω_d t) with
    // ω₀ = √(k / m), ζ = c / (2√(k m)), ω_d = ω₀ √(1 − ζ²), A = x₀ − x_r, B = (v₀ + ζω₀ A) / ω_d.
    // The slide is along x, gravity along −z (no load on the slide).
    let (m, k, c, rest) = (2.0, 50.0, 1.2, 0.1);
    let mut b = Tree::builder(Vec3::new(0.0, 0.0, -G));
    let inertia = Mat3::diagonal(Vec3::new(0.01, 0.01, 0.01));
    let link = Link::prismatic(None, Vec3::ZERO, Vec3::X)
        .with_mass(m, Vec3::new(0.0, 0.0, -0.2), inertia)
        .with_spring(k, rest)
        .with_damping(c);
    b.add_link(link).unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let (x0, v0) = (0.15, -0.3);
    model.set_state(&mut data, &[x0, v0]).unwrap();
    let w0 = (k / m).sqrt();
    let zeta = c / (2.0 * (k * m).sqrt());
    let wd = w0 * (1.0 - zeta * zeta).sqrt();
    let (a, bb) = (x0 - rest, (v0 + zeta * w0 * (x0 - rest)) / wd);
    let closed = |t: f64| rest + (-zeta * w0 * t).exp() * (a * (wd * t).cos() + bb * (wd * t).sin());
    let h = 1e-3;
    let (mut peaks, mut count) = ([0.0f64; 16], 0);
    let (mut prev, mut prev2) = (x0, x0);
    for n in 1..=6000 {
        step(&model, &mut data, &mut Rk4, h).unwrap();
        let (t, x) = (n as f64 * h, data.positions()[0]);
        assert!((x - closed(t)).abs() < 1e-9, "t {t}: x {x} vs {}", closed(t));
        if prev > prev2 && prev > x && count < peaks.len() {
            peaks[count] = prev - rest;
            count += 1;
        }
        (prev2, prev) = (prev, x);
    }
    // Successive maxima one damped period 2π/ω_d apart shrink by e^(−ζω₀·2π/ω_d).
    let decrement = (-zeta * w0 * 2.0 * core::f64::consts::PI / wd).exp();
    assert!(count >= 4, "peaks {:?}", &peaks[..count]);
    for pair in peaks[..count].windows(2) {
        assert!(
            (pair[1] / pair[0] - decrement).abs() < 1e-4,
            "ratio {} vs {decrement}",
            pair[1] / pair[0]
        );
    }
}

#[test]
fn bad_friction_is_refused_naming_the_joint() {
    let invalid = |reason| BuildError::InvalidParameter {
        item: Item::Joint(0),
        reason,
    };
    let hinge = Link::revolute(None, Vec3::ZERO, Vec3::Y);
    for (link, expected) in [
        (
            hinge.with_friction(-0.1, 0.01),
            invalid("friction force must be ≥ 0"),
        ),
        (
            hinge.with_friction(0.1, 0.0),
            invalid("friction smoothing velocity must be > 0"),
        ),
        (
            hinge.with_friction(f64::NAN, 0.01),
            BuildError::NonFinite { item: Item::Joint(0) },
        ),
        (
            Link::spherical(None, Vec3::ZERO).with_friction(0.1, 0.01),
            invalid("joint friction acts on a revolute or prismatic joint"),
        ),
    ] {
        let mut b = Tree::builder(Vec3::ZERO);
        let link = link.with_mass(1.0, Vec3::X, Mat3::diagonal(Vec3::new(0.1, 0.1, 0.1)));
        assert_eq!(b.add_link(link), Err(expected));
    }
}
