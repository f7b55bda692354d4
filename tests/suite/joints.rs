//! Each joint kind and force element against a closed-form reference.

use ferrodyn::kernel::math::{Mat3, Quat, Vec3};
use ferrodyn::kernel::rigid::{
    self, assemble, Body, BodyRef, Data, DrivenCoordinate, Force, Frame, Joint, JointKind, Model,
};
use ferrodyn::kernel::*;
use std::f64::consts::PI;

const G: f64 = 9.81;

fn box_body(mass: f64) -> Body<f64> {
    Body::new(mass, Mat3::diagonal(Vec3::new(0.02, 0.03, 0.04)))
}

fn run<St: Storage>(model: &Model<f64, St>, data: &mut Data<f64, St>, duration: f64, dt: f64) {
    let steps = (duration / dt).round() as usize;
    for _ in 0..steps {
        step(model, data, &mut integrators::Rk4, dt).unwrap();
    }
}

#[test]
fn prismatic_slide_on_incline_follows_g_sin_alpha() {
    // Reference: frictionless slider on a 30° incline, s(t) = ½ g sin α t².
    let alpha = PI / 6.0;
    let dir = Vec3::new(alpha.cos(), 0.0, -alpha.sin());
    let mut b = Model::<f64, Fixed<1, 1, 0, 5, 15>>::builder(Vec3::new(0.0, 0.0, -G));
    let slider = b.add_body(box_body(2.0)).unwrap();
    b.add_joint(Joint::new(
        JointKind::Prismatic,
        BodyRef::Ground,
        Frame::with_z_axis(Vec3::ZERO, dir),
        slider,
        Frame::with_z_axis(Vec3::ZERO, dir),
    ))
    .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    run(&model, &mut data, 1.0, 1e-3);
    let s = data.position(0).dot(dir);
    let exact = 0.5 * G * alpha.sin();
    assert!((s - exact).abs() < 1e-10, "s = {s}, exact {exact}");
    assert!(data.position(0).y.abs() < 1e-12 && (data.position(0) - dir * s).norm() < 1e-10);
    // The slider does not turn.
    assert!((data.orientation(0).w.abs() - 1.0).abs() < 1e-12);
}

#[test]
fn driving_constraints_impose_their_functions() {
    // Reference: the prescribed functions themselves. A crank on a revolute driven by
    // θ(t) = 0.5 sin(3t), and a slider on a prismatic driven by a table.
    let mut b = Model::<f64, Fixed<2, 4, 0, 12, 64>>::builder(Vec3::new(0.0, 0.0, -G));
    let crank = b
        .add_body(box_body(1.0).at(Vec3::new(0.0, 0.0, 0.0), Quat::IDENTITY))
        .unwrap();
    let slider = b
        .add_body(box_body(1.0).at(Vec3::new(0.0, 2.0, 0.0), Quat::IDENTITY))
        .unwrap();
    let axis = Frame::with_z_axis(Vec3::ZERO, Vec3::Z);
    b.add_joint(Joint::new(
        JointKind::Revolute,
        BodyRef::Ground,
        axis,
        crank,
        axis,
    ))
    .unwrap();
    let angle = TimeFunction::Sine {
        offset: 0.0,
        amplitude: 0.5,
        omega: 3.0,
        phase: 0.0,
    };
    let drive = JointKind::Driving {
        coordinate: DrivenCoordinate::Rotation,
        function: b.add_function(angle).unwrap(),
    };
    b.add_joint(Joint::new(drive, BodyRef::Ground, axis, crank, axis))
        .unwrap();
    let rail_ground = Frame::with_z_axis(Vec3::new(0.0, 2.0, 0.0), Vec3::X);
    let rail_body = Frame::with_z_axis(Vec3::ZERO, Vec3::X);
    b.add_joint(Joint::new(
        JointKind::Prismatic,
        BodyRef::Ground,
        rail_ground,
        slider,
        rail_body,
    ))
    .unwrap();
    let table = TimeFunction::table(&[(0.0, 0.0), (0.5, 0.2), (1.0, 0.2)]).unwrap();
    let push = JointKind::Driving {
        coordinate: DrivenCoordinate::Translation,
        function: b.add_function(table).unwrap(),
    };
    b.add_joint(Joint::new(push, BodyRef::Ground, rail_ground, slider, rail_body))
        .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    assert_eq!(model.gruebler_dof(), 0);
    run(&model, &mut data, 0.4, 1e-3);
    let x_axis = data.orientation(0).rotate(Vec3::X);
    let theta = x_axis.y.atan2(x_axis.x);
    assert!((theta - 0.5 * (3.0f64 * 0.4).sin()).abs() < 1e-10, "θ = {theta}");
    // ω_z = θ̇ = 1.5 cos(3t).
    assert!((data.angular_velocity(0).z - 1.5 * (3.0f64 * 0.4).cos()).abs() < 1e-8);
    assert!(
        (data.position(1).x - 0.4 * 0.4).abs() < 1e-10,
        "x = {}",
        data.position(1).x
    );
}

