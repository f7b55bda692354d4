//! Drives on the joint-coordinate tree (a drive as one coordinate row q = ±f(t) + c on the
//! joint it moves) against the Cartesian model of the same scene (the drive a rotation row
//! sin(θ − f) among 6 coordinates per body), and the drive work the summary states against
//! closed forms: a mass raised at constant speed (W = m g Δh) and a driven crank carrying a
//! pendulum (balance ΔE − W falling at RK4's order).

use crate::common::{body_difference, parse_inline, tree_and_cartesian};
use ferrodyn_host::compile::{choose, Choice};
use ferrodyn_host::simulation::{drive, Simulation};
use ferrodyn_kernel::rigid::violation;

/// A crank (0.4 m, 1 kg) turning about y through θ(t) = 0.5 sin(3t) (revolute + drive),
/// carrying a pendulum (0.3 m to its bob, 0.5 kg) on a hinge about y at its tip, under gravity
/// −z: one free coordinate and one driven.
fn driven_pendulum(integrator: &str, step: f64, end: f64) -> String {
    format!(
        r#"
[simulation]
end_time = {end}
step = {step}
integrator = "{integrator}"

[[body]]
id = 1
name = "crank"
mass = 1.0
inertia = {{ Ixx = 0.00005, Iyy = 0.013358, Izz = 0.013358 }}
pos = [0.2, 0.0, 0.0]

[[body]]
id = 2
name = "bob"
mass = 0.5
inertia = {{ Ixx = 0.004, Iyy = 0.004, Izz = 0.0001 }}
pos = [0.4, 0.0, -0.3]

[[joint]]
name = "bearing"
type = "revolute"
body_i = "ground"
body_j = "crank"
frame_i = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}
frame_j = {{ origin = [-0.2, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}

[[drive]]
name = "motor"
body_i = "ground"
body_j = "crank"
frame_i = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}
frame_j = {{ origin = [-0.2, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}
coordinate = "rotation"
function = {{ sine = {{ amplitude = 0.5, omega = 3.0 }} }}

[[joint]]
name = "hinge"
type = "revolute"
body_i = "crank"
body_j = "bob"
frame_i = {{ origin = [0.2, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.3], axis = [0.0, 1.0, 0.0] }}
"#
    )
}

/// The drive's effort (N·m on its angle) of a simulation at its state.
fn effort(sim: &mut Simulation) -> f64 {
    sim.drive_loads().unwrap()[0].effort
}

/// What running the driven pendulum in both formulations side by side for 2 s showed.
struct Side {
    difference: f64,
    phi: f64,
    effort: f64,
    largest_effort: f64,
}

fn side_by_side(step: f64) -> Side {
    let scene = parse_inline(&driven_pendulum("rk4", step, 2.0));
    let (mut tree, mut cartesian) = tree_and_cartesian(&scene);
    let mut side = Side {
        difference: 0.0,
        phi: 0.0,
        effort: 0.0,
        largest_effort: 0.0,
    };
    for _ in 0..(2.0 / step).round() as usize {
        tree.step().unwrap();
        cartesian.step().unwrap();
        side.difference = side.difference.max(body_difference(&tree, &cartesian));
        let (model, data) = tree.rigid().unwrap();
        side.phi = side.phi.max(violation(model, data).position);
        let (a, b) = (effort(&mut tree), effort(&mut cartesian));
        side.effort = side.effort.max((a - b).abs());
        side.largest_effort = side.largest_effort.max(b.abs());
    }
    println!(
        "driven pendulum, RK4 {step:e} s over 2 s: body difference {:.2e}, tree max |Φ| {:.2e}, drive effort difference {:.2e} of {:.3} N·m",
        side.difference, side.phi, side.effort, side.largest_effort
    );
    side
}

#[test]
fn a_driven_crank_with_a_pendulum_runs_on_the_tree_as_the_cartesian_model() {
    let scene = parse_inline(&driven_pendulum("rk4", 1e-3, 2.0));
    let Choice::Tree(links) = choose(&scene).unwrap() else {
        panic!("{}", choose(&scene).unwrap().describe())
    };
    assert_eq!(links.len(), 2, "the drive carries no link");
    // At 1 ms each formulation carries its own RK4 error; at 1/16 ms both are converged.
    let coarse = side_by_side(1e-3);
    let fine = side_by_side(1e-3 / 16.0);
    assert!(fine.difference <= 1e-9, "difference {:e}", fine.difference);
    assert!(
        coarse.phi <= 1e-10 && fine.phi <= 1e-10,
        "|Φ| {:e}",
        coarse.phi.max(fine.phi)
    );
    assert!(
        fine.effort <= 1e-6 * fine.largest_effort,
        "drive effort off by {:e} of {:e}",
        fine.effort,
        fine.largest_effort
    );
    assert!(
        fine.largest_effort > 0.1,
        "the motor works ({})",
        fine.largest_effort
    );
}

#[test]
fn a_driven_joint_on_the_tree_follows_its_function() {
    let scene = parse_inline(&driven_pendulum("rk4", 1e-3, 2.0));
    let (mut tree, _) = tree_and_cartesian(&scene);
    let mut worst = 0.0f64;
    for _ in 0..2000 {
        tree.step().unwrap();
        // The crank's tree coordinate is the first state entry: its angle (0 at the start,
        // where f(0) = 0; the drive's axis is the joint's, so the sign is +).
        let t = tree.time();
        worst = worst.max((tree.state()[0] - 0.5 * (3.0 * t).sin()).abs());
    }
    assert!(worst <= 1e-12, "|q − f(t)| = {worst:e}");
}

#[test]
fn bdf2_runs_a_driven_tree() {
    // BDF2 (second order) on the tree against the Cartesian model's RK4 at 1/16 ms.
    let mut errors = Vec::new();
    for step in [2e-3, 1e-3] {
        let scene = parse_inline(&driven_pendulum("bdf2", step, 1.0));
        let (mut tree, _) = tree_and_cartesian(&scene);
        let mut reference = tree_and_cartesian(&parse_inline(&driven_pendulum("rk4", 1e-3 / 16.0, 1.0))).1;
        let mut worst = 0.0f64;
        let mut phi = 0.0f64;
        for _ in 0..(1.0 / step).round() as usize {
            tree.step().unwrap();
            reference.advance_to(tree.time()).unwrap();
            worst = worst.max(body_difference(&tree, &reference));
            let (model, data) = tree.rigid().unwrap();
            phi = phi.max(violation(model, data).position);
        }
        println!(
            "BDF2 {step:e} s on the driven tree: largest body difference {worst:.2e}, max |Φ| {phi:.2e}"
        );
        assert!(phi <= 1e-10, "|Φ| {phi:e}");
        errors.push(worst);
    }
    let order = (errors[0] / errors[1]).log2();
    assert!((1.7..2.5).contains(&order), "BDF2 order {order:.2} ({errors:?})");
}

/// A 2 kg slider on a vertical prismatic rail raised at 0.5 m/s by a translation drive for
/// `end` seconds under g = 9.81: W = m g Δh (its speed, hence kinetic energy, constant).
fn raised_mass(formulation: &str) -> String {
    format!(
        r#"
[simulation]
end_time = 1.0
step = 1e-3
integrator = "rk4"
formulation = "{formulation}"

[[body]]
id = 1
name = "slider"
mass = 2.0
inertia = {{ Ixx = 0.01, Iyy = 0.01, Izz = 0.01 }}
velocity = [0.0, 0.0, 0.5]

[[joint]]
name = "rail"
type = "prismatic"
body_i = "ground"
body_j = "slider"
frame_i = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}

[[drive]]
name = "lift"
body_i = "ground"
body_j = "slider"
frame_i = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}
coordinate = "translation"
function = {{ ramp = {{ slope = 0.5 }} }}
"#
    )
}

