//! The implicit multibody solver (HHT-α, Newmark, generalized-α on rigid bodies with joints and
//! flexible bodies attached to them) from scene files: a torque-driven hub moves by the exact
//! θ = τt²/(2I) at every Newton tolerance the docs allow (and so does BDF2), in Cartesian and in
//! joint coordinates, a hub carrying a
//! flexible beam turns and takes the work τθ as kinetic and strain energy, and a pendulum
//! swings with the period of the exact elliptic-integral solution.

use ferrodyn_host::compile::compile;
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use std::path::PathBuf;

const INERTIA: f64 = 100.0;
const TORQUE: f64 = 50.0;

fn scene(text: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/implicit_test.toml");
    Scene::parse(&path, text).unwrap_or_else(|e| panic!("{e}"))
}

/// A hub on a z axle under a constant torque, no gravity, with `integrator` and `tolerance`.
fn hub(integrator: &str, tolerance: f64, flexible: &str) -> String {
    format!(
        r#"
[simulation]
end_time = 0.5
step = 1e-3
integrator = "{integrator}"
gravity = [0.0, 0.0, 0.0]
[simulation.implicit]
newton_tol = {tolerance:e}

[[body]]
id = 1
name = "hub"
mass = 20.0
inertia = {{ Ixx = 60.0, Iyy = 60.0, Izz = {INERTIA} }}
pos = [-0.1, 0.05, 0.05]

[[joint]]
name = "axle"
type = "revolute"
body_i = "ground"
body_j = "hub"
frame_i = {{ origin = [-0.1, 0.05, 0.05], axis = [0.0, 0.0, 1.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}

[[force]]
name = "motor"
type = "torque"
body = "hub"
direction = [0.0, 0.0, 1.0]
function = {{ constant = {TORQUE} }}
{flexible}"#
    )
}

/// The hub's rotation angle about z.
fn hub_angle(sim: &Simulation) -> f64 {
    let (_, q) = sim.body_pose(0);
    let [w, _, _, z] = q.to_array();
    2.0 * z.atan2(w)
}

fn run(sim: &mut Simulation, end: f64) {
    while sim.time() < end - 1e-9 {
        sim.step().unwrap_or_else(|e| panic!("{e:#}"));
    }
}

#[test]
fn a_torque_driven_hub_moves_by_the_exact_angle_at_every_allowed_tolerance() {
    // Constant acceleration τ/I: Newmark, HHT and generalized-α reproduce it exactly, so the
    // angle is τt²/(2I) to round-off whatever the tolerance; the unmoved state (the bug of a
    // loose tolerance accepting the first guess) would give 0.
    // In Cartesian coordinates (the multibody solver; BDF on the kernel model) and in joint
    // coordinates (`auto`: the tree, every integrator a `dae` one).
    let exact = TORQUE * 0.25 / (2.0 * INERTIA);
    for (integrator, formulation) in ["hht", "newmark", "generalized-alpha", "bdf2"]
        .into_iter()
        .flat_map(|i| [(i, "cartesian"), (i, "auto")])
    {
        for tolerance in [1e-1, 1e-3, 1e-6, 1e-10] {
            let text = hub(integrator, tolerance, "").replacen(
                "[simulation]\n",
                &format!("[simulation]\nformulation = \"{formulation}\"\n"),
                1,
            );
            let mut sim = compile(&scene(&text)).unwrap();
            run(&mut sim, 0.5);
            let theta = hub_angle(&sim);
            // BDF2 is second order, not exact, for a constant acceleration started from rest
            // by one BDF1 step: θ errs by O(h) τ t/I.
            let bound = if integrator == "bdf2" {
                2e-3 * exact
            } else {
                1e-9 * exact
            };
            assert!(
                (theta - exact).abs() <= bound,
                "{integrator} ({formulation}) at newton_tol {tolerance}: θ = {theta}, exact {exact}"
            );
            let kinetic = sim.energy().unwrap().kinetic;
            let work = TORQUE * theta;
            println!(
                "{integrator} newton_tol {tolerance:e}: θ − exact = {:e} rad",
                theta - exact
            );
            assert!(
                (kinetic - work).abs() <= 1e-2 * work,
                "{integrator} at {tolerance}: kinetic {kinetic} J, work {work} J"
            );
        }
    }
}

const BEAM: &str = r#"
[[flexible]]
name = "beam"
mesh = "../meshes/beam_coarse.msh"
material = { law = "svk", E = 1e8, nu = 0.3, rho = 1000.0 }
attach = { group = "clamp", body = "hub" }
"#;

#[test]
fn a_hub_carrying_a_flexible_beam_turns_and_stores_the_work_of_its_torque() {
    // Energy balance (no gravity, no damping): kinetic + strain = ∫τ dθ = τθ, less what the
    // scheme's numerical damping takes from the highest modes (HHT α = −0.05, ρ∞ = 0.8):
    // measured 4e-7 of the work after 50 steps.
    for integrator in ["hht", "generalized-alpha"] {
        for tolerance in [1e-2, 1e-8] {
            let mut sim = compile(&scene(&hub(integrator, tolerance, BEAM))).unwrap();
            assert!(sim.flexible().is_some() && sim.rigid().is_some());
            run(&mut sim, 0.05);
            let theta = hub_angle(&sim);
            let e = sim.energy().unwrap();
            let work = TORQUE * theta;
            assert!(theta > 0.0, "{integrator} at {tolerance}: the hub did not move");
            let stored = e.kinetic + e.strain;
            println!(
                "{integrator} newton_tol {tolerance:e}: θ = {theta} rad, stored {stored} J, work {work} J"
            );
            assert!(
                (stored - work).abs() <= 1e-4 * work,
                "{integrator} at {tolerance}: stored {stored} J, work {work} J (θ = {theta})"
            );
            // The beam adds inertia: the hub turns less than alone.
            assert!(theta < TORQUE * 0.05 * 0.05 / (2.0 * INERTIA));
        }
    }
}

#[test]
fn a_pendulum_swings_with_the_exact_large_amplitude_period() {
    // scenes/pendulum.toml: a 1 kg bob on a massless 1 m distance constraint released
    // horizontally (θ0 = 90°), at 1 ms:
    // T = 4 K(sin 45°) √(L/g), K the complete elliptic integral of the first kind.
    let g: f64 = 9.81;
    let k = complete_elliptic_k(std::f64::consts::FRAC_1_SQRT_2);
    let period = 4.0 * k * (1.0 / g).sqrt();
    for integrator in ["hht", "newmark", "generalized-alpha"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/pendulum.toml");
        let mut scene = Scene::load(&path).unwrap();
        scene.simulation.integrator = ferrodyn_host::spec::IntegratorSpec::from_name(
            integrator,
            ferrodyn_kernel::integrators::AdaptiveConfig::default(),
        )
        .unwrap();
        let mut sim = compile(&scene).unwrap();
        // A full period: the bob rises back through z = −1 mm on the x > 0 side.
        let (mut previous_z, mut crossing) = (0.0, None);
        let x_of = |sim: &Simulation| sim.body_pose(0).0;
        while sim.time() < 1.5 * period {
            let t0 = sim.time();
            sim.step().unwrap();
            let p = x_of(&sim);
            if sim.time() > 0.5 * period && p.x > 0.0 && previous_z < -1e-3 && p.z >= -1e-3 {
                // Linear interpolation of the crossing of z = −1e-3.
                let fraction = (-1e-3 - previous_z) / (p.z - previous_z);
                crossing = Some(t0 + fraction * (sim.time() - t0));
                break;
            }
            previous_z = p.z;
        }
        // z = −1e-3 m is reached 1e-3/(√(2gL)·…) before the top: at the top the speed is zero,
        // so the time from z = −1e-3 to 0 is √(2·1e-3/g) (free fall from rest, sideways
        // velocity zero at the turning point).
        let measured = crossing.expect("a full swing") + (2.0 * 1e-3 / g).sqrt();
        println!("{integrator}: period {measured} s, exact {period} s");
        // Measured 7e-6: the schemes' period error (ωh)²/12 ≈ 1e-6 and the free-fall estimate.
        assert!(
            (measured - period).abs() < 3e-5 * period,
            "{integrator}: period {measured} s, exact {period} s"
        );
    }
}

/// K(k) by the arithmetic–geometric mean: π / (2 AGM(1, √(1 − k²))).
fn complete_elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0, (1.0 - k * k).sqrt());
    for _ in 0..30 {
        let (an, bn) = (0.5 * (a + b), (a * b).sqrt());
        a = an;
        b = bn;
    }
    std::f64::consts::PI / (2.0 * a)
}

