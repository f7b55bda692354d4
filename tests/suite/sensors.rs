//! Scene sensors written to sensors.csv, checked against closed-form pendulum results.

use crate::common::{mean_period, upward_crossings};
use ferrodyn::host::compile::compile;
use ferrodyn::host::output::OutputDir;
use ferrodyn::host::record::recorders;
use ferrodyn::host::scene::Scene;
use ferrodyn::host::simulation::drive;
use ferrodyn::kernel::samples::GRAVITY;
use std::path::{Path, PathBuf};

/// Runs the scene `text` and returns the header and rows of its sensors.csv.
fn sensor_table(name: &str, text: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let scene = Scene::parse(Path::new("inline.toml"), text).unwrap();
    let mut sim = compile(&scene).unwrap();
    let dir: PathBuf = std::env::temp_dir().join(format!("ferrodyn-sensors-{name}-{}", std::process::id()));
    let out = OutputDir::create(&dir, true).unwrap();
    let sinks = recorders(&mut sim, &out, &scene.output, name).unwrap();
    drive(&mut sim, sinks, false).unwrap();
    let csv = std::fs::read_to_string(dir.join("sensors.csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap().split(',').map(String::from).collect();
    let rows = lines
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(
        dir.join(format!("sensor_{name}.png")).exists(),
        "sensor plot written"
    );
    std::fs::remove_dir_all(&dir).ok();
    (header, rows)
}

#[test]
fn point_sensor_follows_the_pendulum_bob() {
    // Reference: the distance constraint |r| = L, its rate r·v = 0, and energy conservation
    // ½|v|² − g z = const of a point-mass pendulum (the bob's spin is decoupled).
    let text = r#"
        [simulation]
        end_time = 2.0
        step = 1e-3
        output_interval = 1e-2
        [[body]]
        id = 1
        name = "bob"
        mass = 1.0
        inertia = { Ixx = 4e-05, Iyy = 4e-05, Izz = 4e-05 }
        pos = [1.0, 0.0, 0.0]
        [[joint]]
        name = "rod"
        type = "distance"
        body_i = "ground"
        body_j = "bob"
        length = 1.0
        [[sensor]]
        name = "bob"
        body = "bob"
        [output]
        plots = true
    "#;
    let (header, rows) = sensor_table("bob", text);
    assert_eq!(
        header,
        ["time", "bob_x", "bob_y", "bob_z", "bob_vx", "bob_vy", "bob_vz"]
    );
    assert_eq!(rows.len(), 201);
    let energy = |r: &[f64]| 0.5 * (r[4] * r[4] + r[5] * r[5] + r[6] * r[6]) + GRAVITY * r[3];
    let e0 = energy(&rows[0]);
    for r in &rows {
        let length = (r[1] * r[1] + r[2] * r[2] + r[3] * r[3]).sqrt();
        let radial_rate = r[1] * r[4] + r[2] * r[5] + r[3] * r[6];
        assert!((length - 1.0).abs() < 1e-9, "|r| = {length} at t = {}", r[0]);
        assert!(radial_rate.abs() < 1e-9, "r·v = {radial_rate} at t = {}", r[0]);
        assert!(
            (energy(r) - e0).abs() < 1e-6 * GRAVITY,
            "energy drift at t = {}",
            r[0]
        );
    }
    // It swings: the bob passes below the pivot at speed √(2 g L).
    let fastest = rows.iter().map(|r| r[4].hypot(r[6])).fold(0.0, f64::max);
    assert!(
        (fastest - (2.0 * GRAVITY).sqrt()).abs() < 0.02,
        "peak speed {fastest}"
    );
}

#[test]
fn joint_angle_sensor_gives_the_compound_pendulum_period() {
    // A rod (1 kg, 1 m, r = 10 mm) hinged at its top about y, released at θ₀ = 0.1 rad.
    // Reference: T = 2π √(I_p / (m g d)) (1 + θ₀²/16 + 11θ₀⁴/3072), the compound pendulum
    // period with its amplitude series (next term O(θ₀⁶) ≈ 2e-9), I_p = m L²/12 + m r²/4 + m d²,
    // d = L/2.
    let theta0: f64 = 0.1;
    let (m, l, r, d) = (1.0, 1.0, 0.01, 0.5);
    let ip = m * l * l / 12.0 + m * r * r / 4.0 + m * d * d;
    let expected = 2.0
        * std::f64::consts::PI
        * (ip / (m * GRAVITY * d)).sqrt()
        * (1.0 + theta0.powi(2) / 16.0 + 11.0 * theta0.powi(4) / 3072.0);
    let text = format!(
        r#"
        [simulation]
        end_time = 8.0
        step = 1e-3
        output_interval = 1e-3
        [[body]]
        id = 1
        name = "rod"
        mass = {m}
        inertia = {{ Ixx = {across}, Iyy = {across}, Izz = {along} }}
        pos = [{x}, 0.0, {z}]
        orient = {{ roll = 0.0, pitch = {pitch}, yaw = 0.0 }}
        [[joint]]
        name = "hinge"
        type = "revolute"
        body_i = "ground"
        body_j = "rod"
        frame_i = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}
        frame_j = {{ origin = [0.0, 0.0, {d}], axis = [0.0, 1.0, 0.0] }}
        [[sensor]]
        name = "encoder"
        joint = "hinge"
        [output]
        states = false
        plots = true
        "#,
        across = m * l * l / 12.0 + m * r * r / 4.0,
        along = m * r * r / 2.0,
        x = d * theta0.sin(),
        z = -d * theta0.cos(),
        pitch = -theta0,
    );
    let (header, rows) = sensor_table("encoder", &text);
    assert_eq!(header, ["time", "encoder_angle", "encoder_rate"]);
    // The encoder reads the angle relative to the frames' x axes, so it swings about the value
    // it reads when hanging straight down: θ₀ away from the start, i.e. centred on angle₀ ∓ θ₀.
    let start = rows[0][1];
    let centre = rows.iter().map(|r| r[1]).fold(f64::INFINITY, f64::min) + theta0;
    assert!(
        ((start - centre).abs() - theta0).abs() < 1e-6,
        "amplitude θ₀ about the rest angle"
    );
    let samples: Vec<(f64, f64, f64)> = rows.iter().map(|r| (r[0], r[1] - centre, r[2])).collect();
    let period = mean_period(&upward_crossings(&samples));
    println!("compound pendulum from the encoder: T = {period:.9} s, expected {expected:.9} s");
    assert!(
        (period / expected - 1.0).abs() < 2e-8,
        "period {period} vs {expected}"
    );
}
