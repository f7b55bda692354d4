//! Tests of the coordinate rows: a driven joint follows its function and its multiplier is the
//! torque of the inverse dynamics; a coupled pair moves as its one-coordinate equivalent; the
//! builder's checks.

use super::super::*;
use crate::integrators::Rk4;
use crate::math::{Mat3, Vec3};
use crate::time_function::TimeFunction;
use crate::{step, Fixed};

/// Two 1 m rods of 1 kg on hinges about y at the origin and at (0, 1, 0), both lying along
/// +x: gravity −z turns +x towards −z, positive about +y.
type Pair = Fixed<2, 0, 0, 1, 11>;
const G: f64 = 9.81;
/// Inertia of a rod about its centre across its length (kg·m²).
const ACROSS: f64 = 1.0 / 12.0;

fn rod(origin: Vec3<f64>, mass: f64) -> Link<f64> {
    let inertia = Mat3::diagonal(Vec3::new(1e-4, ACROSS * mass, ACROSS * mass));
    Link::revolute(None, origin, Vec3::Y).with_mass(mass, Vec3::new(0.5, 0.0, 0.0), inertia)
}

#[test]
fn a_driven_joint_follows_its_function_and_its_multiplier_is_the_inverse_dynamics_torque() {
    // A rod on a hinge driven through q = 0.5 sin(3t) + 0.1 (multiplier 0.5 on sin(3t)).
    // Its torque is the inverse dynamics: τ = I_O q̈ − m g (L/2) cos q, I_O = mL²/3, and the
    // row puts −λ on the coordinate.
    let mut b = Model::<f64, Fixed<1, 0, 0, 1, 6>>::builder(Vec3::new(0.0, 0.0, -G));
    b.add_link(rod(Vec3::ZERO, 1.0)).unwrap();
    let sine = TimeFunction::Sine {
        offset: 0.0,
        amplitude: 1.0,
        omega: 3.0,
        phase: 0.0,
    };
    b.drive(0, sine, 0.5, 0.1).unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    data.set_position(0, 0.1).unwrap();
    data.set_velocity(0, 1.5).unwrap();
    let (mut worst_q, mut worst_v, mut worst_torque) = (0.0f64, 0.0f64, 0.0f64);
    let mut accel = [0.0];
    for _ in 0..2000 {
        step(&model, &mut data, &mut Rk4, 1e-3).unwrap();
        let t = data.time();
        let (q, v) = (data.positions()[0], data.velocities()[0]);
        worst_q = worst_q.max((q - (0.5 * (3.0 * t).sin() + 0.1)).abs());
        worst_v = worst_v.max((v - 1.5 * (3.0 * t).cos()).abs());
        accelerations(&model, &mut data, &mut accel).unwrap();
        let qdd = -4.5 * (3.0 * t).sin();
        let torque = qdd / 3.0 - G * 0.5 * q.cos();
        worst_torque = worst_torque.max((-data.multipliers()[0] - torque).abs() / 4.0);
    }
    assert!(worst_q <= 1e-12, "|q − f| = {worst_q:e}");
    assert!(worst_v <= 1e-12, "|q̇ − ḟ| = {worst_v:e}");
    assert!(worst_torque <= 1e-12, "torque off by {worst_torque:e} of ~4 N·m");
    assert!(loop_residual(&model, &data) <= 1e-12);
}

/// θ̈ of one pendulum with the pair's combined inertia, q₂ = 2 q₁ (Lagrange on q₁): T = ½(I₁ +
/// 4 I₂) q̇₁², V = −m₁ g c₁ sin q₁ − m₂ g c₂ sin 2q₁, so (I₁ + 4 I₂) q̈₁ = m₁ g c₁ cos q₁ +
/// 2 m₂ g c₂ cos 2q₁ with I_k = m_k/3 about the hinge and c_k = 1/2.
fn equivalent(q: f64, (m1, m2): (f64, f64)) -> f64 {
    (m1 * G * 0.5 * q.cos() + 2.0 * m2 * G * 0.5 * (2.0 * q).cos()) / (m1 / 3.0 + 4.0 * m2 / 3.0)
}

