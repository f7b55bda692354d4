//! Several flexible bodies with their own materials among rigid bodies. References: two
//! hub + beam systems in one scene move exactly as each does alone (they do not interact), and
//! together store the work of both torques (kinetic + strain = Σ τθ); a free flexible body in a
//! coupled scene starts with its own velocity (kinetic energy ½ m v²).

use ferrodyn_host::compile::compile;
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use std::path::PathBuf;

const TORQUE: [f64; 2] = [40.0, 25.0];

fn scene(text: &str) -> Result<Scene, String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/several_test.toml");
    Scene::parse(&path, text).map_err(|e| e.to_string())
}

fn simulation(integrator: &str) -> String {
    format!("[simulation]\nend_time = 0.05\nstep = 1e-3\nintegrator = \"{integrator}\"\ngravity = [0.0, 0.0, 0.0]\n")
}

/// Hub `k` (at y = 2k m) on a z axle under torque TORQUE[k], carrying a 0.5 m beam of
/// material `material` clamped at its root face.
fn hub_with_beam(k: usize, material: &str) -> String {
    let y = 2.0 * k as f64;
    let torque = TORQUE[k];
    format!(
        r#"
[[body]]
id = {id}
name = "hub{k}"
mass = 5.0
inertia = {{ Ixx = 0.5, Iyy = 0.5, Izz = 1.0 }}
pos = [-0.1, {y}, 0.0]

[[joint]]
name = "axle{k}"
type = "revolute"
body_i = "ground"
body_j = "hub{k}"
frame_i = {{ origin = [-0.1, {y}, 0.0], axis = [0.0, 0.0, 1.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}

[[force]]
name = "motor{k}"
type = "torque"
body = "hub{k}"
direction = [0.0, 0.0, 1.0]
function = {{ constant = {torque} }}

[[flexible]]
name = "beam{k}"
box = {{ origin = [0.0, {y0}, -0.025], size = [0.5, 0.05, 0.05], divisions = [4, 1, 1] }}
material = {material}
attach = {{ group = "xmin", body = "hub{k}" }}
"#,
        id = k + 1,
        y0 = y - 0.025,
    )
}

const STEEL_LIKE: &str = r#"{ law = "svk", E = 2e8, nu = 0.3, rho = 7800.0 }"#;
const RUBBER_LIKE: &str = r#"{ law = "neo_hookean", E = 5e6, nu = 0.45, rho = 1100.0 }"#;

fn hub_angle(sim: &Simulation, body: usize) -> f64 {
    let [w, _, _, z] = sim.body_pose(body).1.to_array();
    2.0 * z.atan2(w)
}

fn run(sim: &mut Simulation) {
    while sim.time() < 0.05 - 1e-9 {
        sim.step().unwrap_or_else(|e| panic!("{e:#}"));
    }
}

#[test]
fn two_hubs_with_beams_of_their_own_materials_move_as_each_alone() {
    for integrator in ["hht", "generalized-alpha"] {
        let both = format!(
            "{}{}{}",
            simulation(integrator),
            hub_with_beam(0, STEEL_LIKE),
            hub_with_beam(1, RUBBER_LIKE)
        );
        let mut sim = compile(&scene(&both).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        run(&mut sim);
        let angles = [hub_angle(&sim, 0), hub_angle(&sim, 1)];
        let e = sim.energy().unwrap();
        let work: f64 = TORQUE.iter().zip(angles).map(|(t, a)| t * a).sum();
        let stored = e.kinetic + e.strain;
        println!("{integrator}: θ = {angles:?} rad, stored {stored} J, work {work} J");
        assert!(
            (stored - work).abs() <= 1e-4 * work,
            "{integrator}: stored {stored}, work {work}"
        );
        for (k, material) in [STEEL_LIKE, RUBBER_LIKE].into_iter().enumerate() {
            // The same system alone (its hub renumbered 0, beam at y = 0 shifted: same physics).
            let alone = format!("{}{}", simulation(integrator), hub_with_beam(k, material));
            let mut single = compile(&scene(&alone).unwrap()).unwrap();
            run(&mut single);
            let theta = hub_angle(&single, 0);
            assert!(angles[k] > 0.0);
            assert!(
                (angles[k] - theta).abs() <= 1e-9 * theta,
                "{integrator}: hub{k} turned {} rad with the other system, {theta} rad alone",
                angles[k]
            );
        }
        // The denser, stiffer beam on the larger torque: the two hubs did differ.
        assert!((angles[0] - angles[1]).abs() > 1e-3 * angles[0]);
    }
}

#[test]
fn an_explicit_coupled_scene_refuses_two_carriers_and_names_them() {
    let text = format!(
        "{}{}{}",
        simulation("rk4"),
        hub_with_beam(0, STEEL_LIKE),
        hub_with_beam(1, RUBBER_LIKE)
    );
    let error = compile(&scene(&text).unwrap())
        .map(|_| ())
        .expect_err("two carriers")
        .to_string();
    assert!(
        error.contains("\"hub0\"") && error.contains("\"hub1\"") && error.contains("hht"),
        "{error}"
    );
}

#[test]
fn a_free_flexible_body_in_a_coupled_scene_starts_with_its_velocity() {
    let block = r#"
[[flexible]]
name = "block"
box = { origin = [2.0, 0.0, 0.0], size = [0.2, 0.1, 0.1], divisions = [2, 1, 1] }
material = { law = "svk", E = 1e5, nu = 0.3, rho = 1000.0 }
velocity = [3.0, 0.0, -4.0]
"#;
    for integrator in ["rk4", "hht"] {
        // The hub is at rest: all kinetic energy is the block's, ½ m v² with m = 2 kg, |v| = 5 m/s.
        let text = format!(
            "{}{}{block}",
            simulation(integrator),
            hub_with_beam(0, STEEL_LIKE).replace("constant = 40", "constant = 0")
        );
        let sim = compile(&scene(&text).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        let kinetic = sim.energy().unwrap().kinetic;
        assert!(
            (kinetic - 25.0).abs() < 1e-9,
            "{integrator}: kinetic {kinetic} J, ½ m v² = 25 J"
        );
    }
}
