//! Servo inputs (`[[input]]` with `kind = "position"` or `"velocity"`): the joint force
//! τ = kp·(r − q) − kd·q̇ or kv·(r − q̇) formed inside the dynamics, against exact references —
//! the damped oscillator I·q̈ = kp·(r − q) − kd·q̇ in closed form (RK4's fourth order shows as
//! a 16× smaller error at half the step), the first-order velocity response, the static
//! equilibrium under gravity, the energy of the servo's spring — and one error per bad input.

use std::path::{Path, PathBuf};

use ferrodyn_host::compile::compile;
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)
}

/// scenes/servo_arm.toml with each `(from, to)` replaced in its text, parsed.
fn servo_arm(edits: &[(&str, &str)]) -> Result<Scene, String> {
    let path = scene_path("servo_arm.toml");
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (from, to) in edits {
        assert!(text.contains(from), "{from} is not in servo_arm.toml");
        text = text.replace(from, to);
    }
    Scene::parse(&path, &text).map_err(|e| e.to_string())
}

// The arm of servo_arm.toml: a 1 kg, 0.5 m rod on a hinge at its end.
const MASS: f64 = 1.0;
const HALF_LENGTH: f64 = 0.25;
const I_CG: f64 = 0.020858333333333333;
const I_HINGE: f64 = I_CG + MASS * HALF_LENGTH * HALF_LENGTH;
const KP: f64 = 20.0;
const KD: f64 = 0.5;
/// The set-point: value −300 mrad × scale 1e-3.
const R: f64 = -0.3;

const NO_GRAVITY: (&str, &str) = (
    "integrator = \"rk4\"",
    "integrator = \"rk4\"\ngravity = [0.0, 0.0, 0.0]",
);

/// Largest |q − q_exact(t)| over `steps` steps of `dt` of `scene` (its step set to `dt`).
fn max_error(edits: &[(&str, &str)], dt: f64, steps: usize, exact: impl Fn(f64) -> f64) -> f64 {
    let step = format!("step = {dt:e}");
    let mut all = edits.to_vec();
    all.push(("step = 1e-3", &step));
    let mut sim = compile(&servo_arm(&all).unwrap()).unwrap();
    let mut worst = 0.0f64;
    for _ in 0..steps {
        sim.step().unwrap();
        worst = worst.max((sim.state()[0] - exact(sim.time())).abs());
    }
    worst
}

#[test]
fn a_position_servo_without_gravity_is_the_damped_oscillator_in_closed_form() {
    // I q̈ + kd q̇ + kp q = kp r, q(0) = q̇(0) = 0: with x = q − r, ω0² = kp/I, ζ = kd/(2√(kp I)),
    // ωd = ω0√(1 − ζ²): x = e^{−ζω0 t}(x0 cos ωd t + ζω0 x0/ωd sin ωd t), x0 = −r.
    let omega0 = (KP / I_HINGE).sqrt();
    let zeta = KD / (2.0 * (KP * I_HINGE).sqrt());
    assert!(zeta < 1.0, "underdamped");
    let omega_d = omega0 * (1.0 - zeta * zeta).sqrt();
    let exact = |t: f64| {
        let x0 = -R;
        let decay = (-zeta * omega0 * t).exp();
        R + decay * (x0 * (omega_d * t).cos() + zeta * omega0 * x0 / omega_d * (omega_d * t).sin())
    };
    // 1 s: about 2.5 periods.
    fourth_order_within(&[NO_GRAVITY], exact, 1e-7);
}

/// Over 1 s of the edited scene at RK4, the largest error against `exact` is below `bound` at
/// h = 1 ms and shrinks about 16× when the step halves (fourth order).
fn fourth_order_within(edits: &[(&str, &str)], exact: impl Fn(f64) -> f64 + Copy, bound: f64) {
    let coarse = max_error(edits, 1e-3, 1000, exact);
    let fine = max_error(edits, 5e-4, 2000, exact);
    assert!(coarse < bound, "max |q − q_exact| = {coarse:e} rad at h = 1 ms");
    let ratio = coarse / fine;
    eprintln!("max error {coarse:e} at 1 ms, {fine:e} at 0.5 ms: ratio {ratio}");
    assert!(
        (14.0..18.0).contains(&ratio),
        "error ratio {ratio} at h/2 (RK4: 16)"
    );
}

#[test]
fn a_velocity_servo_without_gravity_approaches_its_rate_exponentially() {
    // I q̈ = kv (r − q̇), q̇(0) = 0: q̇ = r (1 − e^{−t/τ}), q = r (t − τ (1 − e^{−t/τ})), τ = I/kv.
    let kv = 2.0;
    let tau = I_HINGE / kv;
    let exact = |t: f64| R * (t - tau * (1.0 - (-t / tau).exp()));
    let edits = [
        NO_GRAVITY,
        ("kind = \"position\"", "kind = \"velocity\""),
        ("kp = 20.0", "kv = 2.0"),
        ("kd = 0.5", ""),
    ];
    fourth_order_within(&edits, exact, 1e-10);
}