#[test]
fn spring_damper_oscillates_at_sqrt_k_over_m() {
    // Reference: mass on a vertical prismatic with a spring of stiffness k, no damping:
    // x(t) = x_eq + A cos(√(k/m) t) with x_eq = −m g / k (spring rest at the start).
    let (m, k) = (2.0, 800.0);
    let mut b = Model::<f64, Fixed<1, 1, 1, 5, 15>>::builder(Vec3::new(0.0, 0.0, -G));
    let mass = b.add_body(box_body(m)).unwrap();
    let axis = Frame::with_z_axis(Vec3::ZERO, Vec3::Z);
    b.add_joint(Joint::new(
        JointKind::Prismatic,
        BodyRef::Ground,
        axis,
        mass,
        axis,
    ))
    .unwrap();
    b.add_force(Force::SpringDamper {
        body_i: BodyRef::Ground,
        point_i: Vec3::new(0.0, 0.0, 1.0),
        body_j: mass,
        point_j: Vec3::ZERO,
        stiffness: k,
        damping: 0.0,
        rest_length: 1.0,
    })
    .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let t = 0.37;
    run(&model, &mut data, t, 1e-4);
    let omega = (k / m).sqrt();
    let x_eq = -m * G / k;
    let exact = x_eq - x_eq * (omega * t).cos();
    assert!(
        (data.position(0).z - exact).abs() < 1e-9,
        "z = {}, exact {exact}",
        data.position(0).z
    );
}

#[test]
fn rotational_spring_damper_decays_as_damped_oscillator() {
    // Reference: I θ̈ + c θ̇ + k θ = 0 about the hinge, θ(0) = 0, θ̇(0) = ω0:
    // θ(t) = ω0/ω_d e^{−ζω_n t} sin(ω_d t).
    let (k, c) = (5.0, 0.05);
    let inertia = Mat3::diagonal(Vec3::new(0.02, 0.03, 0.04));
    let mut b = Model::<f64, Fixed<1, 1, 1, 5, 15>>::builder(Vec3::ZERO);
    let w0 = 2.0;
    let wheel = b
        .add_body(Body::new(1.0, inertia).moving(Vec3::ZERO, Vec3::new(0.0, 0.0, w0)))
        .unwrap();
    let axis = Frame::with_z_axis(Vec3::ZERO, Vec3::Z);
    b.add_joint(Joint::new(
        JointKind::Revolute,
        BodyRef::Ground,
        axis,
        wheel,
        axis,
    ))
    .unwrap();
    b.add_force(Force::RotationalSpringDamper {
        joint: 0,
        stiffness: k,
        damping: c,
        rest_angle: 0.0,
    })
    .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let t = 1.3;
    run(&model, &mut data, t, 1e-4);
    let i = 0.04;
    let wn = (k / i).sqrt();
    let zeta = c / (2.0 * (k * i).sqrt());
    let wd = wn * (1.0 - zeta * zeta).sqrt();
    let exact = w0 / wd * (-zeta * wn * t).exp() * (wd * t).sin();
    let x = data.orientation(0).rotate(Vec3::X);
    let theta = x.y.atan2(x.x);
    assert!((theta - exact).abs() < 1e-9, "θ = {theta}, exact {exact}");
}

#[test]
fn heavy_top_on_spherical_joint_keeps_its_invariants() {
    // Reference: Lagrange top (symmetric, pivot fixed by a spherical joint, CG offset on the
    // symmetry axis): total energy, and the angular momentum about the vertical through the
    // pivot and about the symmetry axis, are exact invariants.
    let (m, l) = (1.0, 0.3);
    let inertia = Mat3::diagonal(Vec3::new(0.01, 0.01, 0.004));
    let tilt = Quat::from_axis_angle(Vec3::X, 0.4);
    let spin = Vec3::new(0.0, 0.0, 60.0);
    let top = Body::new(m, inertia)
        .with_cg(Vec3::new(0.0, 0.0, l))
        .at(Vec3::ZERO, tilt)
        .moving(Vec3::ZERO, spin);
    let mut b = Model::<f64, Fixed<1, 1, 0, 3, 6>>::builder(Vec3::new(0.0, 0.0, -G));
    let body = b.add_body(top).unwrap();
    b.add_joint(Joint::new(
        JointKind::Spherical,
        BodyRef::Ground,
        Frame::at(Vec3::ZERO),
        body,
        Frame::at(Vec3::ZERO),
    ))
    .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let invariants = |data: &Data<f64, Fixed<1, 1, 0, 3, 6>>| {
        let e = rigid::energy(&model, data).total();
        let (_, l) = rigid::momentum(&model, data);
        let axis = data.orientation(0).rotate(Vec3::Z);
        let spin_momentum = 0.004 * data.angular_velocity(0).z;
        (e, l.z, spin_momentum, axis)
    };
    let (e0, lz0, ls0, _) = invariants(&data);
    run(&model, &mut data, 2.0, 1e-4);
    let (e1, lz1, ls1, axis) = invariants(&data);
    assert!((e1 - e0).abs() < 1e-9 * e0.abs().max(1.0), "energy {e0} → {e1}");
    assert!((lz1 - lz0).abs() < 1e-9, "L_z {lz0} → {lz1}");
    assert!((ls1 - ls0).abs() < 1e-9, "spin momentum {ls0} → {ls1}");
    // The top precesses: its axis has moved around the vertical, staying tilted.
    assert!(axis.z > 0.5 && axis.z < 0.99);
}