#[test]
fn a_coupled_pair_moves_as_one_pendulum_with_the_combined_inertia() {
    let masses = (1.0, 0.7);
    let mut b = Model::<f64, Pair>::builder(Vec3::new(0.0, 0.0, -G));
    b.add_link(rod(Vec3::ZERO, masses.0)).unwrap();
    b.add_link(rod(Vec3::Y, masses.1)).unwrap();
    b.couple(1, 0, 2.0, 0.0).unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    // The equivalent, by RK4 on (q, q̇) at the same step: the constraint is linear, so RK4's
    // stages keep it exactly and the two must agree to round-off.
    let (mut q, mut v, h) = (0.0f64, 0.0f64, 1e-3);
    let mut worst = 0.0f64;
    for _ in 0..2000 {
        step(&model, &mut data, &mut Rk4, h).unwrap();
        let f = |q: f64| equivalent(q, masses);
        let (k1q, k1v) = (v, f(q));
        let (k2q, k2v) = (v + 0.5 * h * k1v, f(q + 0.5 * h * k1q));
        let (k3q, k3v) = (v + 0.5 * h * k2v, f(q + 0.5 * h * k2q));
        let (k4q, k4v) = (v + h * k3v, f(q + h * k3q));
        q += h / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
        v += h / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
        let (q1, q2) = (data.positions()[0], data.positions()[1]);
        worst = worst.max((q1 - q).abs()).max((q2 - 2.0 * q).abs());
    }
    assert!(q.abs() > 0.5, "the pair swings ({q})");
    assert!(worst <= 1e-9, "off the equivalent pendulum by {worst:e}");
}

#[test]
fn couplings_and_drives_check_their_joints() {
    let mut b = Model::<f64, Fixed<8, 0, 0, 4, 64>>::builder(Vec3::new(0.0, 0.0, -G));
    b.add_link(rod(Vec3::ZERO, 1.0)).unwrap();
    b.add_link(Link::spherical(Some(0), Vec3::X).with_mass(1.0, Vec3::ZERO, Mat3::IDENTITY))
        .unwrap();
    let reason = |r: Result<usize, crate::BuildError>| match r {
        Err(crate::BuildError::InvalidParameter { reason, .. }) => reason,
        other => panic!("{other:?}"),
    };
    assert!(reason(b.couple(0, 0, 1.0, 0.0)).contains("itself"));
    assert!(reason(b.couple(0, 1, 1.0, 0.0)).contains("one coordinate"));
    assert!(reason(b.couple(1, 0, 1.0, 0.0)).contains("one coordinate"));
    assert!(reason(b.drive(5, TimeFunction::Constant(0.0), 1.0, 0.0)).contains("no such link"));
    assert!(b.couple(0, 0, f64::NAN, 0.0).is_err());
    assert!(b
        .drive(0, TimeFunction::Constant(f64::INFINITY), 1.0, 0.0)
        .is_err());
    assert_eq!(b.drive(0, TimeFunction::Constant(0.0), 1.0, 0.0), Ok(0));
    assert!(
        b.add_link(rod(Vec3::Y, 1.0)).is_err(),
        "links come before the rows"
    );
}

#[test]
fn coordinate_rows_count_against_the_rows_capacity() {
    let mut b = Model::<f64, Fixed<2, 0, 0, 1, 11>>::builder(Vec3::new(0.0, 0.0, -G));
    b.add_link(rod(Vec3::ZERO, 1.0)).unwrap();
    b.add_link(rod(Vec3::Y, 1.0)).unwrap();
    assert_eq!(b.couple(1, 0, 2.0, 0.0), Ok(0));
    assert!(matches!(
        b.drive(0, TimeFunction::Constant(0.0), 1.0, 0.0),
        Err(crate::BuildError::CapacityExceeded { .. })
    ));
}
