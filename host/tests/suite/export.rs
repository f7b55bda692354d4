//! Scene inputs (`[[input]]`) and the Rust export of scenes (`ferrodyn export rust`): the
//! actuator torque against Newton's law for the arm, the generated module's contents, and one
//! clear error for every scene or input it cannot take. The exported model's bits are checked
//! against `ferrodyn run` on the microcontroller and on x86_64 by `.ci/firmware`
//! (firmware-examples/scene-plant).

use std::path::{Path, PathBuf};

use ferrodyn_host::compile::compile;
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)
}

fn load(name: &str) -> Scene {
    Scene::load(&scene_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Scene file `name` with `from` replaced by `to` in its text, parsed.
fn edited(name: &str, from: &str, to: &str) -> Result<Scene, String> {
    let path = scene_path(name);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{from} is not in {name}");
    Scene::parse(&path, &text.replace(from, to)).map_err(|e| e.to_string())
}

#[test]
fn the_arm_input_torque_accelerates_it_as_newton_says() {
    // Reference: θ̈(0) = (m g L/2 + τ) / (I_cg + m (L/2)²) for the rod released horizontally
    // (gravity's moment +m g L/2 about +y), τ = value × scale = −1e6 µN·m × 1e-6 = −1 N·m; after
    // one RK4 step θ(h) = θ̈(0) h²/2 up to O(h⁴) (θ̈ varies as cos θ).
    let scene = load("hil_arm.toml");
    let (m, g, l, i_cg, tau, h) = (1.0, 9.81, 0.5, 0.020858333333333333, -1.0, 1e-3);
    let alpha = (m * g * l / 2.0 + tau) / (i_cg + m * (l / 2.0) * (l / 2.0));
    let mut sim = compile(&scene).unwrap();
    sim.step().unwrap();
    let theta = sim.state()[0];
    assert!(
        (theta / (alpha * h * h / 2.0) - 1.0).abs() < 1e-6,
        "θ(h) = {theta:e}, expected {:e}",
        alpha * h * h / 2.0
    );
    // Without the input the arm falls faster: the input acts, with its sign.
    let free = edited("hil_arm.toml", "value = -1.0e6", "value = 0.0").unwrap();
    let mut sim = compile(&free).unwrap();
    sim.step().unwrap();
    let alpha_free = (m * g * l / 2.0) / (i_cg + m * (l / 2.0) * (l / 2.0));
    assert!((sim.state()[0] / (alpha_free * h * h / 2.0) - 1.0).abs() < 1e-6);
}

#[test]
fn bad_inputs_are_one_error_naming_the_input_or_joint() {
    let cases = [
        (
            edited(
                "arm.toml",
                "[[force]]",
                "[[input]]\nname = \"drive\"\njoint = \"shoulder\"\n\n[[force]]",
            ),
            "joint \"shoulder\" is spherical; an input drives a revolute (torque) or prismatic (force) joint",
        ),
        (
            edited(
                "hil_arm.toml",
                "[[sensor]]\nname = \"encoder\"",
                "[[input]]\nname = \"second\"\njoint = \"motor\"\n\n[[sensor]]\nname = \"encoder\"",
            ),
            "input \"second\": joint: joint \"motor\" already has input \"torque\"",
        ),
        (
            edited("hil_arm.toml", "scale = 1e-6", "scale = 0.0"),
            "input \"torque\": scale: must not be 0",
        ),
        (
            edited(
                "hil_arm.toml",
                "joint = \"motor\"\nscale",
                "joint = \"motr\"\nscale",
            ),
            "joint \"motr\" does not exist",
        ),
    ];
    for (result, expected) in cases {
        let Err(message) = result else {
            panic!("no error; expected {expected}")
        };
        assert!(message.contains(expected), "{message}\n  expected: {expected}");
    }
    // Inputs act on joint coordinates: a scene kept Cartesian says why, naming the input.
    let cartesian = edited(
        "hil_arm.toml",
        "integrator = \"rk4\"",
        "integrator = \"rk4\"\nformulation = \"cartesian\"",
    )
    .unwrap();
    let message = compile(&cartesian).err().unwrap().to_string();
    assert!(
        message.contains("input \"torque\"") && message.contains("inputs act on joint coordinates"),
        "{message}"
    );
}

#[test]
fn the_exported_module_has_the_model_state_and_ports_of_the_scene() {
    let scene = load("hil_arm.toml");
    let code = rust_module(&scene, Precision::F32).unwrap();
    for expected in [
        "pub type Scalar = f32;",
        "pub type Capacities = Fixed<1>;",
        "pub const STEPS: u64 = 2000;",
        "pub type Integrator = ferrodyn_kernel::integrators::Rk4;",
        "Link::revolute(None, v(0.0, 0.0, 0.0), v(0.0, 1.0, 0.0)).with_mass(s(1.0), v(0.25, 0.0, 0.0)",
        "data.set_input(0, s(-1000000.0) * s(1e-6))?;",
        "Port { name: \"torque\", unit: \"N·m\", scale: 1e-6 },",
        "Port { name: \"encoder_angle\", unit: \"rad\", scale: 1.0 },",
        "Port { name: \"tip_vz\", unit: \"m/s\", scale: 1.0 },",
        "data.set_input(0, s(1e-6) * ports[0])?;",
        "outputs[0] = wrap(s(0.0) + q[0]);",
        // Built in place (scene-plant: in the firmware's static room), or by value.
        "pub fn new_builder() -> Builder<Scalar, Capacities> {",
        "pub fn add_to(b: &mut Builder<Scalar, Capacities>) -> Result<(), BuildError> {",
        "pub fn set_initial(model: &Model<Scalar, Capacities>, data: &mut Data<Scalar, Capacities>)",
        "let mut data = Data::new(model);\n    set_initial(model, &mut data)?;",
    ] {
        assert!(code.contains(expected), "missing `{expected}` in\n{code}");
    }
    // Deterministic: the same scene gives the same text.
    assert_eq!(code, rust_module(&scene, Precision::F32).unwrap());
    assert!(rust_module(&scene, Precision::F64)
        .unwrap()
        .contains("pub type Scalar = f64;"));
}

#[test]
fn the_arm_exports_with_its_ball_shoulder_at_the_rig_integrator() {
    // arm.toml steps with dopri45 on the host; a firmware steps at a fixed period, so the
    // export takes RK4 (as `ferrodyn export rust --integrator rk4` does).
    let mut scene = load("arm.toml");
    scene.simulation.integrator =
        ferrodyn_host::spec::IntegratorSpec::Explicit(ferrodyn_kernel::integrators::Method::Rk4);
    let code = rust_module(&scene, Precision::F64).unwrap();
    for expected in [
        // Quaternion (4) + elbow (1) positions, 3 + 1 rates: ⌈9 / 2⌉ = 5 slots.
        "pub type Capacities = Fixed<5>;",
        "// 2 links, 4 degrees of freedom in joint coordinates, rk4 at 0.001 s, f64.",
        "b.add_link(Link::spherical(None, v(0.0, 0.0, 0.0)).with_mass(s(2.0), v(0.0, 0.0, -0.15)",
        "b.add_link(Link::revolute(Some(0), v(0.0, 0.0, -0.3), v(0.0, 1.0, 0.0)).with_mass(s(1.2)",
        ".with_damping(s(0.05)))?;",
        "data.set_joint_velocity(model, 0, &[s(0.0), s(0.0), s(0.0)])?;",
    ] {
        assert!(code.contains(expected), "missing `{expected}` in\n{code}");
    }
}

#[test]
fn a_flexible_scene_exports_its_mesh_material_fixities_loads_and_node_sensors() {
    let code = rust_module(&load("beam6.toml"), Precision::F64).unwrap();
    for expected in [
        // 8 nodes, 6 tetrahedra, the profile `ferrodyn check` states (firmware's plant::Beam6).
        "pub type Capacities = Fixed<0, 0, 0, 0, 0, 8, 6, 1533>;",
        "pub const STEPS: u64 = 5000;",
        // λ = Eν/((1+ν)(1−2ν)), μ = E/(2(1+ν)) for E = 1 MPa, ν = 0.3.
        "material(MaterialLaw::StVenantKirchhoff, [576923.0769230769, 384615.3846153846, 1000.0, 0.0, 0.0])",
        "b.add_node(v(0.2, 0.1, 0.1))?;",
        "b.fix(0, Fixity::ClampedFace { normal_axis: 0 })?;",
        // 0.1 N over the 4 tip nodes.
        "b.add_nodal_force(4, v(0.0, 0.0, -0.025))?;",
        "Port { name: \"tip_uz\", unit: \"m\", scale: 1.0 },",
    ] {
        assert!(code.contains(expected), "missing `{expected}` in\n{code}");
    }
    assert_eq!(code.matches("b.add_element(").count(), 6);
}

#[test]
fn driven_and_coupled_trees_export_their_coordinate_rows() {
    // The driven crank: one revolute link (nv = 1) held by its drive's row q = m·f(t) + c, f the
    // scene's 0.5 sin(3t); the belt arm: two links (nv = 2), the elbow's row q_1 = −1·q_0 + 0
    // (both bodies are their joints' body j, so the scene's relation carries over unchanged).
    // One row each: the dense workspace nv(nv+1)/2 + 2·m·nv + m(m+1)/2 + m + nv with m = 1.
    let workspace = |nv: usize, m: usize| nv * (nv + 1) / 2 + 2 * m * nv + m * (m + 1) / 2 + m + nv;
    for precision in [Precision::F32, Precision::F64] {
        let crank = rust_module(&load("driven_crank.toml"), precision).unwrap();
        for expected in [
            format!("pub type Capacities = Fixed<1, 0, 0, 1, {}>;", workspace(1, 1)),
            "    b.drive(0, TimeFunction::Sine { offset: s(0.0), amplitude: s(0.5), omega: s(3.0), phase: s(0.0) }, s(1.0), s(".into(),
            "use ferrodyn_kernel::TimeFunction;".into(),
        ] {
            assert!(crank.contains(&expected), "missing `{expected}` in\n{crank}");
        }
        let belt = rust_module(&load("belt_arm.toml"), precision).unwrap();
        for expected in [
            format!("pub type Capacities = Fixed<2, 0, 0, 1, {}>;", workspace(2, 1)),
            "    b.couple(1, 0, s(-1.0), s(0.0))?;".into(),
        ] {
            assert!(belt.contains(&expected), "missing `{expected}` in\n{belt}");
        }
        assert!(!belt.contains("TimeFunction") && !belt.contains("b.drive("));
    }
}

#[test]
fn scenes_that_cannot_be_exported_say_why() {
    let cases = [
        (
            "spinning_beam.toml",
            "scenes of rigid and flexible bodies together do not export to Rust yet (rigid body \"hub\")",
        ),
        (
            "tet_collision.toml",
            "flexible body \"lower\" has contact, which does not export to Rust yet",
        ),
    ];
    for (file, expected) in cases {
        // At a firmware integrator, so that the refusal is about the model.
        let mut scene = load(file);
        scene.simulation.integrator =
            ferrodyn_host::spec::IntegratorSpec::Explicit(ferrodyn_kernel::integrators::Method::Rk4);
        let message = rust_module(&scene, Precision::F32).err().unwrap().to_string();
        assert!(message.contains(expected), "{file}: {message}");
    }
    // A shape the kernel's ground contact does not have: named, with the plane it meets.
    let cylinder = edited(
        "sphere_drop.toml",
        "type = \"sphere\"\nradius = 0.05",
        "type = \"cylinder\"\nradius = 0.05\nhalf_height = 0.02",
    )
    .unwrap();
    let message = rust_module(&cylinder, Precision::F32).err().unwrap().to_string();
    assert!(
        message.contains("plane 'floor' (on the ground) and cylinder 'ball' (on a link) may touch; the kernel's contact is a sphere, a box or a capsule on a link against a plane on the ground only"),
        "{message}"
    );
    let adaptive = edited(
        "skew_tree.toml",
        "integrator = \"rk4\"",
        "integrator = \"dopri45\"",
    )
    .unwrap();
    let message = rust_module(&adaptive, Precision::F64).err().unwrap().to_string();
    assert!(
        message.contains("integrator dopri45: a firmware steps at a fixed period"),
        "{message}"
    );
}

#[test]
fn a_sensor_scale_gives_port_units_in_the_export_and_is_validated() {
    // An encoder in counts of a 4096-count revolution: port value = angle / (2π/4096).
    let counts = "[[sensor]]\nname = \"encoder\"\njoint = \"motor\"\nscale = 0.0015339807878856412";
    let scene = edited(
        "hil_arm.toml",
        "[[sensor]]\nname = \"encoder\"\njoint = \"motor\"",
        counts,
    )
    .unwrap();
    let code = rust_module(&scene, Precision::F32).unwrap();
    for expected in [
        "Port { name: \"encoder_angle\", unit: \"rad\", scale: 0.0015339807878856412 },",
        "Port { name: \"encoder_rate\", unit: \"rad/s\", scale: 0.0015339807878856412 },",
        "outputs[0] = (wrap(s(0.0) + q[0])) / s(0.0015339807878856412);",
        "outputs[1] = (rate[0]) / s(0.0015339807878856412);",
        // The unscaled tip is written as before.
        "Port { name: \"tip_x\", unit: \"m\", scale: 1.0 },",
    ] {
        assert!(code.contains(expected), "missing `{expected}` in\n{code}");
    }
    let bad = |value: &str| {
        let text = format!("[[sensor]]\nname = \"encoder\"\njoint = \"motor\"\nscale = {value}");
        edited(
            "hil_arm.toml",
            "[[sensor]]\nname = \"encoder\"\njoint = \"motor\"",
            &text,
        )
        .err()
        .unwrap_or_else(|| panic!("scale = {value} accepted"))
    };
    let message = bad("0.0");
    assert!(
        message.contains("sensor \"encoder\": scale: must not be 0"),
        "{message}"
    );
    let message = bad("nan");
    assert!(message.contains("sensor \"encoder\": scale:"), "{message}");
}
