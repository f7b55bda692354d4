//! A prismatic joint's spring-damper (`translational_spring_damper`) and joint friction
//! (`friction`, `friction_velocity` on `[[joint]]`) through the scene: the carriage's damped
//! oscillation against the closed form in joint and in Cartesian coordinates, friction holding
//! a pendulum below breakaway within the creep its smoothing allows, the implicit methods'
//! analytic matrix with friction's slope against the finite difference, the exported module,
//! the URDF and MJCF mappings, and the refusals naming the joint.

use crate::common::{parse_inline as parse, tree_and_cartesian as both};
use ferrodyn_host::compile::{choose, compile, tree_parts, Choice};
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::import::{import, ImportOptions};
use ferrodyn_host::scene::{Scene, DEFAULT_FRICTION_VELOCITY};
use ferrodyn_host::spec::{ImplicitSpec, IntegratorSpec, TangentChoice};
use ferrodyn_kernel::rigid::Force;
use ferrodyn_kernel::tree::JointFriction;
use std::path::Path;

/// A 2 kg carriage on a prismatic joint along x (gravity along −z, across the slide), on a
/// spring of 50 N/m at rest 0.1 m along the slide and a damper of 1.2 N·s/m, released at rest
/// at slide 0.
const CARRIAGE: &str = r#"
[simulation]
end_time = 3.0
step = 1e-3
integrator = "rk4"

[[body]]
id = 1
name = "carriage"
mass = 2.0
inertia = { Ixx = 0.01, Iyy = 0.02, Izz = 0.03 }

[[joint]]
name = "rail"
type = "prismatic"
body_i = "ground"
body_j = "carriage"
frame_i = { origin = [0.0, 0.0, 0.0], axis = [1.0, 0.0, 0.0] }
frame_j = { origin = [0.0, 0.0, 0.0], axis = [1.0, 0.0, 0.0] }

[[force]]
name = "coil"
type = "translational_spring_damper"
joint = "rail"
stiffness = 50.0
damping = 1.2
rest_position = 0.1
"#;

#[test]
fn a_carriage_on_a_slide_spring_damper_oscillates_as_the_closed_form_in_both_formulations() {
    // m ẍ + c ẋ + k (x − x_r) = 0 from rest at 0: x = x_r (1 − e^(−ζω₀t) (cos ω_d t +
    // ζω₀/ω_d sin ω_d t)), ω₀ = √(k/m) = 5 /s, ζ = c / (2√(k m)) = 0.06.
    let (m, k, c, rest) = (2.0f64, 50.0, 1.2, 0.1);
    let (w0, zeta) = ((k / m).sqrt(), c / (2.0 * (k * m).sqrt()));
    let wd = w0 * (1.0 - zeta * zeta).sqrt();
    let closed = |t: f64| {
        let decay = (-zeta * w0 * t).exp();
        rest * (1.0 - decay * ((wd * t).cos() + zeta * w0 / wd * (wd * t).sin()))
    };
    let scene = parse(CARRIAGE);
    let (mut tree, mut cartesian) = both(&scene);
    // The spring's ½ k x_r² = 0.25 J is the potential of both (the carriage at height 0).
    for sim in [&tree, &cartesian] {
        assert!((sim.energy().unwrap().potential - 0.25).abs() < 1e-15);
    }
    let (mut tree_error, mut cartesian_error) = (0.0f64, 0.0f64);
    while tree.time() < 3.0 - 5e-4 {
        tree.step().unwrap();
        cartesian.step().unwrap();
        let exact = closed(tree.time());
        tree_error = tree_error.max((tree.body_pose(0).0.x - exact).abs());
        cartesian_error = cartesian_error.max((cartesian.body_pose(0).0.x - exact).abs());
    }
    println!("tree {tree_error:.1e} m, Cartesian {cartesian_error:.1e} m from the closed form");
    assert!(tree_error < 1e-9, "tree: {tree_error:e} m");
    assert!(cartesian_error < 1e-9, "Cartesian: {cartesian_error:e} m");
}

/// A 1.3 kg rod on a hinge about y at the origin, hanging along −z (CG 0.4 m down), turned by
/// `angle` and at rest, with friction 0.3 N·m smoothed over 1e-3 rad/s.
fn pendulum(angle: f64, gravity: f64) -> String {
    let (s, c) = angle.sin_cos();
    format!(
        r#"
[simulation]
end_time = 1.0
step = 1e-4
integrator = "rk4"
gravity = [0.0, 0.0, {}]

[[body]]
id = 1
name = "rod"
mass = 1.3
inertia = {{ Ixx = 0.02, Iyy = 0.02, Izz = 0.02 }}
pos = [{}, 0.0, {}]
orient = {{ pitch = {angle} }}

[[joint]]
name = "hinge"
type = "revolute"
body_i = "ground"
body_j = "rod"
frame_i = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 1.0, 0.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.4], axis = [0.0, 1.0, 0.0] }}
friction = 0.3
friction_velocity = 1e-3
"#,
        -gravity,
        -0.4 * s,
        -0.4 * c
    )
}

