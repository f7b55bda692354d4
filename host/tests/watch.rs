//! Run-time watch: energy growth without external work and constraint drift become diagnostics
//! with the time and the joint; a clean run has none.

use ferrodyn_host::output::OutputDir;
use ferrodyn_host::run::{simulate, RunSettings};
use ferrodyn_host::watch::Diagnostic;
use ferrodyn_kernel::integrators::Method;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::models::{simple_pendulum, GRAVITY};
use ferrodyn_kernel::*;

fn out(name: &str) -> OutputDir {
    let dir = std::env::temp_dir().join(format!("ferrodyn-watch-{name}-{}", std::process::id()));
    OutputDir::create(&dir, true).unwrap()
}

fn settings<St: ModelStorage>(model: &RigidModel<f64, St>, step: f64, end_time: f64) -> RunSettings {
    RunSettings::everything(model, end_time, step, 0.05)
}

#[test]
fn accurate_run_has_no_diagnostics() {
    let model = simple_pendulum(1.0, 1.0, 1.5).unwrap();
    let summary = simulate(
        &model,
        &mut Method::Rk4,
        &settings(&model, 1e-3, 5.0),
        &out("clean"),
    )
    .unwrap();
    assert!(summary.diagnostics.is_empty(), "{:?}", summary.diagnostics);
}

#[test]
fn energy_growth_without_external_work_is_reported() {
    // Semi-implicit Euler with projection gains energy at first order in h (tests/pendulum.rs):
    // at h = 10 ms it passes 1e-3 of the energy scale within seconds.
    let model = simple_pendulum(1.0, 1.0, 1.5).unwrap();
    let summary = simulate(
        &model,
        &mut Method::SemiImplicitEuler,
        &settings(&model, 1e-2, 10.0),
        &out("energy"),
    )
    .unwrap();
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
    let mut b = Model::<f64, 1, 1, 0, 1, 1>::builder(Vec3::new(0.0, 0.0, -GRAVITY));
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
    let summary = simulate(
        &model,
        &mut Method::Rk4,
        &settings(&model, 5e-2, 10.0),
        &out("drift"),
    )
    .unwrap();
    let drift = summary.diagnostics.iter().find_map(|d| match d {
        Diagnostic::ConstraintDrift {
            time,
            joint,
            violation,
        } => Some((*time, *joint, *violation)),
        _ => None,
    });
    let (time, joint, violation) = drift.expect("drift diagnostic");
    assert_eq!(joint, 0);
    assert!(time > 0.0 && violation > 1e-6, "{time} {violation}");
}