#[test]
fn under_gravity_the_arm_settles_where_the_servo_holds_its_weight() {
    // Gravity's moment about +y on the rod at angle q is +m g (L/2) cos q (the rod along +x
    // turns towards −z), so the servo holds it where kp (q − r) = m g (L/2) cos q: solved by
    // Newton's method. ζ ≈ 0.19, ω0 ≈ 15.5 rad/s: 10 s is 30 decay times.
    let g = 9.81;
    let f = |q: f64| KP * (q - R) - MASS * g * HALF_LENGTH * q.cos();
    let df = |q: f64| KP + MASS * g * HALF_LENGTH * q.sin();
    let mut q_star = R;
    for _ in 0..50 {
        q_star -= f(q_star) / df(q_star);
    }
    assert!(f(q_star).abs() < 1e-12);
    let scene = servo_arm(&[("end_time = 2.0", "end_time = 10.0")]).unwrap();
    let mut sim = compile(&scene).unwrap();
    for _ in 0..10_000 {
        sim.step().unwrap();
    }
    let (q, rate) = (sim.state()[0], sim.state()[1]);
    assert!((q - q_star).abs() < 1e-10, "q = {q}, equilibrium {q_star}");
    assert!(rate.abs() < 1e-9, "q̇ = {rate:e}");
}

#[test]
fn an_undamped_servo_conserves_the_energy_of_its_spring_and_gravity() {
    // kd = 0: kinetic + gravity + ½ kp (r − q)² is constant (to RK4's error at 1 ms); without
    // the spring term it would swing by ½ kp r² = 0.9 J.
    let scene = servo_arm(&[("kd = 0.5", "kd = 0.0")]).unwrap();
    let mut sim = compile(&scene).unwrap();
    let energy = |sim: &ferrodyn_host::simulation::Simulation| {
        let e = sim.energy().unwrap();
        e.kinetic + e.potential
    };
    let e0 = energy(&sim);
    assert!(
        (e0 - (0.5 * KP * R * R)).abs() < 1e-15,
        "E(0) = {e0} (rod at the origin's height)"
    );
    let mut drift = 0.0f64;
    for _ in 0..2000 {
        sim.step().unwrap();
        drift = drift.max((energy(&sim) - e0).abs());
    }
    assert!(drift < 1e-8, "energy drift {drift:e} J");
}

#[test]
fn the_servo_exports_with_its_gains_and_set_point_unit() {
    let scene = servo_arm(&[]).unwrap();
    let code = rust_module(&scene, Precision::F32).unwrap();
    for expected in [
        "use ferrodyn_kernel::tree::{Builder, Data, Link, Model, Servo};",
        ".with_damping(s(0.0)).with_servo(Servo::Position { kp: s(20.0), kd: s(0.5) }))?;",
        "Port { name: \"angle\", unit: \"rad\", scale: 0.001 },",
        "data.set_input(0, s(-300.0) * s(0.001))?;",
    ] {
        assert!(code.contains(expected), "missing `{expected}` in\n{code}");
    }
    let velocity = servo_arm(&[
        ("kind = \"position\"", "kind = \"velocity\""),
        ("kp = 20.0", "kv = 0.4"),
        ("kd = 0.5", ""),
    ])
    .unwrap();
    let code = rust_module(&velocity, Precision::F64).unwrap();
    assert!(
        code.contains(".with_servo(Servo::Velocity { kv: s(0.4) })"),
        "{code}"
    );
    assert!(code.contains("Port { name: \"angle\", unit: \"rad/s\", scale: 0.001 },"));
    // A scene without servos exports as before.
    let plain = Scene::load(&scene_path("hil_arm.toml")).unwrap();
    assert!(!rust_module(&plain, Precision::F32).unwrap().contains("Servo"));
}

#[test]
fn bad_servo_inputs_are_one_error_naming_the_input() {
    let cases: [(&[(&str, &str)], &str); 7] = [
        (&[("kp = 20.0", "kp = 0.0")], "input \"angle\": kp:"),
        (&[("kp = 20.0", "kp = -1.0")], "input \"angle\": kp:"),
        (&[("kd = 0.5", "kd = -0.5")], "input \"angle\": kd:"),
        (&[("kp = 20.0", "")], "input \"angle\": kp: missing"),
        (
            &[("kind = \"position\"", "kind = \"force\"")],
            "input \"angle\": kind: \"force\" does not act on a revolute joint (its input is a torque)",
        ),
        (
            &[("kind = \"position\"", "kind = \"angle\"")],
            "input \"angle\": kind: \"angle\": expected torque, position or velocity",
        ),
        (
            &[("kind = \"position\"", "kind = \"velocity\"\nkv = 1.0")],
            "input \"angle\": kp: not a gain of a velocity input",
        ),
    ];
    for (edits, expected) in cases {
        let message = match servo_arm(edits) {
            Err(message) => message,
            Ok(scene) => panic!("no error for {edits:?}; expected {expected} ({:?})", scene.inputs),
        };
        assert!(message.contains(expected), "{message}\n  expected: {expected}");
    }
    // Gains on a plain torque input are refused rather than ignored.
    let message = servo_arm(&[("kind = \"position\"", "")]).err().unwrap();
    assert!(message.contains("kp: not a gain of a torque input"), "{message}");
}