#[test]
fn friction_below_breakaway_holds_a_pendulum_within_the_creep_of_its_smoothing() {
    // Gravity's torque m g l sin θ₀ is half the friction's 0.3 N·m: Coulomb friction holds the
    // rod; −F_c tanh(θ̇ / v_s) lets it creep at v_s atanh(½) = 0.55 mrad/s, so in 1 s it turns
    // back by at most that (and by more than 90 % of it: the creep is the smoothing's price).
    let angle = (0.5 * 0.3 / (1.3 * 9.81 * 0.4f64)).asin();
    let scene = parse(&pendulum(angle, 9.81));
    let Ok(Choice::Tree(links)) = choose(&scene) else {
        panic!("a tree")
    };
    let parts = tree_parts(&scene, &links).unwrap();
    assert_eq!(parts.model.links()[0].friction, JointFriction::new(0.3, 1e-3));
    let mut sim = compile(&scene).unwrap();
    let start = sim.state()[0];
    sim.advance_to(1.0).unwrap();
    let moved = (sim.state()[0] - start).abs();
    let bound = 1.0 * 1e-3 * 0.5f64.atanh();
    println!("moved {moved:.3e} rad in 1 s (bound {bound:.3e})");
    assert!(
        moved <= bound && moved > 0.9 * bound,
        "moved {moved:e} rad, bound {bound:e}"
    );
}

#[test]
fn the_implicit_matrix_takes_the_friction_slope_through_rest() {
    // At rest without gravity the joint's only velocity term is friction's slope F_c / v_s =
    // 300 N·m·s/rad (on a pivot inertia of 0.228 kg·m²): the analytic matrix must hold it as
    // the finite difference sees it. BDF2 at 1 ms, its first matrix at v = 0.
    let mut scene = parse(&pendulum(0.0, 0.0));
    let mut spec = ImplicitSpec::from_name("bdf2").unwrap();
    spec.tangent = TangentChoice::Compared;
    scene.simulation.integrator = IntegratorSpec::Dae(spec);
    scene.simulation.step = 1e-3;
    let mut sim = compile(&scene).unwrap();
    sim.step().unwrap();
    let report = sim.solver_report().unwrap();
    let first: f64 = report
        .split_once("finite difference: ")
        .and_then(|(_, rest)| rest.split(' ').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("{report}"));
    println!("{report}");
    assert!(first < 1e-6, "analytic vs finite difference {first:e}");
}

#[test]
fn joint_friction_and_a_slide_spring_export_with_their_links_only() {
    let text = CARRIAGE.replace(
        "frame_j = { origin = [0.0, 0.0, 0.0], axis = [1.0, 0.0, 0.0] }",
        "frame_j = { origin = [0.0, 0.0, 0.0], axis = [1.0, 0.0, 0.0] }\nfriction = 0.5\nfriction_velocity = 0.02",
    );
    let code = rust_module(&parse(&text), Precision::F64).unwrap();
    let link = ".with_damping(s(1.2)).with_spring(s(50.0), s(0.1)).with_friction(s(0.5), s(0.02)))?;";
    assert!(code.contains(link), "missing `{link}` in\n{code}");
    let without = rust_module(&parse(CARRIAGE), Precision::F64).unwrap();
    assert!(!without.contains("with_friction"), "{without}");
}

/// The error of compiling (or else parsing) `text`.
fn error_of(text: &str) -> String {
    match Scene::parse(Path::new("inline.toml"), text) {
        Err(e) => e.to_string(),
        Ok(scene) => compile(&scene).err().expect("refused").to_string(),
    }
}

#[test]
fn friction_where_it_cannot_act_is_refused_naming_the_joint() {
    let hinge = pendulum(0.3, 9.81);
    for (text, expected) in [
        (
            hinge.replace("integrator = \"rk4\"", "integrator = \"rk4\"\nformulation = \"cartesian\""),
            "joint \"hinge\": joint: joint friction forces act on joint coordinates, and this scene is in Cartesian coordinates (the scene asks for them)",
        ),
        (
            hinge.replace("friction = 0.3", "friction = -0.3"),
            "joint \"hinge\": friction",
        ),
        (
            hinge.replace("friction = 0.3\n", ""),
            "joint \"hinge\": friction_velocity: applies only with friction = F_c",
        ),
        (
            hinge.replace("friction_velocity = 1e-3", "friction_velocity = 0.0"),
            "joint \"hinge\": friction_velocity",
        ),
        (
            hinge.replace("type = \"revolute\"", "type = \"spherical\""),
            "joint \"hinge\": friction: a spherical joint has no friction (revolute and prismatic joints do)",
        ),
        (
            CARRIAGE.replace("type = \"prismatic\"", "type = \"revolute\""),
            "force \"coil\": joint: \"rail\" is a revolute joint; a translational spring-damper needs a prismatic or cylindrical one",
        ),
    ] {
        let error = error_of(&text);
        assert!(error.contains(expected), "expected `{expected}` in: {error}");
    }
}

