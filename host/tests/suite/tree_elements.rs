//! Scene elements on the joint-coordinate tree (fixed joints, joint springs, force elements,
//! contact, drives) against the Cartesian model of the same scene (`formulation =
//! "cartesian"`: constraints, 6 coordinates per body, an independent formulation) and against
//! closed forms where they exist.

use crate::common::{
    body_difference, contact_side_by_side, on_a_plane, parse_inline as parse, tree_and_cartesian as both,
};
use ferrodyn_host::compile::{choose, compile};
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use std::path::Path;

/// Steps `scene` in joint and in Cartesian coordinates side by side to its end time and
/// returns the largest body difference (positions, orientations, velocities of every body).
fn tree_against_cartesian(scene: &Scene) -> f64 {
    let (mut tree, mut cartesian) = both(scene);
    let mut largest = body_difference(&tree, &cartesian);
    assert!(largest < 1e-14, "at the start: {largest:e}");
    while tree.time() < scene.simulation.end_time - scene.simulation.step / 2.0 {
        tree.step().unwrap();
        cartesian.step().unwrap();
        largest = largest.max(body_difference(&tree, &cartesian));
    }
    largest
}

/// A 1 kg, 0.6 m arm on a hinge about y at the origin, lying along +x, with a 2 kg weight
/// welded at its end: the weight's origin at `weight_pos` (arm coordinates of the weld at
/// (0.6, 0, 0) + that), its CG 0.02 m along its x axis.
const WELDED_ARM: &str = r#"
[simulation]
end_time = 2.0
step = 1e-3
integrator = "rk4"

[[body]]
id = 1
name = "arm"
mass = 1.0
inertia = { Ixx = 5e-5, Iyy = 0.03, Izz = 0.03 }
pos = [0.3, 0.0, 0.0]

[[body]]
id = 2
name = "weight"
mass = 2.0
inertia = { Ixx = 0.004, Iyy = 0.005, Izz = 0.006 }
cg = [0.02, 0.0, 0.0]
pos = [0.6, 0.0, 0.0]

