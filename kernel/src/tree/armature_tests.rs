//! Tests of joint armature (a rotor inertia on a joint's coordinate, MuJoCo's `armature`): a
//! pendulum's acceleration and period against the closed forms with I_pivot + Ia, energy
//! conserved with the rotor's ½ Ia q̇², the mass matrix and a ball joint's 3 × 3 pivot against the
//! same tree without armature, and the builder's refusal of a negative or non-finite value.

use super::*;
use crate::integrators::Rk4;
use crate::math::Mat3;
use crate::tree::{accelerations, energy, mass_matrix_at, Data};
use crate::{step, BuildError, Dynamics, Fixed, Item};

type Tree = Model<f64, Fixed<4>>;

const G: f64 = 9.81;
/// Pendulum: a 1.3 kg link, CG 0.4 m from a hinge about y, inertia about the CG 0.02 kg·m².
const MASS: f64 = 1.3;
const ARM: f64 = 0.4;
const OWN: f64 = 0.02;

fn pendulum(armature: f64) -> Tree {
    let mut b = Tree::builder(Vec3::new(0.0, 0.0, -G));
    let inertia = Mat3::diagonal(Vec3::new(OWN, OWN, OWN));
    let link = Link::revolute(None, Vec3::ZERO, Vec3::Y)
        .with_mass(MASS, Vec3::new(0.0, 0.0, -ARM), inertia)
        .with_armature(armature);
    b.add_link(link).unwrap();
    b.build().unwrap()
}

/// Moment of inertia about the hinge: I_cg + m l² (parallel axes).
fn pivot_inertia() -> f64 {
    OWN + MASS * ARM * ARM
}

#[test]
fn a_pendulum_with_armature_accelerates_as_inertia_i_plus_ia() {
    // Closed form: q̈ = (τ − m g l sin q) / (I_pivot + Ia), the link hanging along −z at q = 0
    // and turning about +y (the CG at (−l sin q, 0, −l cos q)).
    let armature = 0.37;
    let model = pendulum(armature);
    let mut data = Data::new(&model);
    let (q, torque) = (0.7, 0.25);
    model.set_state(&mut data, &[q, 1.5]).unwrap();
    data.set_input(0, torque).unwrap();
    let mut accel = [0.0];
    accelerations(&model, &mut data, &mut accel).unwrap();
    let expected = (torque - MASS * G * ARM * q.sin()) / (pivot_inertia() + armature);
    assert!(
        (accel[0] - expected).abs() <= 1e-14 * expected.abs(),
        "{} vs {expected}",
        accel[0]
    );
}

#[test]
fn a_pendulum_with_armature_swings_with_the_period_of_i_plus_ia() {
    // Small swings: T = 2π √((I_pivot + Ia) / (m g l)). From rest at q0 = 0.01 rad the angle
    // is q0 cos(2π t / T); after one period it is back at q0 (the amplitude's cubic term moves
    // the period by q0²/16 = 6e-6 relative), and with Ia = 0 the period differs by 2 %.
    let armature = 0.02;
    let model = pendulum(armature);
    let mut data = Data::new(&model);
    let q0 = 0.01;
    model.set_state(&mut data, &[q0, 0.0]).unwrap();
    let period = 2.0 * core::f64::consts::PI * ((pivot_inertia() + armature) / (MASS * G * ARM)).sqrt();
    let steps = 20_000;
    let h = period / f64::from(steps);
    let mut rk4 = Rk4;
    let mut crossings = 0;
    let mut last = q0;
    for _ in 0..steps {
        step(&model, &mut data, &mut rk4, h).unwrap();
        let q = data.positions()[0];
        if q.signum() != last.signum() {
            crossings += 1;
        }
        last = q;
    }
    assert_eq!(crossings, 2);
    let q = data.positions()[0];
    assert!((q - q0).abs() < 1e-6 * q0, "q(T) = {q}, q0 = {q0}");
    // The armature matters here: the period without it is more than 4 % shorter.
    let free = 2.0 * core::f64::consts::PI * (pivot_inertia() / (MASS * G * ARM)).sqrt();
    assert!((period - free) / period > 0.04);
}

#[test]
fn energy_with_the_rotor_term_is_conserved() {
    // ½ (I_pivot + Ia) q̇² − m g l cos q is a constant of the motion; RK4 at 1 ms over 2 s
    // keeps it to its truncation error, while leaving out ½ Ia q̇² would vary by ~Ia q̇².
    let armature = 0.5;
    let model = pendulum(armature);
    let mut data = Data::new(&model);
    model.set_state(&mut data, &[1.0, 2.0]).unwrap();
    let closed_form = |q: f64, v: f64| 0.5 * (pivot_inertia() + armature) * v * v - MASS * G * ARM * q.cos();
    let e0 = energy(&model, &data);
    assert!((e0.kinetic + e0.potential - closed_form(1.0, 2.0)).abs() < 1e-13);
    let mut rk4 = Rk4;
    let mut largest = 0.0f64;
    for _ in 0..2000 {
        step(&model, &mut data, &mut rk4, 1e-3).unwrap();
        let e = energy(&model, &data);
        largest = largest.max((e.kinetic + e.potential - (e0.kinetic + e0.potential)).abs());
        let (q, v) = (data.positions()[0], data.velocities()[0]);
        assert!((e.kinetic + e.potential - closed_form(q, v)).abs() < 1e-12);
    }
    assert!(largest < 1e-9, "energy drift {largest} J");
}

