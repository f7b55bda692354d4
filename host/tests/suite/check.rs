//! Model checks: DOF from the rank of Φ_q, redundant rows, initial violation, reactions.

use ferrodyn_host::check::*;
use ferrodyn_host::storage::{Growable, RigidData as Data, RigidModel};
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Quat, Vec3};
use ferrodyn_kernel::rigid::{assemble, Body, BodyRef, Frame, Joint, JointKind};
use ferrodyn_kernel::samples::{revolute_chain, ChainSpec, GRAVITY};

/// The host's checks take models on growable storage.
type Arm = RigidModel;

/// Two-body arm: upper arm on a spherical shoulder at the origin, forearm on a revolute elbow
/// about y at (0.3, 0, 0); optionally a strap (distance constraint) from the forearm tip to a
/// ground point, and optionally the elbow declared twice.
fn arm(strap: bool, duplicate_elbow: bool, forearm_offset: f64) -> Arm {
    let mut b = Arm::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let upper = b
        .add_body(Body::rod(2.0, 0.3, 0.04).at(Vec3::new(0.15, 0.0, 0.0), Quat::IDENTITY))
        .unwrap();
    let fore = b
        .add_body(Body::rod(1.5, 0.3, 0.03).at(Vec3::new(0.45 + forearm_offset, 0.0, 0.0), Quat::IDENTITY))
        .unwrap();
    let origin = Frame::at(Vec3::ZERO);
    b.add_joint(Joint::new(
        JointKind::Spherical,
        BodyRef::Ground,
        origin,
        upper,
        Frame::at(Vec3::new(-0.15, 0.0, 0.0)),
    ))
    .unwrap();
    let elbow = Joint::new(
        JointKind::Revolute,
        upper,
        Frame::with_z_axis(Vec3::new(0.15, 0.0, 0.0), Vec3::Y),
        fore,
        Frame::with_z_axis(Vec3::new(-0.15, 0.0, 0.0), Vec3::Y),
    );
    b.add_joint(elbow).unwrap();
    if duplicate_elbow {
        b.add_joint(elbow).unwrap();
    }
    if strap {
        let tip = Frame::at(Vec3::new(0.15, 0.0, 0.0));
        let anchor = Frame::at(Vec3::new(0.6, 0.0, 0.5));
        b.add_joint(Joint::new(
            JointKind::Distance { length: 0.5 },
            BodyRef::Ground,
            anchor,
            fore,
            tip,
        ))
        .unwrap();
    }
    b.build().unwrap()
}

#[test]
fn two_body_arm_has_four_dof_and_three_with_a_strap() {
    // Reference: Grübler–Kutzbach 6·2 − 3 (spherical) − 5 (revolute) = 4; a strap removes one.
    let model = arm(false, false, 0.0);
    let report = dof_report(&model, &mut Data::new(&model)).unwrap();
    assert_eq!(
        report,
        DofReport {
            gruebler: 4,
            rank: 8,
            independent: 4,
            redundant: vec![]
        }
    );
    let strapped = arm(true, false, 0.0);
    let report = dof_report(&strapped, &mut Data::new(&strapped)).unwrap();
    assert_eq!(
        report,
        DofReport {
            gruebler: 3,
            rank: 9,
            independent: 3,
            redundant: vec![]
        }
    );
}

#[test]
fn a_repeated_joint_is_listed_as_redundant() {
    // The elbow twice: Grübler says −1, the rank says 4 DOF, and the 5 rows of the second elbow
    // (joint 2) are the redundant ones.
    let model = arm(false, true, 0.0);
    let report = dof_report(&model, &mut Data::new(&model)).unwrap();
    assert_eq!(report.gruebler, -1);
    assert_eq!(report.independent, 4);
    assert_eq!(report.redundant, (0..5).map(|r| (2, r)).collect::<Vec<_>>());
}

#[test]
fn initial_violation_is_reported_per_joint() {
    // The forearm placed 2 cm too far along x: the elbow's coincidence rows read 0.02 m.
    let model = arm(false, false, 0.02);
    let mut data = Data::new(&model);
    let v = joint_violations(&model, &data);
    assert!(v[0] < 1e-15 && (v[1] - 0.02).abs() < 1e-12, "{v:?}");
    assemble(&model, &mut data).unwrap();
    assert!(joint_violations(&model, &data).iter().all(|&x| x < 1e-12));
}

#[test]
fn hanging_chain_reactions_equal_the_supported_weight() {
    // Reference: statics of a chain at rest: joint k carries the weight of links k..N, so the
    // force it exerts on link k is (0, 0, (N − k)·m·g).
    const N: usize = 5;
    let model: RigidModel = revolute_chain::<f64, Growable>(&ChainSpec::standard(N)).unwrap();
    let mut data = Data::new(&model);
    let tolerance = 1e-9 * GRAVITY;
    let settled = settle(&model, &mut data, &mut Rk4, 1e-3, tolerance, 60.0).unwrap();
    assert!(settled.acceleration <= tolerance, "{settled:?}");
    let reactions = joint_reactions(&model, &mut data).unwrap();
    for (k, r) in reactions.iter().enumerate() {
        let weight = (N - k) as f64 * 1.0 * GRAVITY;
        assert!(
            (r.force - Vec3::new(0.0, 0.0, weight)).norm() < 1e-6 * weight,
            "joint {k}: {:?}",
            r.force
        );
    }
    println!(
        "settled in {:.2} s; top reaction {:?} N",
        settled.time, reactions[0].force
    );
}

#[test]
fn a_duplicated_strap_runs_as_the_single_strap() {
    // scenes/arm_strap.toml with its strap declared twice: the copy's row is redundant (zero
    // multiplier, last in order), so the factorization of the other rows and the motion are
    // unchanged, bit for bit.
    use ferrodyn_host::compile::compile;
    use ferrodyn_host::scene::Scene;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("scenes/arm_strap.toml")).unwrap();
    let strap = &text[text.find("[[joint]]\nname = \"strap\"").unwrap()..text.find("[[force]]").unwrap()];
    let doubled = text.replace(
        strap,
        &format!("{strap}{}", strap.replace("\"strap\"", "\"strap_copy\"")),
    );
    let path = std::env::temp_dir().join(format!("ferrodyn-arm-two-straps-{}.toml", std::process::id()));
    std::fs::write(&path, doubled).unwrap();
    let (single, double) = (
        Scene::load(&root.join("scenes/arm_strap.toml")).unwrap(),
        Scene::load(&path).unwrap(),
    );
    let _ = std::fs::remove_file(&path);
    let (mut a, mut b) = (compile(&single).unwrap(), compile(&double).unwrap());
    a.advance_to(1.0).unwrap();
    b.advance_to(1.0).unwrap();
    assert_eq!(a.state(), b.state());
    let (model, data) = b.rigid().unwrap();
    assert_eq!(redundant_rows(model, data), vec![(3, 0)]);
}
