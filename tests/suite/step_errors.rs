//! A failing step is an error naming what failed, never a panic, and leaves the state at the
//! start of the step.

use ferrodyn::kernel::integrators::{AdaptiveConfig, Method, Rk4};
use ferrodyn::kernel::math::{Quat, Vec3};
use ferrodyn::kernel::rigid::{
    self, assemble, Axes, Body, BodyRef, Data, Force, Frame, Joint, JointKind, Model, Stabilization,
};
use ferrodyn::kernel::samples::{simple_pendulum, PendulumCapacities};
use ferrodyn::kernel::*;

fn hinge(body: BodyRef) -> Joint<f64> {
    Joint::new(
        JointKind::Revolute,
        BodyRef::Ground,
        Frame::with_z_axis(Vec3::ZERO, Vec3::Y),
        body,
        Frame::with_z_axis(Vec3::new(-0.5, 0.0, 0.0), Vec3::Y),
    )
}

#[test]
fn projection_that_cannot_converge_is_reported() {
    // A hinged rod assembled 0.8 rad off its hinge axis with one Newton iteration allowed: the
    // axis-alignment equations are nonlinear in the rotation, so one iteration cannot reach
    // the 1e-12 tolerance.
    let mut b = Model::<f64, Fixed<1, 1, 0, 5, 15>>::builder(Vec3::ZERO);
    let tilted = Body::rod(1.0, 1.0, 0.01).at(Vec3::new(0.5, 0.0, 0.0), Quat::from_axis_angle(Vec3::X, 0.8));
    let link = b.add_body(tilted).unwrap();
    b.add_joint(hinge(link)).unwrap();
    b.stabilization(Stabilization {
        max_projection_iterations: 1,
        ..Stabilization::default()
    })
    .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    match assemble(&model, &mut data) {
        Err(KernelError::ProjectionNotConverged {
            iterations: 1,
            residual,
            joint: 0,
        }) => assert!(residual > 1e-12),
        other => panic!("expected ProjectionNotConverged, got {other:?}"),
    }
    // With the default iteration budget the same assembly converges.
    let mut b = Model::<f64, Fixed<1, 1, 0, 5, 15>>::builder(Vec3::ZERO);
    let link = b.add_body(tilted).unwrap();
    b.add_joint(hinge(link)).unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    assert!(assemble(&model, &mut data).unwrap() > 1);
    assert!(rigid::violation(&model, &data).position < 1e-12);
}

#[test]
fn runaway_state_is_detected_as_non_finite() {
    // The largest finite force on 1 kg for 10 s overflows the velocity to infinity: the step
    // must report NonFinite on body 0 and keep the state at the start of the step.
    let mut b = Model::<f64, Fixed<1, 0, 1, 0, 0>>::builder(Vec3::ZERO);
    let body = b.add_body(Body::sphere(1.0, 0.1)).unwrap();
    let BodyRef::Body(index) = body else {
        unreachable!()
    };
    let push = TimeFunction::Constant(f64::MAX);
    b.add_force(Force::Point {
        body: index,
        point: Vec3::ZERO,
        direction: Vec3::X,
        axes: Axes::Global,
        function: push,
    })
    .unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let err = step(&model, &mut data, &mut Rk4, 10.0).unwrap_err();
    assert!(
        matches!(
            err,
            KernelError::NonFinite {
                item: Item::Body(0),
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(data.position(0), Vec3::ZERO);
}

#[test]
fn adaptive_step_limits_are_errors() {
    let model = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, 1.5).unwrap();
    let mut data = Data::new(&model);
    let tight = AdaptiveConfig {
        rtol: 1e-14,
        atol: 1e-16,
        ..AdaptiveConfig::default()
    }
    .with_max_substeps(3);
    let err = step(&model, &mut data, &mut Method::dopri45(tight), 0.5).unwrap_err();
    assert!(
        matches!(err, KernelError::TooManySubsteps { limit: 3, .. }),
        "{err:?}"
    );
    assert_eq!(
        step(&model, &mut data, &mut Rk4, 0.0),
        Err(KernelError::InvalidStepSize)
    );
    assert_eq!(
        step(&model, &mut data, &mut Rk4, f64::NAN),
        Err(KernelError::InvalidStepSize)
    );
}

#[test]
fn f32_pendulum_keeps_the_period() {
    // Same pendulum as the f64 reference (T = 2.3678419 s) in single precision: rounding of
    // ~1e-7 per operation accumulated over 10⁴ steps bounds the period error near 1e-5.
    let model = simple_pendulum::<f32, PendulumCapacities>(1.0, 1.0, core::f32::consts::FRAC_PI_2).unwrap();
    let mut data = Data::new(&model);
    let (mut last_x, mut crossings) = (data.position(0).x, Vec::new());
    for _ in 0..10_000 {
        step(&model, &mut data, &mut Rk4, 1e-3f32).unwrap();
        let x = data.position(0).x;
        if last_x < 0.0 && x >= 0.0 {
            crossings.push(data.time() as f64 - 1e-3 * (x / (x - last_x)) as f64);
        }
        last_x = x;
    }
    let period = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let rel = (period - 2.3678419).abs() / 2.3678419;
    println!("f32 pendulum period {period:.7} s, rel. error {rel:.2e}");
    assert!(rel < 1e-4, "period {period}");
    assert!(rigid::violation(&model, &data).position < 1e-5);
}
