//! Flexible node sensors: the displacement of the node nearest to a reference point, global or
//! in a rigid body's frame. References: a free body translating at constant velocity moves by
//! v t; a stiff block riding a hub turned by the smooth spin-up angle θ(t) moves by
//! (R(θ) − I) X globally and stays put in the hub's frame.

use ferrodyn_host::compile::compile;
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use std::path::PathBuf;

fn scene(text: &str) -> Result<Scene, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/sensor_test.toml");
    Scene::parse(&path, text).map_err(|e| e.to_string())
}

/// The sensors' channels at the current state.
fn channels(sim: &Simulation) -> Vec<f64> {
    let mut row = Vec::new();
    for sensor in &sim.labels.sensors {
        sensor.sample(sim.rigid(), sim.flexible(), &mut row);
    }
    row
}

fn run(sim: &mut Simulation, end: f64) {
    while sim.time() < end - 1e-9 {
        sim.step().unwrap_or_else(|e| panic!("{e:#}"));
    }
}

/// A 0.2 × 0.1 × 0.1 m block from x = 0.5 m, of Young's modulus `e`.
fn block(e: f64) -> String {
    format!(
        r#"
[[flexible]]
name = "block"
box = {{ origin = [0.5, -0.05, -0.05], size = [0.2, 0.1, 0.1], divisions = [2, 1, 1] }}
material = {{ law = "svk", E = {e:e}, nu = 0.3, rho = 1000.0 }}
"#
    )
}

#[test]
fn a_free_body_node_moves_by_its_velocity_times_time() {
    let text = format!(
        r#"
[simulation]
end_time = 0.05
step = 1e-4
integrator = "rk4"
gravity = [0.0, 0.0, 0.0]
{}velocity = [1.0, -2.0, 0.5]

[[sensor]]
name = "corner"
flexible = "block"
point = [0.71, 0.06, 0.04]
"#,
        block(1e5)
    );
    let mut sim = compile(&scene(&text).unwrap()).unwrap();
    assert_eq!(
        sim.labels.sensors[0].columns(),
        ["corner_ux", "corner_uy", "corner_uz"]
    );
    assert_eq!(channels(&sim), [0.0; 3]);
    run(&mut sim, 0.05);
    let t = sim.time();
    let u = channels(&sim);
    for (got, v) in u.iter().zip([1.0, -2.0, 0.5]) {
        assert!((got - v * t).abs() < 1e-12, "u = {u:?} at t = {t}");
    }
}

#[test]
fn a_node_riding_a_turning_hub_moves_with_it_and_stays_put_in_its_frame() {
    let hub = r#"
[simulation]
end_time = 0.5
step = 1e-3
integrator = "hht"
gravity = [0.0, 0.0, 0.0]

[[body]]
id = 1
name = "hub"
mass = 10.0
inertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }

[[joint]]
name = "axle"
type = "revolute"
body_i = "ground"
body_j = "hub"
frame_i = { origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }
frame_j = { origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }

[[drive]]
name = "spin"
body_i = "ground"
body_j = "hub"
frame_i = { origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }
frame_j = { origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }
coordinate = "rotation"
function = { smooth_ramp = { duration = 1.0, slope = 2.0 } }
"#;
    let sensors = r#"attach = { group = "xmin", body = "hub" }

[[sensor]]
name = "global"
flexible = "block"
point = [0.7, 0.05, 0.05]

[[sensor]]
name = "riding"
flexible = "block"
point = [0.7, 0.05, 0.05]
frame = "hub"
"#;
    let mut sim = compile(&scene(&format!("{hub}{}{sensors}", block(1e9))).unwrap()).unwrap();
    run(&mut sim, 0.5);
    // θ(t) of smooth_ramp (Ts = 1, Ωs = 2): (Ωs/Ts)[t²/2 + (Ts/2π)²(cos(2πt/Ts) − 1)].
    let t = sim.time();
    let tau = std::f64::consts::TAU;
    let theta = 2.0 * (t * t / 2.0 + (1.0 / tau).powi(2) * ((tau * t).cos() - 1.0));
    let (x, y) = (0.7, 0.05);
    let expected = [
        x * theta.cos() - y * theta.sin() - x,
        x * theta.sin() + y * theta.cos() - y,
        0.0,
    ];
    let u = channels(&sim);
    let (global, riding) = u.split_at(3);
    // The block (E = 1e9) deforms by micrometres under the spin-up's inertial loads.
    for (g, e) in global.iter().zip(expected) {
        assert!(
            (g - e).abs() < 1e-5,
            "global u = {global:?}, rigid rotation {expected:?}"
        );
    }
    assert!(expected[1] > 0.05, "the hub turned by {theta} rad");
    assert!(
        riding.iter().all(|r| r.abs() < 1e-5),
        "in the hub frame u = {riding:?}"
    );
}

#[test]
fn bad_flexible_sensors_are_errors_naming_the_sensor() {
    let base = format!(
        "[simulation]\nend_time = 0.01\nstep = 1e-3\nintegrator = \"rk4\"\n{}",
        block(1e5)
    );
    let cases = [
        ("[[sensor]]\nname = \"s\"\nflexible = \"block\"\n", "point"),
        (
            "[[sensor]]\nname = \"s\"\nflexible = \"beam\"\npoint = [0.0, 0.0, 0.0]\n",
            "beam",
        ),
        (
            "[[sensor]]\nname = \"s\"\nflexible = \"block\"\npoint = [0.0, 0.0, 0.0]\nframe = \"hub\"\n",
            "hub",
        ),
        (
            "[[sensor]]\nname = \"s\"\njoint = \"j\"\nframe = \"hub\"\n",
            "frame",
        ),
    ];
    for (sensor, mention) in cases {
        let error = scene(&format!("{base}{sensor}")).expect_err(sensor);
        assert!(error.contains("sensor \"s\""), "{error}");
        assert!(error.contains(mention), "{sensor}: {error}");
    }
}
