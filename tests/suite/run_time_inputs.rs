//! Run-time inputs: `RigidModel::set_force` replaces a force element between steps (the
//! actuator torque a hardware-in-the-loop rig reads every period).
//!
//! Reference: Euler's equations I ω̇ + ω × I ω = τ. A body at rest (or spinning about a
//! principal axis, where ω × I ω = 0) under a torque τ along that principal axis has
//! ω̇ = τ / I exactly, so ω grows linearly: ω(t) = Σ τ_k Δt_k / I.

use ferrodyn::kernel::math::{Mat3, Vec3};
use ferrodyn::kernel::rigid::{accelerations, forward, Axes, Body, Data, Force, Model};
use ferrodyn::kernel::*;

const MASS: f64 = 2.0;
const INERTIA: [f64; 3] = [0.3, 0.5, 0.7];

/// A free body (no joints, no gravity) with one torque element about global z.
fn free_body(torque: f64) -> Model<f64, Fixed<1, 0, 1>> {
    let mut b = Model::<f64, Fixed<1, 0, 1>>::builder(Vec3::ZERO);
    let inertia = Mat3::diagonal(Vec3::new(INERTIA[0], INERTIA[1], INERTIA[2]));
    b.add_body(Body::new(MASS, inertia)).unwrap();
    b.add_force(z_torque(torque)).unwrap();
    b.build().unwrap()
}

fn z_torque(value: f64) -> Force<f64> {
    Force::Torque {
        body: 0,
        direction: Vec3::Z,
        axes: Axes::Global,
        function: TimeFunction::Constant(value),
    }
}

/// Relative difference, for comparing against the analytic value.
fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs().max(f64::MIN_POSITIVE)
}

#[test]
fn a_new_torque_gives_the_analytic_angular_acceleration() {
    let mut model = free_body(1.0);
    let mut data = Data::new(&model);
    forward(&model, &mut data).unwrap();
    assert!(relative(accelerations(&data)[0][5], 1.0 / INERTIA[2]) <= 4.0 * f64::EPSILON);

    // The actuator command changes: ω̇_z = τ / I_zz with the new τ, nothing else moves.
    let tau = -3.25;
    model.set_force(0, z_torque(tau)).unwrap();
    forward(&model, &mut data).unwrap();
    let a = accelerations(&data)[0];
    assert!(relative(a[5], tau / INERTIA[2]) <= 4.0 * f64::EPSILON, "{a:?}");
    assert_eq!(&a[..5], &[0.0; 5]);
}

#[test]
fn a_torque_changed_every_period_integrates_to_the_analytic_spin() {
    // 1 kHz loop: τ = 1 N·m for 100 periods, then −0.5 N·m for 300 periods.
    let mut model = free_body(0.0);
    let mut data = Data::new(&model);
    let dt = 1e-3;
    let schedule = [(1.0, 100), (-0.5, 300)];
    let mut impulse = 0.0;
    for (tau, periods) in schedule {
        for _ in 0..periods {
            model.set_force(0, z_torque(tau)).unwrap();
            step(&model, &mut data, &mut integrators::Rk4, dt).unwrap();
            impulse += tau * dt;
        }
    }
    let omega = data.angular_velocity(0);
    assert!(
        relative(omega.z, impulse / INERTIA[2]) <= 1e-12,
        "ω_z = {}",
        omega.z
    );
    assert!(omega.x.abs() <= 1e-15 && omega.y.abs() <= 1e-15);
    assert_eq!(data.velocity(0), Vec3::ZERO);
}

#[test]
fn an_unknown_index_is_an_error_and_leaves_the_model_unchanged() {
    let mut model = free_body(1.0);
    let err = model.set_force(1, z_torque(2.0)).unwrap_err();
    assert!(
        matches!(
            err,
            BuildError::InvalidParameter {
                item: Item::Force(1),
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(model.forces(), &[z_torque(1.0)]);
}

#[test]
fn an_invalid_element_is_an_error_and_leaves_the_model_unchanged() {
    let mut model = free_body(1.0);
    let unknown_body = Force::Torque {
        body: 3,
        direction: Vec3::Z,
        axes: Axes::Global,
        function: TimeFunction::Constant(1.0),
    };
    assert!(matches!(
        model.set_force(0, unknown_body),
        Err(BuildError::UnknownBody { body: 3, .. })
    ));
    assert!(matches!(
        model.set_force(0, z_torque(f64::NAN)),
        Err(BuildError::NonFinite { .. } | BuildError::InvalidParameter { .. })
    ));
    assert_eq!(model.forces(), &[z_torque(1.0)]);
}