type Wide = Model<f64, Fixed<5>>;

fn inertia() -> Mat3<f64> {
    Mat3::symmetric(Vec3::new(0.031, 0.027, 0.019), 0.002, -0.003, 0.001)
}

/// A ball joint (or, `ball` false, a hinge about a skew axis) with a hinge below it.
fn two_links(ball: bool, armature: [f64; 2]) -> Wide {
    let mut b = Wide::builder(Vec3::new(0.3, -0.5, -9.81));
    let top = match ball {
        true => Link::spherical(None, Vec3::new(0.1, 0.0, 0.2)),
        false => Link::revolute(None, Vec3::new(0.1, 0.0, 0.2), Vec3::new(0.0, 0.6, 0.8)),
    };
    let top = top
        .with_mass(1.1, Vec3::new(0.0, 0.1, -0.3), inertia())
        .with_armature(armature[0]);
    let hinge = Link::revolute(Some(0), Vec3::new(0.0, 0.2, -0.6), Vec3::new(0.6, 0.0, 0.8))
        .with_mass(0.7, Vec3::new(0.1, 0.0, -0.2), inertia())
        .with_armature(armature[1]);
    b.add_link(top).unwrap();
    b.add_link(hinge).unwrap();
    b.build().unwrap()
}

/// M (row-major, nv × nv, in the first nv² entries) and q̈ (first nv) of `model` at one state
/// (turned joints, rates on every coordinate) and inputs.
fn state(model: &Wide) -> ([f64; 16], [f64; 4]) {
    let mut data = Data::new(model);
    let nv = model.velocity_count();
    let turn = crate::math::Quat::from_axis_angle(Vec3::new(0.3, 0.4, 0.5), 0.8).to_array();
    let ball = [turn[0], turn[1], turn[2], turn[3], 0.6, 0.4, -1.2, 0.8, -0.5];
    let hinges = [0.8, 0.6, -1.2, -0.5];
    let s: &[f64] = if nv == 4 { &ball } else { &hinges };
    model.set_state(&mut data, s).unwrap();
    for (k, u) in [0.2, -0.1, 0.3, 0.05].into_iter().take(nv).enumerate() {
        data.set_input(k, u).unwrap();
    }
    let (mut m, mut accel) = ([0.0; 16], [0.0; 4]);
    mass_matrix_at(model, &mut data, &mut m).unwrap();
    accelerations(model, &mut data, &mut accel[..nv]).unwrap();
    (m, accel)
}

#[test]
fn armature_adds_to_the_mass_matrix_diagonal_and_the_articulated_algorithm_agrees() {
    // Reference: the composite-rigid-body M of the same tree without armature, plus the
    // armature on the diagonal (3 entries for the ball); the ABA's q̈ (the multi-DOF pivot for
    // the ball, the 1-DOF path for two hinges) must solve (M0 + diag) q̈ = τ − b, where τ − b
    // is M0 q̈0 from the tree without armature at the same state and inputs.
    let armature = [0.05, 0.2];
    for ball in [true, false] {
        let (m, accel) = state(&two_links(ball, armature));
        let (m0, accel0) = state(&two_links(ball, [0.0; 2]));
        let nv = if ball { 4 } else { 2 };
        let diagonal = match ball {
            true => [armature[0], armature[0], armature[0], armature[1]],
            false => [armature[0], armature[1], 0.0, 0.0],
        };
        for i in 0..nv {
            for j in 0..nv {
                let added = if i == j { diagonal[i] } else { 0.0 };
                let (got, want) = (m[nv * i + j], m0[nv * i + j] + added);
                assert!(
                    (got - want).abs() < 1e-15,
                    "ball {ball}: M[{i}][{j}] {got} vs {want}"
                );
            }
        }
        for i in 0..nv {
            let lhs: f64 = (0..nv).map(|j| m[nv * i + j] * accel[j]).sum();
            let rhs: f64 = (0..nv).map(|j| m0[nv * i + j] * accel0[j]).sum();
            assert!(
                (lhs - rhs).abs() < 1e-12 * (1.0 + rhs.abs()),
                "ball {ball} row {i}: {lhs} vs {rhs}"
            );
        }
        // And the armature changed the motion (the test would not see a dropped term otherwise).
        assert!(accel.iter().zip(&accel0).any(|(a, b)| (a - b).abs() > 1e-3));
    }
}

#[test]
fn a_negative_or_non_finite_armature_is_refused_naming_the_joint() {
    for (armature, expected) in [
        (
            -0.1,
            BuildError::InvalidParameter {
                item: Item::Joint(0),
                reason: "armature must be ≥ 0",
            },
        ),
        (f64::NAN, BuildError::NonFinite { item: Item::Joint(0) }),
    ] {
        let mut b = Tree::builder(Vec3::ZERO);
        let link = Link::revolute(None, Vec3::ZERO, Vec3::Y)
            .with_mass(1.0, Vec3::X, Mat3::diagonal(Vec3::new(0.1, 0.1, 0.1)))
            .with_armature(armature);
        assert_eq!(b.add_link(link), Err(expected));
    }
}
