//! Joint limits (`limits = [lower, upper]` on a revolute or prismatic joint): the end stops'
//! stiff, damped, unilateral spring, in joint coordinates against the Cartesian model of the
//! same scene, against the static penetration of a body resting on its stop, and in the energy.

use crate::common::{body_difference, parse_inline as parse, tree_and_cartesian as both};
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::{Scene, DEFAULT_LIMIT_DAMPING, DEFAULT_LIMIT_STIFFNESS};
use ferrodyn_host::simulation::Simulation;
use std::path::Path;

/// A 1 kg, 0.6 m rod (CG 0.3 m from the hinge, 0.12 kg·m² about it) on a hinge about y,
/// released horizontal: it falls about 0.5 rad onto the stop. The rod is body i, so the scene's
/// angle (ground frame against the rod's) falls as the rod falls: the stop is the lower end,
/// −0.5 rad, and the tree's coordinate runs the other way (its upper end, +0.5 rad).
const ROD: &str = r#"
[simulation]
end_time = 3.0
step = 1e-4
integrator = "rk4"

[[body]]
id = 1
name = "rod"
mass = 1.0
inertia = { Ixx = 5e-5, Iyy = 0.03, Izz = 0.03 }
pos = [0.3, 0.0, 0.0]

[[joint]]
name = "hinge"
type = "revolute"
body_i = "rod"
body_j = "ground"
frame_i = { origin = [-0.3, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }
frame_j = { origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }
limits = [-0.5, 1.0]
"#;

/// Steps both formulations to the end; returns the largest body difference and the tree's
/// (time, coordinate, rate, total energy) every step.
fn run_both(scene: &Scene) -> (f64, Vec<[f64; 4]>) {
    let (mut tree, mut cartesian) = both(scene);
    let mut largest = body_difference(&tree, &cartesian);
    let sample = |s: &Simulation| [s.time(), s.state()[0], s.state()[1], s.energy().unwrap().total()];
    let mut history = vec![sample(&tree)];
    while tree.time() < scene.simulation.end_time - scene.simulation.step / 2.0 {
        tree.step().unwrap();
        cartesian.step().unwrap();
        largest = largest.max(body_difference(&tree, &cartesian));
        history.push(sample(&tree));
        let (et, ec) = (tree.energy().unwrap(), cartesian.energy().unwrap());
        assert!(
            (et.total() - ec.total()).abs() < 1e-6,
            "t = {}: {et:?} vs {ec:?}",
            tree.time()
        );
    }
    (largest, history)
}

#[test]
fn a_pendulum_falls_onto_its_stop_rebounds_loses_energy_and_rests_at_the_static_penetration() {
    let scene = parse(ROD);
    let (largest, history) = run_both(&scene);
    // Tree and Cartesian models integrate the same stop; what differs is their RK4 error across
    // it (ω = √(k / I) = 289 rad/s): observed 8.0e-8 at 0.1 ms, 1.4e-9 at 0.05 ms.
    assert!(largest < 1e-7, "tree vs Cartesian: {largest:e}");
    // Rebound: the rod reaches its stop (tree coordinate 0.5 rad) and comes back up (rate < 0).
    let first_contact = history.iter().position(|h| h[1] > 0.5).expect("reaches the stop");
    assert!(history[first_contact..].iter().any(|h| h[2] < -0.1), "no rebound");
    // The damped stop only removes energy: the total never rises by more than RK4's error
    // (observed 8.9e-16 J; 1.41 J lost by the end).
    let rise = history
        .windows(2)
        .map(|w| w[1][3] - w[0][3])
        .fold(f64::MIN, f64::max);
    assert!(rise < 1e-9, "energy rose by {rise:e} J in a step");
    let lost = history[0][3] - history.last().unwrap()[3];
    assert!(lost > 0.1, "the stop dissipated only {lost} J");
    // Resting on the stop: k d = m g l cos(0.5 + d) (l = 0.3 m), ≈ m g l cos 0.5 / k.
    let [_, q, rate, _] = *history.last().unwrap();
    let mut depth = 9.81 * 0.3 * 0.5f64.cos() / DEFAULT_LIMIT_STIFFNESS;
    for _ in 0..5 {
        depth = 9.81 * 0.3 * (0.5 + depth).cos() / DEFAULT_LIMIT_STIFFNESS;
    }
    assert!(rate.abs() < 1e-3, "still moving: {rate} rad/s");
    // Observed equal to 1.4e-12 relative (2.58e-4 rad).
    assert!(
        ((q - 0.5) / depth - 1.0).abs() < 1e-9,
        "penetration {} rad, static {depth} rad",
        q - 0.5
    );
}

/// A 2 kg carriage on a vertical prismatic joint, dropped onto its lower stop 0.1 m below
/// (damping ratio 0.5 on the stop).
const CARRIAGE: &str = r#"
[simulation]
end_time = 2.0
step = 1e-4
integrator = "rk4"

[[body]]
id = 1
name = "carriage"
mass = 2.0
inertia = { Ixx = 0.01, Iyy = 0.02, Izz = 0.03 }

[[joint]]
name = "strut"
type = "prismatic"
body_i = "ground"
body_j = "carriage"
frame_i = { origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }
frame_j = { origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }
limits = [-0.1, 0.5]
limit_stiffness = 2e4
limit_damping = 200.0
"#;

#[test]
fn a_carriage_dropped_onto_its_prismatic_stop_moves_as_the_cartesian_model_and_rests_at_m_g_over_k() {
    let (largest, history) = run_both(&parse(CARRIAGE));
    // One coordinate along a fixed axis in both: observed equal to the bit.
    assert!(largest < 1e-12, "tree vs Cartesian: {largest:e}");
    let rise = history
        .windows(2)
        .map(|w| w[1][3] - w[0][3])
        .fold(f64::MIN, f64::max);
    assert!(rise < 1e-9, "energy rose by {rise:e} J in a step");
    // Static: k d = m g exactly (a linear spring under a constant load): observed 1.3e-13.
    let [_, z, rate, _] = *history.last().unwrap();
    assert!(rate.abs() < 1e-6, "still moving: {rate} m/s");
    let depth = 2.0 * 9.81 / 2e4;
    assert!(
        ((-0.1 - z) / depth - 1.0).abs() < 1e-9,
        "penetration {} m, m g / k = {depth} m",
        -0.1 - z
    );
}

#[test]
fn the_end_stops_store_their_energy_in_the_potential() {
    // The carriage started 0.01 m below its stop: ½ k d² = 1 J on top of gravity's m g z.
    let scene = parse(&CARRIAGE.replace("limits = [-0.1, 0.5]", "limits = [0.01, 0.5]"));
    let (tree, cartesian) = both(&scene);
    for s in [&tree, &cartesian] {
        let potential = s.energy().unwrap().potential;
        assert!((potential - 0.5 * 2e4 * 1e-4).abs() < 1e-12, "{potential}");
    }
}

#[test]
fn limits_export_to_the_firmware_in_tree_coordinates() {
    // The rod is body i: the scene's [−0.5, 1] is the tree's [−1, 0.5].
    let code = rust_module(&parse(ROD), Precision::F64).unwrap();
    let limit = format!(
        ".with_limit(JointLimit::new(s(-1.0), s(0.5), s({:?}), s({:?})))",
        DEFAULT_LIMIT_STIFFNESS, DEFAULT_LIMIT_DAMPING
    );
    assert!(code.contains(&limit), "missing `{limit}` in\n{code}");
    assert!(code.contains("use ferrodyn_kernel::JointLimit;"));
}

#[test]
fn bad_limits_are_errors_naming_the_joint_and_line() {
    let error = |text: &str| {
        Scene::parse(Path::new("inline.toml"), text)
            .unwrap_err()
            .to_string()
    };
    let reversed = error(&ROD.replace("limits = [-0.5, 1.0]", "limits = [1.0, -0.5]"));
    assert!(
        reversed.contains("joint \"hinge\"") && reversed.contains("lower ≤ upper"),
        "{reversed}"
    );
    assert!(reversed.contains("inline.toml:21"), "{reversed}");
    let soft = error(&ROD.replace(
        "limits = [-0.5, 1.0]",
        "limits = [-0.5, 1.0]\nlimit_stiffness = 0.0",
    ));
    assert!(soft.contains("limit_stiffness"), "{soft}");
    let orphan = error(&ROD.replace("limits = [-0.5, 1.0]", "limit_damping = 3.0"));
    assert!(orphan.contains("applies only with limits"), "{orphan}");
    let ball = error(&ROD.replace("type = \"revolute\"", "type = \"spherical\""));
    assert!(ball.contains("a spherical joint has no limits"), "{ball}");
}