#[test]
fn friction_on_a_joint_that_closes_a_loop_is_refused_naming_it() {
    // Every joint of the four-bar has friction: the one the tree cuts to close the loop has
    // no coordinate for it.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/four_bar.toml");
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.replace("type = \"revolute\"", "type = \"revolute\"\nfriction = 0.1");
    let error = error_of(&text);
    assert!(
        error.contains(
            "its friction acts on a joint coordinate of the tree, and this joint closes a loop on it"
        ),
        "{error}"
    );
}

fn model_file(name: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrodyn-friction-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn urdf_prismatic_damping_and_friction_become_the_joint_spring_damper_and_friction() {
    let urdf = r#"<robot name="slider">
  <link name="base"/>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="finger"><inertial><mass value="0.2"/><inertia ixx="1e-3" iyy="1e-3" izz="1e-3" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="10" velocity="1"/><dynamics damping="0.3" friction="0.2"/></joint>
  <joint name="slide" type="prismatic"><parent link="arm"/><child link="finger"/><origin xyz="0.3 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.04" effort="10" velocity="1"/><dynamics damping="2.0" friction="0.5"/></joint>
</robot>"#;
    let imported = import(&model_file("slider.urdf", urdf), &ImportOptions::default()).unwrap();
    let scene = &imported.scene;
    let joint = |name: &str| scene.joints.iter().position(|j| j.name == name).unwrap();
    let (shoulder, slide) = (joint("shoulder"), joint("slide"));
    let smoothing = DEFAULT_FRICTION_VELOCITY;
    assert_eq!(scene.friction[shoulder], JointFriction::new(0.2, smoothing));
    assert_eq!(scene.friction[slide], JointFriction::new(0.5, smoothing));
    let dampers: Vec<_> = (scene.forces.iter())
        .filter(|f| !matches!(f.value, Force::JointLimit { .. }))
        .map(|f| f.value)
        .collect();
    assert_eq!(
        dampers,
        [
            Force::RotationalSpringDamper {
                joint: shoulder,
                stiffness: 0.0,
                damping: 0.3,
                rest_angle: 0.0
            },
            Force::TranslationalSpringDamper {
                joint: slide,
                stiffness: 0.0,
                damping: 2.0,
                rest_position: 0.0
            }
        ]
    );
    let notes = imported.report.lines().join("\n");
    assert!(!notes.contains("not modelled"), "{notes}");
    // And they reach the tree's links.
    let Ok(Choice::Tree(links)) = choose(scene) else {
        panic!("a tree")
    };
    let parts = tree_parts(scene, &links).unwrap();
    let link =
        |joint: usize| &parts.model.links()[links.iter().position(|l| l.joint == Some(joint)).unwrap()];
    assert_eq!((link(slide).damping, link(slide).friction.force), (2.0, 0.5));
    assert_eq!(
        (link(shoulder).damping, link(shoulder).friction.force),
        (0.3, 0.2)
    );
}

#[test]
fn mjcf_slide_springs_dampers_and_frictionloss_become_the_scene_keys() {
    // MuJoCo's slide spring pulls towards springref; the scene's slide is 0 at ref (qpos0):
    // rest springref − ref = 0.05 − 0.02 m. frictionloss is the joint's friction on hinges and
    // slides; on a ball joint it is noted as not modelled.
    let mjcf = r#"<mujoco model="slides">
  <default><joint frictionloss="0.4"/></default>
  <worldbody>
    <body name="cart" pos="0 0 1">
      <joint name="rail" type="slide" axis="1 0 0" damping="1.5" stiffness="30" springref="0.05" ref="0.02"/>
      <geom type="box" size="0.1 0.1 0.1" mass="2"/>
      <body name="pole" pos="0 0 0.2">
        <joint name="pivot" type="hinge" axis="0 1 0" frictionloss="0.25"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.02" mass="0.5"/>
        <body name="bob" pos="0 0 0.5">
          <joint name="ball" type="ball"/>
          <geom type="sphere" size="0.05" mass="0.1"/>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>"#;
    let imported = import(&model_file("slides.xml", mjcf), &ImportOptions::default()).unwrap();
    let scene = &imported.scene;
    let joint = |name: &str| scene.joints.iter().position(|j| j.name == name).unwrap();
    let (rail, pivot, ball) = (joint("rail"), joint("pivot"), joint("ball"));
    let smoothing = DEFAULT_FRICTION_VELOCITY;
    assert_eq!(scene.friction[rail], JointFriction::new(0.4, smoothing));
    assert_eq!(scene.friction[pivot], JointFriction::new(0.25, smoothing));
    assert_eq!(scene.friction[ball], JointFriction::default());
    let forces: Vec<_> = scene.forces.iter().map(|f| f.value).collect();
    assert_eq!(
        forces,
        [
            Force::TranslationalSpringDamper {
                joint: rail,
                stiffness: 0.0,
                damping: 1.5,
                rest_position: 0.0
            },
            Force::TranslationalSpringDamper {
                joint: rail,
                stiffness: 30.0,
                damping: 0.0,
                rest_position: 0.05 - 0.02
            }
        ]
    );
    let notes = imported.report.lines().join("\n");
    assert!(
        notes.contains("friction (frictionloss) of ball joints: ball"),
        "{notes}"
    );
    assert!(!notes.contains("slide"), "{notes}");
}