#[test]
fn a_step_whose_newton_iteration_fails_is_retried_in_halves() {
    // scenes/pendulum.toml by HHT at 20 ms allowing 4 Newton iterations a step: some steps
    // need more and fail; retried as halves (max_halvings) every step converges. The bob stays
    // on its 1 m circle, and where it is after 1 s differs from full 20 ms steps with Newton
    // iterations enough by less than their own distance from a 1 ms run (the scheme's
    // discretization error): a step change costs the α-methods' a-vector some accuracy.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/pendulum.toml");
    let run = |step: f64, iterations: u32, halvings: u32| {
        let mut scene = Scene::load(&path).unwrap();
        scene.simulation.step = step;
        let mut options = ferrodyn_host::spec::HhtOptions::hht(-0.05).unwrap();
        (options.max_newton_iter, options.max_halvings, options.newton_tol) = (iterations, halvings, 1e-8);
        scene.simulation.integrator = ferrodyn_host::spec::IntegratorSpec::Hht(options);
        let mut sim = compile(&scene).unwrap();
        while sim.time() < 1.0 - 1e-9 {
            let before = sim.time();
            if let Err(e) = sim.step() {
                // The failed step left the state where it started.
                assert_eq!(sim.time(), before);
                return Err(format!("{e:#}"));
            }
            let radius = sim.body_pose(0).0.norm();
            assert!((radius - 1.0).abs() < 1e-9, "|x| = {radius}");
        }
        Ok(sim.body_pose(0).0)
    };
    let error = run(0.02, 4, 0).expect_err("4 iterations are too few for some 20 ms steps");
    assert!(error.contains("did not converge"), "{error}");
    let fine = run(1e-3, 20, 0).unwrap();
    let (halved, full) = (run(0.02, 4, 4).unwrap(), run(0.02, 20, 0).unwrap());
    let (change, discretization) = ((halved - full).norm(), (full - fine).norm());
    println!("bob at 1 s: halving moved it {change} m; 20 ms steps are {discretization} m from 1 ms ones");
    assert!(change <= 0.25 * discretization, "{change} m, {discretization} m");
}