#[test]
fn free_body_with_offset_cg_conserves_momenta() {
    // Reference: no forces, so linear and angular momentum (about the global origin) and
    // kinetic energy are constant; the CG moves in a straight line at constant speed.
    let body = Body::new(3.0, Mat3::symmetric(Vec3::new(0.2, 0.3, 0.4), 0.01, 0.02, -0.01))
        .with_cg(Vec3::new(0.1, 0.2, -0.05))
        .at(Vec3::new(1.0, 0.0, 0.0), Quat::from_roll_pitch_yaw(0.1, 0.2, 0.3))
        .moving(Vec3::new(0.5, -0.2, 0.1), Vec3::new(3.0, 1.0, -2.0));
    let mut b = Model::<f64, Fixed<1, 0, 0, 0, 0>>::builder(Vec3::ZERO);
    b.add_body(body).unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let (p0, l0) = rigid::momentum(&model, &data);
    let e0 = rigid::energy(&model, &data).kinetic;
    let cg0 = data.point_position(BodyRef::Body(0), Vec3::new(0.1, 0.2, -0.05));
    run(&model, &mut data, 2.0, 1e-4);
    let (p1, l1) = rigid::momentum(&model, &data);
    let e1 = rigid::energy(&model, &data).kinetic;
    let cg1 = data.point_position(BodyRef::Body(0), Vec3::new(0.1, 0.2, -0.05));
    assert!(
        (p1 - p0).norm() < 1e-12 && (l1 - l0).norm() < 1e-10,
        "p {p0:?}→{p1:?}, L {l0:?}→{l1:?}"
    );
    assert!((e1 - e0).abs() < 1e-10 * e0);
    assert!((cg1 - (cg0 + p0 * (2.0 / 3.0))).norm() < 1e-10);
}

#[test]
fn universal_cylindrical_fixed_keep_their_constraints_and_energy() {
    // Reference: each joint's own equations (Φ = 0 held to the projection tolerance) and
    // energy conservation of the conservative system; Grübler counts 6·3 − (4 + 4 + 6) = 4.
    let mut b = Model::<f64, Fixed<3, 3, 0, 14, 128>>::builder(Vec3::new(0.0, 0.0, -G));
    let a = b
        .add_body(
            box_body(1.0)
                .at(Vec3::new(0.0, 0.0, -0.5), Quat::IDENTITY)
                .moving(Vec3::ZERO, Vec3::new(1.0, 2.0, 0.5)),
        )
        .unwrap();
    let c = b
        .add_body(box_body(0.5).at(Vec3::new(0.0, 0.0, -1.0), Quat::IDENTITY))
        .unwrap();
    let d = b
        .add_body(box_body(0.3).at(Vec3::new(0.2, 0.0, -1.0), Quat::IDENTITY))
        .unwrap();
    b.add_joint(Joint::new(
        JointKind::Universal,
        BodyRef::Ground,
        Frame::at(Vec3::ZERO),
        a,
        Frame::at(Vec3::new(0.0, 0.0, 0.5)),
    ))
    .unwrap();
    let z = Frame::with_z_axis(Vec3::new(0.0, 0.0, -0.5), Vec3::Z);
    b.add_joint(Joint::new(
        JointKind::Cylindrical,
        a,
        z,
        c,
        Frame::with_z_axis(Vec3::ZERO, Vec3::Z),
    ))
    .unwrap();
    b.add_joint(Joint::new(
        JointKind::Fixed,
        c,
        Frame::at(Vec3::new(0.2, 0.0, 0.0)),
        d,
        Frame::at(Vec3::ZERO),
    ))
    .unwrap();
    let model = b.build().unwrap();
    assert_eq!(model.gruebler_dof(), 4);
    let mut data = Data::new(&model);
    // Body a alone was given a spin: assembly makes the initial velocities consistent.
    assemble(&model, &mut data).unwrap();
    let e0 = rigid::energy(&model, &data).total();
    run(&model, &mut data, 2.0, 1e-4);
    let v = rigid::violation(&model, &data);
    let e1 = rigid::energy(&model, &data).total();
    assert!(v.position < 1e-11 && v.velocity < 1e-9, "{v:?}");
    assert!((e1 - e0).abs() < 1e-8 * (1.0 + e0.abs()), "energy {e0} → {e1}");
    // Fixed joint: d keeps its pose relative to c.
    let rel = data.orientation(2).conjugate().mul(&data.orientation(1));
    assert!((rel.w.abs() - 1.0).abs() < 1e-12);
}
