//! Joint or Cartesian coordinates for a scene's rigid part (`[simulation] formulation`): the
//! compiler's choice and its reasons, the tree against the kernel's own tree sample (bits) and
//! against the Cartesian model of the same scene (an independent formulation: constraints,
//! 6 coordinates per body).

use crate::common::body_difference;
use std::path::{Path, PathBuf};

use ferrodyn_host::compile::{choose, compile, Choice};
use ferrodyn_host::samples::{chain_scene, chain_simulation};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use ferrodyn_host::spec::Formulation;
use ferrodyn_host::storage::Growable;
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::samples::{revolute_chain_tree, ChainSpec};
use ferrodyn_kernel::{step, Dynamics};

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)
}

fn load(name: &str) -> Scene {
    Scene::load(&scene_path(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The scene `name` with `formulation` set.
fn with_formulation(name: &str, formulation: Formulation) -> Scene {
    let mut scene = load(name);
    scene.simulation.formulation = formulation;
    scene
}

/// `text` added to the end of scene file `name`, parsed.
fn extended(name: &str, text: &str) -> Result<Scene, String> {
    let path = scene_path(name);
    let source = std::fs::read_to_string(&path).unwrap() + text;
    Scene::parse(&path, &source).map_err(|e| e.to_string())
}

/// Why `scene` stays Cartesian under `auto`.
/// driven_crank.toml with its drive about x, which no tree joint turns about.
fn skew_drive() -> Scene {
    let path = scene_path("driven_crank.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let (joints, drive) = text.split_at(text.find("[[drive]]").unwrap());
    let drive = drive.replace("axis = [0.0, 0.0, 1.0]", "axis = [1.0, 0.0, 0.0]");
    Scene::parse(&path, &format!("{joints}{drive}")).unwrap_or_else(|e| panic!("{e}"))
}

fn blocker(scene: &Scene) -> String {
    match choose(scene).unwrap() {
        Choice::Cartesian(Some(b)) => b.to_string(),
        other => panic!("expected Cartesian for a reason, got {other:?}"),
    }
}

#[test]
fn chain20_runs_in_joint_coordinates_bit_for_bit_like_the_kernel_tree() {
    // Reference: kernel::samples::revolute_chain_tree(&ChainSpec::standard(20)), the tree the
    // firmware steps; zero joint angles are the scene's initial configuration.
    let scene = load("chain20.toml");
    assert!(matches!(choose(&scene).unwrap(), Choice::Tree(links) if links.len() == 20));
    let mut sim = compile(&scene).unwrap();
    assert!(
        sim.labels.description.contains("joint coordinates"),
        "{}",
        sim.labels.description
    );
    let reference = revolute_chain_tree::<f64, Growable>(&ChainSpec::standard(20)).unwrap();
    let mut data = reference.new_data();
    for _ in 0..1000 {
        sim.step().unwrap();
        step(&reference, &mut data, &mut Rk4, 1e-3).unwrap();
    }
    let bits = |s: &[f64]| s.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(sim.state()), bits(reference.state(&data)));
}

#[test]
fn the_default_chain_runs_in_joint_coordinates() {
    let scene = chain_scene(20, chain_simulation()).unwrap();
    assert!(matches!(choose(&scene).unwrap(), Choice::Tree(_)));
    assert_eq!(compile(&scene).unwrap().state().len(), 40); // 20 angles and 20 rates
}

/// Steps `scene` in joint coordinates and in Cartesian coordinates side by side for `steps`
/// RK4 steps and returns the largest body difference. Reference: the Cartesian model (5 or 3
/// or 4 constraint rows per joint, 6 coordinates per body, projection): the two differ by
/// their discretization errors, O(h⁴), after starting equal to rounding. The tree keeps the
/// energy (asserted to 1e-9 relative: RK4's own drift over these runs is ~1e-12).
fn tree_against_cartesian(scene: Scene, steps: usize, state_lengths: (usize, usize)) -> f64 {
    let mut cartesian_scene = scene.clone();
    cartesian_scene.simulation.formulation = Formulation::Cartesian;
    let mut tree = compile(&scene).unwrap();
    let mut cartesian = compile(&cartesian_scene).unwrap();
    assert_eq!((tree.state().len(), cartesian.state().len()), state_lengths);
    let start_difference = body_difference(&tree, &cartesian);
    assert!(start_difference < 1e-14, "{start_difference:e}");
    let energy = |s: &Simulation| s.energy().unwrap().total();
    let start = energy(&tree);
    assert!((start - energy(&cartesian)).abs() < 1e-12);
    let mut largest: f64 = 0.0;
    for _ in 0..steps {
        tree.step().unwrap();
        cartesian.step().unwrap();
        largest = largest.max(body_difference(&tree, &cartesian));
    }
    let (_, moved) = tree.rigid().unwrap();
    assert!(moved.position(1).norm() > 0.1); // it moved
    assert!((energy(&tree) - start).abs() < 1e-9 * start.abs().max(1.0));
    largest
}

#[test]
fn a_skew_spatial_tree_moves_as_the_cartesian_model_of_it() {
    // Observed 1.4e-11 m over 2 s.
    let largest = tree_against_cartesian(load("skew_tree.toml"), 2000, (6, 39));
    assert!(largest < 1e-9, "tree vs Cartesian: {largest:e}");
}

#[test]
fn a_floating_base_with_universal_cylindrical_and_ball_joints_moves_as_the_cartesian_model() {
    // 7 + 2 + 2 + 4 positions and 6 + 2 + 2 + 3 velocities against 4 bodies × 13; observed
    // 1.6e-12 m over 2 s.
    let largest = tree_against_cartesian(load("floating_joints.toml"), 2000, (28, 52));
    assert!(largest < 1e-9, "tree vs Cartesian: {largest:e}");
}

/// The largest body difference between arm.toml in joint and in Cartesian coordinates, both
/// RK4 at `step` over 5 s, and the energy each lost.
fn arm_difference(step: f64) -> (f64, f64, f64) {
    let mut scene = load("arm.toml");
    scene.simulation.step = step;
    scene.simulation.integrator =
        ferrodyn_host::spec::IntegratorSpec::Explicit(ferrodyn_kernel::integrators::Method::Rk4);
    let mut cartesian_scene = scene.clone();
    cartesian_scene.simulation.formulation = Formulation::Cartesian;
    let (mut tree, mut cartesian) = (compile(&scene).unwrap(), compile(&cartesian_scene).unwrap());
    assert_eq!(tree.state().len(), 4 + 1 + 3 + 1);
    let energy = |s: &Simulation| s.energy().unwrap().total();
    let start = energy(&tree);
    let mut largest: f64 = 0.0;
    while tree.time() < 5.0 - step / 2.0 {
        tree.step().unwrap();
        cartesian.step().unwrap();
        largest = largest.max(body_difference(&tree, &cartesian));
    }
    (largest, start - energy(&tree), start - energy(&cartesian))
}

#[test]
fn the_arm_with_its_ball_shoulder_and_elbow_damper_moves_as_the_cartesian_model() {
    // The damper (stiffness 0) becomes the elbow link's joint damping. The two formulations
    // differ by their RK4 discretization errors: observed 1.04e-9 at 1 ms and 8.9e-11 at
    // 0.5 ms (ratio 11.7, fourth order would be 16).
    let (coarse, tree_loss, cartesian_loss) = arm_difference(1e-3);
    let (fine, _, _) = arm_difference(5e-4);
    assert!(coarse < 2e-9, "tree vs Cartesian at 1 ms: {coarse:e}");
    assert!(
        fine < coarse / 8.0,
        "at 0.5 ms {fine:e}, at 1 ms {coarse:e}: not converging"
    );
    // The damper took the same energy out of both (1.157 J over 5 s).
    assert!(
        tree_loss > 1.0 && (tree_loss - cartesian_loss).abs() < 1e-9,
        "{tree_loss} {cartesian_loss}"
    );
}

#[test]
fn the_compiler_says_why_a_scene_stays_cartesian() {
    let cases = [
        (
            skew_drive(),
            "drive \"motor\": a drive acts on the tree's revolute",
        ),
        (load("spinning_beam.toml"), "flexible bodies"),
    ];
    for (scene, expected) in cases {
        let why = blocker(&scene);
        assert!(why.starts_with(expected), "{}: {why}", scene.path().display());
    }
    // A drive on a tree joint is a row on the tree's coordinates (it sent the scene to
    // Cartesian coordinates before).
    assert!(matches!(
        choose(&load("driven_crank.toml")).unwrap(),
        Choice::Tree(links) if links.len() == 1
    ));
    // Generalized-α (and BDF, HHT, Newmark) run on the tree's coordinates (the implicit
    // multibody solver sent the scene to Cartesian coordinates before).
    assert!(matches!(
        choose(&load("chain20_implicit.toml")).unwrap(),
        Choice::Tree(links) if links.len() == 20
    ));
    // Loops and distance joints are rows on the tree's coordinates (they sent the scene to
    // Cartesian coordinates before).
    // (pendulum.toml asks for Cartesian coordinates, the kernel sample's.)
    for file in ["four_bar.toml", "arm_strap.toml", "pendulum.toml", "bennett.toml"] {
        let scene = with_formulation(file, Formulation::Auto);
        assert!(matches!(choose(&scene).unwrap(), Choice::Tree(_)), "{file}");
    }
    // Contact shapes act on the links (they sent the scene to Cartesian coordinates before).
    assert!(matches!(
        choose(&load("sphere_drop.toml")).unwrap(),
        Choice::Tree(_)
    ));
    let free =
        "\n[[body]]\nid = 9\nname = \"loose\"\nmass = 1.0\ninertia = { Ixx = 1.0, Iyy = 1.0, Izz = 1.0 }\n";
    let loose = extended("skew_tree.toml", free).unwrap();
    let description = choose(&loose).unwrap().describe();
    assert!(
        description.ends_with("3 joints and 1 floating base form open trees"),
        "{description}"
    );
    let spring = "stiffness = 0.0\ndamping = 0.05";
    let arm = std::fs::read_to_string(scene_path("arm.toml")).unwrap();
    assert!(arm.contains(spring));
    let stiff = Scene::parse(
        &scene_path("arm.toml"),
        &arm.replace(spring, "stiffness = 2.0\ndamping = 0.05"),
    );
    // A joint spring is the link's (it sent the scene to Cartesian coordinates before).
    assert!(matches!(choose(&stiff.unwrap()).unwrap(), Choice::Tree(_)));
    let spring = "\n[[force]]\nname = \"pull\"\ntype = \"spring_damper\"\nbody_i = \"ground\"\nbody_j = \"tip\"\nstiffness = 10.0\n";
    // Force elements act on the links (they sent the scene to Cartesian coordinates before).
    let pulled = extended("skew_tree.toml", spring).unwrap();
    assert!(matches!(choose(&pulled).unwrap(), Choice::Tree(_)));
    assert_eq!(
        choose(&with_formulation("skew_tree.toml", Formulation::Cartesian)).unwrap(),
        Choice::Cartesian(None)
    );
}

#[test]
fn asking_for_the_tree_where_it_cannot_be_is_one_error_naming_the_item() {
    let mut scene = skew_drive();
    scene.simulation.formulation = Formulation::Tree;
    let message = compile(&scene)
        .err()
        .expect("a drive about no tree joint's axis is not in the tree")
        .to_string();
    assert!(
        message.contains("driven_crank.toml:")
            && message.contains("drive \"motor\"")
            && message.contains("this drive has none"),
        "{message}"
    );
    let bad = scene_path("skew_tree.toml");
    let text = std::fs::read_to_string(&bad).unwrap().replace(
        "integrator = \"rk4\"",
        "integrator = \"rk4\"\nformulation = \"joint\"",
    );
    let message = Scene::parse(&bad, &text).err().unwrap().to_string();
    assert!(
        message.contains("unknown formulation \"joint\" (one of auto, tree, cartesian)"),
        "{message}"
    );
}
