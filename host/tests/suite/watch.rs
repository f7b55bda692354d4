//! Run-time watch: energy growth without external work and constraint drift become diagnostics
//! with the time and the joint; a clean run has none.

use crate::common::run_rigid;
use ferrodyn_host::output::OutputDir;
use ferrodyn_host::simulation::Summary;
use ferrodyn_host::storage::{Growable, RigidModel};
use ferrodyn_host::watch::Diagnostic;
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::{Body, BodyRef, Frame, Joint, JointKind, Stabilization};
use ferrodyn_kernel::samples::{simple_pendulum, GRAVITY};

fn out(name: &str) -> OutputDir {
    let dir = std::env::temp_dir().join(format!("ferrodyn-watch-{name}-{}", std::process::id()));
    OutputDir::create(&dir, true).unwrap()
}

/// Runs `model` with every output, bodies `body0…` and joints `joint0…`, outputs every 50 ms.
fn simulate(model: RigidModel, method: Method<f64>, step: f64, end_time: f64, out: &OutputDir) -> Summary {
    run_rigid(model, method, step, end_time, 0.05, out).unwrap()
}

#[test]
fn accurate_run_has_no_diagnostics() {
    let model = simple_pendulum::<f64, Growable>(1.0, 1.0, 1.5).unwrap();
    let summary = simulate(model, Method::Rk4, 1e-3, 5.0, &out("clean"));
    assert!(summary.diagnostics.is_empty(), "{:?}", summary.diagnostics);
}

#[test]
fn energy_growth_without_external_work_is_reported() {
    // Semi-implicit Euler with projection gains energy at first order in h (tests/suite/pendulum.rs):
    // at h = 10 ms it passes 1e-3 of the energy scale within seconds.
    let model = simple_pendulum::<f64, Growable>(1.0, 1.0, 1.5).unwrap();
    let summary = simulate(model, Method::SemiImplicitEuler, 1e-2, 10.0, &out("energy"));
    match summary.diagnostics.first() {
        Some(Diagnostic::EnergyGrowth { time, relative }) => {
            assert!(*time > 0.0 && *relative > 1e-3);
            assert!(summary.diagnostics[0].to_string().contains("energy grew"));
        }
        other => panic!("expected energy growth, got {other:?}"),
    }
}

#[test]
fn constraint_drift_is_reported_with_the_joint() {
    // The same pendulum without projection: RK4 at 50 ms lets |d| − L drift by O(h⁵) a step.
    let mut b = RigidModel::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let bob = b
        .add_body(Body::sphere(1.0, 0.01).at(Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY))
        .unwrap();
    let rod = JointKind::Distance { length: 1.0 };
    b.add_joint(Joint::new(
        rod,
        BodyRef::Ground,
        Frame::at(Vec3::ZERO),
        bob,
        Frame::at(Vec3::ZERO),
    ))
    .unwrap();
    b.stabilization(Stabilization {
        project: false,
        ..Stabilization::default()
    })
    .unwrap();
    let model = b.build().unwrap();
    let summary = simulate(model, Method::Rk4, 5e-2, 10.0, &out("drift"));
    let drift = summary.diagnostics.iter().find_map(|d| match d {
        Diagnostic::ConstraintDrift {
            time,
            joint,
            violation,
        } => Some((*time, joint.clone(), *violation)),
        _ => None,
    });
    let (time, joint, violation) = drift.expect("drift diagnostic");
    // The built-in names: joint 0 is "joint0".
    assert_eq!(joint, "joint0");
    assert!(time > 0.0 && violation > 1e-6, "{time} {violation}");
}