#[test]
fn raising_a_mass_at_constant_speed_takes_m_g_dh_on_both_formulations() {
    let expected = 2.0 * 9.81 * 0.5;
    for formulation in ["auto", "cartesian"] {
        let mut sim = ferrodyn_host::compile::compile(&parse_inline(&raised_mass(formulation))).unwrap();
        let summary = drive(&mut sim, Vec::new(), false).unwrap();
        let w = summary.drive_work.expect("a driven run states the drive work");
        println!(
            "{formulation}: W = {w:.12} J, m g Δh = {expected} J, balance {:.2e}",
            summary.energy_change - w
        );
        assert!((w - expected).abs() <= 1e-9 * expected, "{formulation}: W = {w}");
        assert!((summary.energy_change - expected).abs() <= 1e-9 * expected);
        assert!(
            summary.to_string().contains("drive work 9.810000e0 J"),
            "{summary}"
        );
    }
}

#[test]
fn the_drive_balance_falls_at_rk4_order_with_the_step() {
    let mut balances = Vec::new();
    for step in [4e-3, 2e-3] {
        for formulation in ["auto", "cartesian"] {
            let mut scene = parse_inline(&driven_pendulum("rk4", step, 2.0));
            if formulation == "cartesian" {
                scene.simulation.formulation = ferrodyn_host::spec::Formulation::Cartesian;
            }
            let mut sim = ferrodyn_host::compile::compile(&scene).unwrap();
            let summary = drive(&mut sim, Vec::new(), false).unwrap();
            let w = summary.drive_work.unwrap();
            let balance = summary.energy_change - w;
            println!(
                "{formulation} RK4 {step:e}: W = {w:.9e} J, ΔE = {:.9e} J, balance {balance:.2e} J",
                summary.energy_change
            );
            balances.push(balance.abs());
        }
    }
    for (k, name) in ["tree", "Cartesian"].iter().enumerate() {
        let order = (balances[k] / balances[k + 2]).log2();
        assert!(order > 3.5, "{name}: balance order {order:.2} ({balances:?})");
    }
}
