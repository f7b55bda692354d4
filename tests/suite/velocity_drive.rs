//! Velocity drives and smooth profiles on rigid models: a hub driven by the spin-up rate of
//! Kane, Ryan & Banerjee (1987) reaches θ = ∫ω, and a slider driven by a sine velocity reaches
//! its integral. Reference: the closed forms θ(t) = (Ωs/Ts)[t²/2 + (Ts/2π)²(cos(2πt/Ts) − 1)]
//! for t < Ts, Ωs(t − Ts/2) after, and x(t) = x₀ + ∫₀ᵗ v.

use ferrodyn::kernel::math::{Mat3, Vec3};
use ferrodyn::kernel::rigid::{Body, BodyRef, Data, DrivenCoordinate, Frame, Joint, JointKind, Model};
use ferrodyn::kernel::*;
use std::f64::consts::PI;

const TS: f64 = 15.0;
const OMEGA_S: f64 = 6.0;

fn spin_up(t: f64) -> [f64; 2] {
    if t < TS {
        let w = 2.0 * PI / TS;
        let k = (TS / (2.0 * PI)).powi(2);
        [
            OMEGA_S / TS * (t * t / 2.0 + k * ((w * t).cos() - 1.0)),
            OMEGA_S / TS * (t - TS / (2.0 * PI) * (w * t).sin()),
        ]
    } else {
        [OMEGA_S * (t - TS / 2.0), OMEGA_S]
    }
}

/// The spin-up rate ω(t) = (Ωs/Ts)[t − (Ts/2π) sin(2πt/Ts)], then Ωs: two pieces.
fn spin_up_rate() -> TimeFunction<f64> {
    TimeFunction::piecewise(&[
        Piece::polynomial(0.0, &[0.0, OMEGA_S / TS]).with_harmonic(0.0, -OMEGA_S / (2.0 * PI), 2.0 * PI / TS),
        Piece::polynomial(TS, &[OMEGA_S]),
    ])
    .unwrap()
}

/// A hub on a revolute joint about z, its angle about the same axis driven to `angle`.
fn hub(angle: TimeFunction<f64>) -> Model<f64, Fixed<1, 2, 0, 6, 21>> {
    let mut b = Model::builder(Vec3::new(0.0, 0.0, -9.81));
    let body = b
        .add_body(Body::new(20.0, Mat3::diagonal(Vec3::new(0.5, 0.5, 1.0))))
        .unwrap();
    let axis = Frame::with_z_axis(Vec3::ZERO, Vec3::Z);
    b.add_joint(Joint::new(JointKind::Revolute, BodyRef::Ground, axis, body, axis))
        .unwrap();
    let drive = JointKind::Driving {
        coordinate: DrivenCoordinate::Rotation,
        function: b.add_function(angle).unwrap(),
    };
    b.add_joint(Joint::new(drive, BodyRef::Ground, axis, body, axis))
        .unwrap();
    b.build().unwrap()
}

/// Steps to each `checkpoint` with RK4 at 1 ms, tracking the unwrapped hub angle; returns the
/// largest |θ − θ_exact| and |θ̇ − θ̇_exact| over the checkpoints.
fn worst_errors(model: &Model<f64, Fixed<1, 2, 0, 6, 21>>, checkpoints: &[f64]) -> (f64, f64) {
    let mut data = Data::new(model);
    let dt = 1e-3;
    let (mut turns, mut last) = (0.0, 0.0);
    let (mut worst_angle, mut worst_rate) = (0.0f64, 0.0f64);
    let mut steps_done = 0usize;
    for &t in checkpoints {
        let steps = (t / dt).round() as usize;
        while steps_done < steps {
            step(model, &mut data, &mut integrators::Rk4, dt).unwrap();
            steps_done += 1;
            let x = data.orientation(0).rotate(Vec3::X);
            let wrapped = x.y.atan2(x.x);
            if wrapped - last < -PI {
                turns += 2.0 * PI;
            } else if wrapped - last > PI {
                turns -= 2.0 * PI;
            }
            last = wrapped;
        }
        let theta = turns + last;
        let [angle, rate] = spin_up(t);
        worst_angle = worst_angle.max((theta - angle).abs());
        worst_rate = worst_rate.max((data.angular_velocity(0).z - rate).abs());
    }
    (worst_angle, worst_rate)
}

const CHECKPOINTS: [f64; 8] = [0.5, 3.0, 7.5, 12.0, 15.0, 16.0, 18.5, 20.0];

#[test]
fn hub_driven_by_the_spin_up_rate_reaches_its_integral() {
    let model = hub(spin_up_rate().integral(0.0).unwrap());
    let (angle, rate) = worst_errors(&model, &CHECKPOINTS);
    println!("velocity drive, RK4 1 ms, 20 s: max |θ − θ_exact| = {angle:.2e} rad, max |θ̇ − θ̇_exact| = {rate:.2e} rad/s");
    assert!(angle < 1e-9 && rate < 1e-9, "θ error {angle}, θ̇ error {rate}");
}

#[test]
fn hub_driven_by_the_spin_up_angle_follows_it() {
    let model = hub(TimeFunction::smooth_ramp(0.0, 0.0, TS, OMEGA_S).unwrap());
    let (angle, rate) = worst_errors(&model, &CHECKPOINTS);
    println!("position drive (smooth_ramp), RK4 1 ms, 20 s: max |θ − θ_exact| = {angle:.2e} rad, max |θ̇ − θ̇_exact| = {rate:.2e} rad/s");
    assert!(angle < 1e-9 && rate < 1e-9, "θ error {angle}, θ̇ error {rate}");
}

#[test]
fn slider_driven_by_a_sine_velocity_reaches_its_integral() {
    // v(t) = 0.3 + 0.5 sin(2t) along a prismatic rail: x(t) = x₀ + 0.3t + 0.25(1 − cos 2t).
    let mut b = Model::<f64, Fixed<1, 2, 0, 6, 21>>::builder(Vec3::new(0.0, 0.0, -9.81));
    let slider = b
        .add_body(Body::new(2.0, Mat3::diagonal(Vec3::new(0.02, 0.03, 0.04))))
        .unwrap();
    let rail = Frame::with_z_axis(Vec3::ZERO, Vec3::X);
    b.add_joint(Joint::new(
        JointKind::Prismatic,
        BodyRef::Ground,
        rail,
        slider,
        rail,
    ))
    .unwrap();
    let velocity = TimeFunction::Sine {
        offset: 0.3,
        amplitude: 0.5,
        omega: 2.0,
        phase: 0.0,
    };
    let drive = JointKind::Driving {
        coordinate: DrivenCoordinate::Translation,
        function: b.add_function(velocity.integral(0.0).unwrap()).unwrap(),
    };
    b.add_joint(Joint::new(drive, BodyRef::Ground, rail, slider, rail))
        .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    for _ in 0..2000 {
        step(&model, &mut data, &mut integrators::Rk4, 1e-3).unwrap();
    }
    let exact = 0.3 * 2.0 + 0.25 * (1.0 - (4.0f64).cos());
    let x = data.position(0).x;
    assert!((x - exact).abs() < 1e-10, "x = {x}, exact {exact}");
    assert!((data.velocity(0).x - (0.3 + 0.5 * (4.0f64).sin())).abs() < 1e-9);
}