[[joint]]
name = "hinge"
type = "revolute"
body_i = "ground"
body_j = "arm"
frame_i = { origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }
frame_j = { origin = [-0.3, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }

[[joint]]
name = "weld"
type = "fixed"
body_i = "arm"
body_j = "weight"
frame_i = { origin = [0.3, 0.0, 0.0] }
frame_j = { origin = [0.0, 0.0, 0.0] }
"#;

#[test]
fn a_welded_weight_swings_with_the_compound_pendulum_period() {
    // Reference: the compound pendulum, T = 2π √(I_O / (m g d)) (1 + θ₀²/16 + …), with I_O
    // and m d summed by hand over the two bodies: gravity along +x, so the arm hangs along x,
    // displaced by θ₀ = 0.01 rad (positions and orientations turned about y).
    let theta: f64 = 0.01;
    let turned = |x: f64| format!("[{}, 0.0, {}]", x * theta.cos(), -x * theta.sin());
    let text = WELDED_ARM
        .replace("end_time = 2.0", "end_time = 6.0\ngravity = [9.81, 0.0, 0.0]")
        .replace(
            "pos = [0.3, 0.0, 0.0]",
            &format!("pos = {}\norient = {{ pitch = {theta} }}", turned(0.3)),
        )
        .replace(
            "pos = [0.6, 0.0, 0.0]",
            &format!("pos = {}\norient = {{ pitch = {theta} }}", turned(0.6)),
        );
    let (mut tree, _) = both(&parse(&text));
    let inertia: f64 = 0.03 + 1.0 * 0.3 * 0.3 + 0.005 + 2.0 * 0.62 * 0.62;
    let moment = 1.0 * 0.3 + 2.0 * 0.62;
    let period =
        2.0 * std::f64::consts::PI * (inertia / (moment * 9.81)).sqrt() * (1.0 + theta * theta / 16.0);
    // Crossings of the equilibrium (the hinge angle is 0 at the initial pose, so it hangs
    // at −θ₀).
    let measured = period_of(&zero_crossings(&mut tree, 6.0, |s| s.state()[0] + theta));
    // Observed relative error 4.9e-11 (the next amplitude term, 11θ₀⁴/3072, is 3.6e-11).
    assert!(
        (measured / period - 1.0).abs() < 1e-9,
        "period {measured} s, closed form {period} s"
    );
}

#[test]
fn a_welded_link_with_a_child_moves_as_the_cartesian_model() {
    // The arm hangs from a base welded to the ground; the weight is welded turned 0.3 rad
    // about z and lifted 0.1 m, and a rod hangs from it on a hinge about the weight's x axis,
    // so the motion is spatial. Gravity is tilted 45° towards +x (a 45° release). Observed
    // 3.0e-10 over 2 s.
    let text = WELDED_ARM
        .replace("end_time = 2.0", "end_time = 2.0\ngravity = [6.936717, 0.0, -6.936717]")
        .replace("pos = [0.6, 0.0, 0.0]", "pos = [0.6, 0.0, 0.1]\norient = { yaw = 0.3 }")
        .replace(
            "frame_i = { origin = [0.3, 0.0, 0.0] }\nframe_j = { origin = [0.0, 0.0, 0.0] }",
            "frame_i = { origin = [0.3, 0.0, 0.1] }\nframe_j = { origin = [0.0, 0.0, 0.0], orientation = { yaw = -0.3 } }",
        )
        .replace("body_i = \"ground\"\nbody_j = \"arm\"", "body_i = \"base\"\nbody_j = \"arm\"")
        + r#"
[[body]]
id = 3
name = "base"
mass = 3.0
inertia = { Ixx = 0.01, Iyy = 0.01, Izz = 0.01 }

[[joint]]
name = "bolt"
type = "fixed"
body_i = "ground"
body_j = "base"

[[body]]
id = 4
name = "rod"
mass = 0.5
inertia = { Ixx = 0.0067, Iyy = 0.0067, Izz = 1e-5 }
pos = [0.6, 0.0, -0.1]

[[joint]]
name = "elbow"
type = "revolute"
body_i = "weight"
body_j = "rod"
frame_i = { origin = [0.0, 0.0, 0.0], axis = [1.0, 0.0, 0.0] }
frame_j = { origin = [0.0, 0.0, 0.2], axis = [0.955336489125606, 0.29552020666133955, 0.0] }
"#;
    let scene = parse(&text);
    let description = choose(&scene).unwrap().describe();
    assert!(
        description
            .ends_with("2 joints form an open tree from the ground with 1 body welded on (fixed joints)"),
        "{description}"
    );
    let largest = tree_against_cartesian(&scene);
    assert!(largest < 1e-9, "tree vs Cartesian: {largest:e}");
    // What is left is the two formulations' RK4 errors: observed 1.5e-11 at 0.5 ms (÷19).
    let mut fine = scene.clone();
    fine.simulation.step = 5e-4;
    let finer = tree_against_cartesian(&fine);
    assert!(finer < largest / 8.0, "{finer:e} at 0.5 ms, {largest:e} at 1 ms");
}

/// A 1 kg, 0.6 m rod on a hinge about y at the origin, lying along +x, with a rotational
/// spring (20 N·m/rad, rest angle 0.4 rad) on the hinge. The rod is the hinge's body i, so the
/// tree's coordinate (turning the rod) runs against the scene's angle (frame j against i).
const SPRING_PENDULUM: &str = r#"
[simulation]
end_time = 2.0
step = 1e-3
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

[[force]]
name = "coil"
type = "rotational_spring_damper"
joint = "hinge"
stiffness = 20.0
rest_angle = 0.4
"#;

/// Crossings of `value` through zero over `simulation`'s run to `end`, linearly interpolated.
fn zero_crossings(simulation: &mut Simulation, end: f64, value: impl Fn(&Simulation) -> f64) -> Vec<f64> {
    let (mut crossings, mut last) = (Vec::new(), (simulation.time(), value(simulation)));
    while simulation.time() < end - 5e-4 {
        simulation.step().unwrap();
        let now = (simulation.time(), value(simulation));
        if (last.1 < 0.0) != (now.1 < 0.0) {
            crossings.push(last.0 + (now.0 - last.0) * last.1 / (last.1 - now.1));
        }
        last = now;
    }
    crossings
}

/// The mean period of crossings half a period apart.
fn period_of(crossings: &[f64]) -> f64 {
    assert!(crossings.len() >= 3, "{crossings:?}");
    2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64
}

#[test]
fn a_joint_spring_pendulum_moves_as_the_cartesian_model_and_keeps_its_energy() {
    let scene = parse(SPRING_PENDULUM);
    // Observed 2.1e-10 over 2 s.
    let largest = tree_against_cartesian(&scene);
    assert!(largest < 1e-9, "tree vs Cartesian: {largest:e}");
    // The spring's potential counts: ½·20·0.4² = 1.6 J at the start in both formulations,
    // and the tree's total stays (RK4's drift here is ~1e-10 J).
    let (mut tree, cartesian) = both(&scene);
    let energy = |s: &Simulation| s.energy().unwrap();
    assert!(
        (energy(&tree).potential - 1.6).abs() < 1e-12,
        "{:?}",
        energy(&tree)
    );
    assert!((energy(&tree).total() - energy(&cartesian).total()).abs() < 1e-12);
    let start = energy(&tree).total();
    tree.advance_to(2.0).unwrap();
    assert!(
        (energy(&tree).total() - start).abs() < 1e-8,
        "{:?}",
        energy(&tree)
    );
}

#[test]
fn a_joint_spring_without_gravity_swings_about_its_rest_angle_with_period_two_pi_root_i_over_k() {
    // Reference: I θ̈ = −k (θ − θ₀), I = I_cg + m (L/2)² = 0.03 + 0.09 about the hinge:
    // T = 2π √(I / k) at any amplitude, about θ₀ (the tree's coordinate −0.4 rad).
    let mut tree = compile(&parse(&SPRING_PENDULUM.replace(
        "integrator = \"rk4\"",
        "integrator = \"rk4\"\ngravity = [0.0, 0.0, 0.0]",
    )))
    .unwrap();
    let crossings = zero_crossings(&mut tree, 2.0, |s| s.state()[0] + 0.4);
    let period = 2.0 * std::f64::consts::PI * (0.12f64 / 20.0).sqrt();
    let measured = period_of(&crossings);
    // Observed relative error 2.7e-9.
    assert!(
        (measured / period - 1.0).abs() < 1e-8,
        "period {measured} s, closed form {period} s"
    );
}

#[test]
fn a_joint_spring_exports_with_its_stiffness_and_rest_coordinate() {
    // The tree's coordinate turns the rod, body i: rest at −0.4 rad.
    let code = rust_module(&parse(SPRING_PENDULUM), Precision::F64).unwrap();
    let spring = ".with_damping(s(0.0)).with_spring(s(20.0), s(-0.4)))?;";
    assert!(code.contains(spring), "missing `{spring}` in\n{code}");
}

/// A 2 kg carriage on a vertical prismatic joint, hanging from a spring-damper to the ground
/// point 1 m above it (200 N/m, rest length 0.5 m), released from rest with the spring
/// stretched 0.5 m.
const SUSPENSION: &str = r#"
[simulation]
end_time = 2.0
step = 1e-3
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

[[force]]
name = "coil"
type = "spring_damper"
body_i = "ground"
point_i = [0.0, 0.0, 1.0]
body_j = "carriage"
point_j = [0.0, 0.0, 0.0]
stiffness = 200.0
rest_length = 0.5
"#;

#[test]
fn a_suspension_spring_moves_its_carriage_about_the_static_deflection_in_closed_form() {
    // Reference: m z̈ = k (1 − z − l₀) − m g, so z(t) = z_eq (1 − cos ω t) with
    // z_eq = 1 − l₀ − m g / k and ω = √(k / m): period 2π/10 s, equilibrium 0.4019 m up.
    let (mut tree, cartesian) = both(&parse(SUSPENSION));
    // The spring's potential, ½·200·0.5² = 25 J, is in both energies; the tree keeps its total.
    let energy = |s: &Simulation| s.energy().unwrap();
    assert!(
        (energy(&tree).potential - 25.0).abs() < 1e-12,
        "{:?}",
        energy(&tree)
    );
    assert!((energy(&tree).total() - energy(&cartesian).total()).abs() < 1e-12);
    let start = energy(&tree).total();
    let (omega, z_eq) = ((200.0f64 / 2.0).sqrt(), 1.0 - 0.5 - 2.0 * 9.81 / 200.0);
    let mut largest: f64 = 0.0;
    while tree.time() < 2.0 - 5e-4 {
        tree.step().unwrap();
        let exact = z_eq * (1.0 - (omega * tree.time()).cos());
        largest = largest.max((tree.state()[0] - exact).abs());
    }
    // Observed 6.1e-10 m (RK4 at ω h = 0.01).
    assert!(largest < 1e-8, "{largest:e} m from the closed form");
    assert!(
        (energy(&tree).total() - start).abs() < 1e-8,
        "{:?}",
        energy(&tree)
    );
}

#[test]
fn a_damped_suspension_pushed_off_its_axis_moves_as_the_cartesian_model() {
    // The spring pulls at a point 0.1 m off the axis and a body-axis point force pushes it:
    // the prismatic joint carries the moments. Observed 2.5e-15 over 2 s.
    let text = SUSPENSION.replace(
        "point_j = [0.0, 0.0, 0.0]",
        "point_j = [0.1, 0.0, 0.0]\ndamping = 3.0",
    ) + r#"
[[force]]
name = "push"
type = "point"
body = "carriage"
point = [0.0, 0.1, 0.0]
direction = [0.3, 0.0, 1.0]
axes = "body"
function = { sine = { amplitude = 5.0, omega = 7.0 } }
"#;
    let largest = tree_against_cartesian(&parse(&text));
    assert!(largest < 1e-9, "tree vs Cartesian: {largest:e}");
}

#[test]
fn springs_between_links_and_to_the_ground_move_a_spatial_tree_as_the_cartesian_model() {
    // skew_tree (hip, rail, wrist: revolute, prismatic, revolute on skew axes) with a spring
    // from the ground to the tip, one between base and tip, and a torque in body axes.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/skew_tree.toml");
    let text = std::fs::read_to_string(&path).unwrap()
        + r#"
[[force]]
name = "pull"
type = "spring_damper"
body_i = "ground"
point_i = [0.5, 0.3, 0.0]
body_j = "tip"
point_j = [0.02, 0.0, 0.0]
stiffness = 10.0
damping = 0.5
rest_length = 0.3

[[force]]
name = "tie"
type = "spring_damper"
body_i = "base"
point_i = [0.0, 0.05, 0.0]
body_j = "tip"
stiffness = 15.0
rest_length = 0.2

[[force]]
name = "twist"
type = "torque"
body = "slider"
direction = [0.0, 0.0, 1.0]
axes = "body"
function = { constant = 0.2 }
"#;
    let scene = Scene::parse(&path, &text).unwrap();
    // Observed 1.2e-10 over 2 s (9.6e-12 at 0.5 ms: the RK4 errors).
    let largest = tree_against_cartesian(&scene);
    assert!(largest < 1e-9, "tree vs Cartesian: {largest:e}");
    // The springs' potential counts alike (the torque does work, so no conservation here).
    let (tree, cartesian) = both(&scene);
    let potential = |s: &Simulation| s.energy().unwrap().potential;
    assert!((potential(&tree) - potential(&cartesian)).abs() < 1e-12);
}

/// Steps `scene` in joint and in Cartesian coordinates side by side to its end time
/// ([`contact_side_by_side`]): the largest body difference before the first contact and after
/// it, the largest rise of the tree's energy between instants without an active contact, and the
/// largest difference of the two energies.
fn contact_against_cartesian(scene: &Scene) -> (f64, f64, f64, f64) {
    let (mut tree, mut cartesian) = both(scene);
    let start = tree.energy().unwrap().total();
    let run = contact_side_by_side(&mut tree, &mut cartesian, scene.simulation.end_time);
    assert!(run.touched, "no contact");
    // It lost energy (impacts, friction).
    assert!(tree.energy().unwrap().total() < start);
    (run.before, run.after, run.rise, run.apart)
}

#[test]
fn a_ball_sliding_into_rolling_on_a_plane_moves_as_the_cartesian_model() {
    // A 0.5 kg ball (R = 50 mm) thrown along x at 2 m/s without spin from 2 mm above the
    // plane: it lands, slides and rolls (friction 0.4 brings it to v = 5/7 v₀ in ~0.15 s).
    // Observed: 2e-17 before the contact, 7e-13 in it, energies 1.4e-13 J apart.
    let scene = parse(&on_a_plane(
        r#"
[[body]]
id = 1
name = "b"
mass = 0.5
inertia = { Ixx = 5e-4, Iyy = 5e-4, Izz = 5e-4 }
pos = [0.0, 0.0, 0.052]
velocity = [2.0, 0.0, 0.0]
"#,
        "type = \"sphere\"\nradius = 0.05",
    ));
    // Each corner keeps the v₀ it touched with (the kernel's ground contacts): a corner that
    // grazes keeps the 1e-2 m/s floor, its damper χ δ̇ / v₀ is stiff, and at 1e-4 s RK4 sits
    // near its stability edge there, growing rounding to 3.8e-6; at 5e-5 s the contact is
    // resolved. Observed at 5e-5 s: 5.7e-10 after the impacts, energies 2.5e-12 J apart.
    let mut scene = scene;
    scene.simulation.step = 5e-5;
    let (before, after, rise, apart) = contact_against_cartesian(&scene);
    assert!(before < 1e-12, "before the contact: {before:e}");
    assert!(after < 1e-8, "in contact: {after:e}");
    assert!(rise < 1e-9, "the energy rose by {rise:e} J");
    assert!(apart < 1e-10, "tree and Cartesian energies {apart:e} J apart");
}

#[test]
fn a_box_dropped_on_a_plane_moves_as_the_cartesian_model() {
    // A 1 kg box (0.2 × 0.1 × 0.05 m), tilted and spinning, dropped from 0.2 m: its corners
    // hit the plane.
    let scene = parse(&on_a_plane(
        r#"
[[body]]
id = 1
name = "b"
mass = 1.0
inertia = { Ixx = 0.00104, Iyy = 0.00354, Izz = 0.00417 }
pos = [0.0, 0.0, 0.2]
orient = { roll = 0.3, pitch = 0.2 }
angular_velocity = [0.0, 0.0, 1.0]
"#,
        "type = \"box\"\nhalf_extents = [0.1, 0.05, 0.025]",
    ));
    // Each corner keeps the v₀ it touched with (the kernel's ground contacts): a corner that
    // grazes keeps the 1e-2 m/s floor, its damper χ δ̇ / v₀ is stiff, and at 1e-4 s RK4 sits
    // near its stability edge there, growing rounding to 3.8e-6; at 5e-5 s the contact is
    // resolved. Observed at 5e-5 s: 5.7e-10 after the impacts, energies 2.5e-12 J apart.
    let mut scene = scene;
    scene.simulation.step = 5e-5;
    let (before, after, rise, apart) = contact_against_cartesian(&scene);
    assert!(before < 1e-12, "before the contact: {before:e}");
    assert!(after < 1e-8, "in contact: {after:e}");
    assert!(rise < 1e-9, "the energy rose by {rise:e} J");
    assert!(apart < 1e-10, "tree and Cartesian energies {apart:e} J apart");
}

#[test]
fn force_elements_on_a_tree_export_with_their_scene_values() {
    // The suspension's coil, and a body-axis point force and a torque on the carriage (link 0):
    // each element once, in scene order, with the scene's values; the capacities count them.
    let text = SUSPENSION.replace("rest_length = 0.5", "rest_length = 0.5\ndamping = 3.0")
        + r#"
[[force]]
name = "push"
type = "point"
body = "carriage"
point = [0.0, 0.1, 0.0]
direction = [0.3, 0.0, 1.0]
axes = "body"
function = { sine = { amplitude = 5.0, omega = 7.0 } }

[[force]]
name = "twist"
type = "torque"
body = "carriage"
direction = [0.0, 0.0, 1.0]
function = { table = [[0.0, 0.0], [1.0, 2.0]] }
"#;
    let code = rust_module(&parse(&text), Precision::F32).unwrap();
    for expected in [
        "pub type Capacities = Fixed<1, 0, 3, 0, 0>;",
        "forces.add(model, Force::SpringDamper { body_i: BodyRef::Ground, point_i: v(0.0, 0.0, 1.0), body_j: BodyRef::Body(0), point_j: v(0.0, 0.0, 0.0), stiffness: s(200.0), damping: s(3.0), rest_length: s(0.5) })?;",
        "forces.add(model, Force::Point { body: 0, point: v(0.0, 0.1, 0.0), direction: v(0.3, 0.0, 1.0), axes: Axes::Body, function: TimeFunction::Sine { offset: s(0.0), amplitude: s(5.0), omega: s(7.0), phase: s(0.0) } })?;",
        "forces.add(model, Force::Torque { body: 0, direction: v(0.0, 0.0, 1.0), axes: Axes::Global, function: TimeFunction::table(&[(s(0.0), s(0.0)), (s(1.0), s(2.0))])? })?;",
    ] {
        assert!(code.contains(expected), "missing `{expected}` in\n{code}");
    }
    assert_eq!(code.matches("forces.add(").count(), 3);
    // Every time function of the kernel exports, a smooth ramp as its two pieces (a cubic
    // with the harmonic term, then the cruise line; export/time_function.rs).
    let smooth = text.replace(
        "function = { table = [[0.0, 0.0], [1.0, 2.0]] }",
        "function = { smooth_ramp = { duration = 1.0, slope = 2.0 } }",
    );
    let code = rust_module(&parse(&smooth), Precision::F32).unwrap();
    assert!(
        code.contains("function: TimeFunction::Piecewise(ferrodyn_kernel::Piecewise { pieces: [ferrodyn_kernel::Piece { start: s(0.0), "),
        "{code}"
    );
    assert!(code.contains("], len: 2 }) })?;"), "{code}");
}
