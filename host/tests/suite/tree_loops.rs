//! Loops closed on the joint-coordinate tree (loop joints as constraint rows on the tree's
//! coordinates) against the Cartesian model of the same scene (`formulation = "cartesian"`:
//! 6 coordinates per body and every joint a constraint, an independent formulation): a
//! four-bar, a double parallelogram (redundant loop through its singular poses) and a
//! slider-crank held by a spring, and a four-bar whose spanning tree is chosen to cut its ball
//! joint (the spatial Bennett linkage: bennett.rs).

use crate::common::body_difference;
use ferrodyn_host::check::joint_reactions;
use ferrodyn_host::compile::{choose, compile, Choice};
use ferrodyn_host::export::{rust_module, Precision};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use ferrodyn_host::spec::Formulation;
use ferrodyn_kernel::rigid::violation;
use std::path::PathBuf;

fn scenes() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn load(name: &str) -> Scene {
    Scene::load(&scenes().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The largest |Φ| over every scene joint at the simulation's bodies (for a tree, its
/// Cartesian mirror: the loop closure measured as the Cartesian model measures it).
fn closure(sim: &Simulation) -> f64 {
    let (model, data) = sim.rigid().unwrap();
    violation(model, data).position
}

/// What running a scene in both formulations side by side showed.
struct Comparison {
    /// Largest difference of any body's position, orientation or velocities between the tree
    /// run and the Cartesian run.
    difference: f64,
    /// Largest difference between the Cartesian run and the Cartesian run at an eighth of the
    /// step (its own truncation error), when that finer run is made.
    truncation: f64,
    /// Largest |Φ| of the tree run and of the Cartesian run.
    tree_phi: f64,
    cartesian_phi: f64,
}

/// `scene` compiled with `formulation` and step `dt`.
fn simulation(scene: &Scene, formulation: Formulation, dt: f64) -> Simulation {
    let mut scene = scene.clone();
    scene.simulation.formulation = formulation;
    scene.simulation.step = dt;
    compile(&scene).unwrap()
}

/// Runs `scene` (called `name`) for `seconds` with RK4 at step `dt` in joint coordinates
/// (asserting `auto` chose them) and in Cartesian coordinates, and with `truncation` the
/// Cartesian model at dt / 8.
fn compare_scene(name: &str, scene: &Scene, seconds: f64, dt: f64, truncation: bool) -> Comparison {
    assert!(matches!(choose(scene).unwrap(), Choice::Tree(_)), "{name}");
    let mut tree = simulation(scene, Formulation::Auto, dt);
    let mut cartesian = simulation(scene, Formulation::Cartesian, dt);
    let mut fine = truncation.then(|| simulation(scene, Formulation::Cartesian, dt / 8.0));
    assert!(
        tree.labels.description.contains("joint coordinates"),
        "{}",
        tree.labels.description
    );
    let mut run = Comparison {
        difference: body_difference(&tree, &cartesian),
        truncation: 0.0,
        tree_phi: closure(&tree),
        cartesian_phi: closure(&cartesian),
    };
    for _ in 0..(seconds / dt).round() as usize {
        tree.step()
            .unwrap_or_else(|e| panic!("{name} tree at t = {}: {e:#}", tree.time()));
        cartesian.step().unwrap();
        run.difference = run.difference.max(body_difference(&tree, &cartesian));
        run.tree_phi = run.tree_phi.max(closure(&tree));
        run.cartesian_phi = run.cartesian_phi.max(closure(&cartesian));
        if let Some(fine) = fine.as_mut() {
            fine.advance_to(cartesian.time()).unwrap();
            run.truncation = run.truncation.max(body_difference(fine, &cartesian));
        }
    }
    println!(
        "{name}: {seconds} s RK4 {dt:e} s: largest body difference tree/Cartesian {:.2e} (Cartesian against dt/8: {:.2e}), max |Φ| tree {:.2e}, Cartesian {:.2e}",
        run.difference, run.truncation, run.tree_phi, run.cartesian_phi
    );
    run
}
#[test]
fn a_four_bar_and_a_sprung_slider_crank_move_as_the_cartesian_model() {
    for name in ["four_bar.toml", "slider_crank_spring.toml"] {
        moves_as_the_cartesian_model(name, &load(name));
    }
}

/// Asserts that `scene` (called `name`) moves in joint coordinates as its Cartesian model over
/// 2 s of RK4, with its loops closed to 1e-10.
fn moves_as_the_cartesian_model(name: &str, scene: &Scene) {
    let run = compare_scene(name, scene, 2.0, 1e-3, true);
    assert!(run.tree_phi <= 1e-10, "{name}: tree |Φ| {:e}", run.tree_phi);
    assert!(
        run.cartesian_phi <= 1e-10,
        "{name}: Cartesian |Φ| {:e}",
        run.cartesian_phi
    );
    // At 1 ms the fast cranks leave each formulation ~5e-6 from its converged trajectory (the
    // Cartesian model against itself at an eighth of the step): the two formulations differ by
    // less than that error of either.
    assert!(
        run.difference <= run.truncation,
        "{name}: difference {:e}, Cartesian truncation {:e}",
        run.difference,
        run.truncation
    );
    // Where the step makes RK4's error small, they agree to 1e-9.
    let run = compare_scene(name, scene, 2.0, 1e-3 / 16.0, false);
    assert!(
        run.difference <= 1e-9,
        "{name} at 1/16 ms: difference {:e}",
        run.difference
    );
    assert!(run.tree_phi <= 1e-10, "{name}: tree |Φ| {:e}", run.tree_phi);
}

/// Asserts that `ferrodyn check` of the scene at `path` succeeds and prints every line of
/// `expected`.
fn check_prints(path: &std::path::Path, expected: &[&str]) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ferrodyn"))
        .arg("check")
        .arg(path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for expected in expected {
        assert!(text.contains(expected), "missing `{expected}` in\n{text}");
    }
}

/// The four-bar of scenes/four_bar.toml with its first joint, the crank's ground pivot, a ball
/// joint: the linkage stays planar (the other three revolutes hold it), and one DOF.
fn ball_four_bar() -> (PathBuf, Scene) {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("four_bar_ball_first.toml");
    let text = std::fs::read_to_string(scenes().join("four_bar.toml"))
        .unwrap()
        .replace(
            "name = \"crank_pivot\"\ntype = \"revolute\"",
            "name = \"crank_pivot\"\ntype = \"spherical\"",
        );
    assert!(text.contains("type = \"spherical\""));
    std::fs::write(&path, &text).unwrap();
    let scene = Scene::parse(&path, &text).unwrap_or_else(|e| panic!("{e}"));
    (path, scene)
}

#[test]
fn a_four_bar_with_its_ball_joint_listed_first_cuts_the_ball_joint_and_moves_as_the_cartesian_model() {
    // Grown in file order the ball joint would carry the crank and the rocker's ground pivot
    // would close the loop: a revolute's 5 rows. The spanning tree chosen cuts the ball joint:
    // 3 rows (its out-of-plane row redundant), the three revolutes carry the links.
    let (path, scene) = ball_four_bar();
    let Choice::Tree(links) = choose(&scene).unwrap() else {
        panic!("not a tree")
    };
    let names: Vec<&str> = links
        .iter()
        .map(|l| scene.joints[l.joint.unwrap()].name.as_str())
        .collect();
    assert_eq!(names, ["rocker_pivot", "rocker_pin", "crank_pin"]);
    check_prints(
        &path,
        &[
        "spanning tree: \"rocker_pivot\" (ground → \"rocker\"), \"rocker_pin\" (\"rocker\" → \"coupler\"), \"crank_pin\" (\"coupler\" → \"crank\")",
        "loop rows: 3 (spherical joint \"crank_pivot\" cut; the fewest rows)",
        "  loop closed by joint \"crank_pivot\": spherical (3 rows on the tree's coordinates); redundant row 2 (zero multiplier)",
        ],
    );
    // The same motion as the Cartesian model (18 rows, one redundant), held as the four-bar's.
    moves_as_the_cartesian_model("four-bar with a ball joint", &scene);
}

/// The double parallelogram after 2 s of RK4 at one step in both formulations, each against
/// itself at a finer step (its own RK4 error).
struct Converged {
    /// Body difference tree/Cartesian at 2 s.
    difference: f64,
    /// Body difference of the tree and of the Cartesian run against themselves at the finer
    /// step, at 2 s.
    tree_error: f64,
    cartesian_error: f64,
    /// Largest |Φ| of the two runs at the step.
    phi: f64,
}

/// Runs `scene` for 2 s of RK4 at step `dt` in joint and in Cartesian coordinates, and each
/// at `dt / finer`.
fn converged(scene: &Scene, dt: f64, finer: f64) -> Converged {
    let mut tree = simulation(scene, Formulation::Auto, dt);
    let mut cartesian = simulation(scene, Formulation::Cartesian, dt);
    let mut phi = 0.0f64;
    for _ in 0..(2.0 / dt).round() as usize {
        tree.step().unwrap();
        cartesian.step().unwrap();
        phi = phi.max(closure(&tree)).max(closure(&cartesian));
    }
    let mut tree_fine = simulation(scene, Formulation::Auto, dt / finer);
    let mut cartesian_fine = simulation(scene, Formulation::Cartesian, dt / finer);
    tree_fine.advance_to(tree.time()).unwrap();
    cartesian_fine.advance_to(tree.time()).unwrap();
    let run = Converged {
        difference: body_difference(&tree, &cartesian),
        tree_error: body_difference(&tree, &tree_fine),
        cartesian_error: body_difference(&cartesian, &cartesian_fine),
        phi,
    };
    println!(
        "double parallelogram: 2 s RK4 {dt:e} s: tree/Cartesian {:.2e}; against themselves at 1/{finer} of the step: tree {:.2e}, Cartesian {:.2e}; max |Φ| {:.2e}",
        run.difference, run.tree_error, run.cartesian_error, run.phi
    );
    run
}

/// What 2 s of the double parallelogram in joint coordinates at one step showed.
struct FlatPasses {
    /// Times the cranks passed the ground line.
    passed: usize,
    /// Largest |E − E₀| (J).
    drift: f64,
    /// Largest change of E over one step (J): a jump at a flat pose.
    jump: f64,
    /// Largest |Φ|.
    phi: f64,
}

/// Runs the double parallelogram for 2 s of RK4 at step `dt` in `formulation`.
fn flat_passes(scene: &Scene, formulation: Formulation, dt: f64) -> FlatPasses {
    let mut sim = simulation(scene, formulation, dt);
    let e0 = sim.energy().unwrap().total();
    let mut run = FlatPasses {
        passed: 0,
        drift: 0.0,
        jump: 0.0,
        phi: 0.0,
    };
    let (mut above, mut last) = (sim.body_pose(0).0.y > 0.0, e0);
    for _ in 0..(2.0 / dt).round() as usize {
        sim.step().unwrap_or_else(|e| panic!("t = {}: {e:#}", sim.time()));
        let now = sim.body_pose(0).0.y > 0.0;
        run.passed += usize::from(now != above);
        above = now;
        let e = sim.energy().unwrap().total();
        run.drift = run.drift.max((e - e0).abs());
        run.jump = run.jump.max((e - last).abs());
        last = e;
        run.phi = run.phi.max(closure(&sim));
    }
    println!(
        "double parallelogram: 2 s RK4 {dt:e} s, {formulation:?}: {} flat passages, energy drift {:.2e} J, largest step change {:.2e} J, max |Φ| {:.2e}",
        run.passed, run.drift, run.jump, run.phi
    );
    run
}

#[test]
fn the_double_parallelogram_moves_as_the_cartesian_model_through_its_flat_poses() {
    // Flat (t ≈ 0.546 s and 1.09 s), both loops lose rank at once: the singular position this
    // benchmark is made for, where the parallelogram and crossed branches meet.
    let name = "double_parallelogram.toml";
    let scene = load(name);
    // The two formulations pass the flat poses on the same trajectory. At 1 ms they differ by
    // no more than their own RK4 errors (each against itself at a finer step) added. Those
    // errors are the flat poses' (RK4's error elsewhere is below 1e-11 here): each pass
    // amplifies them, so at 1 ms they are far above 1e-9 in both formulations. At 1/16 ms
    // both have converged through the flat poses (the tree had not while it kept the pins'
    // rows along the ground line there, 3.9e-7 from the Cartesian run; the Cartesian model not
    // while it re-chose the rows of one loop only, 3.7e-9 from itself) and they meet the
    // issue's 1e-9. What still parts them there is no RK4 error: near the pose each leaves out
    // the rows that vanish by its own measure (docs/validation.md).
    let runs = [(1e-3, 8.0), (1e-3 / 16.0, 4.0)].map(|(dt, finer)| (dt, converged(&scene, dt, finer)));
    let (coarse, fine) = (&runs[0].1, &runs[1].1);
    assert!(
        coarse.difference <= coarse.tree_error + coarse.cartesian_error,
        "1 ms: difference {:e}, RK4 errors {:e} (tree) and {:e} (Cartesian)",
        coarse.difference,
        coarse.tree_error,
        coarse.cartesian_error
    );
    assert!(
        fine.difference <= 1e-9,
        "1/16 ms: difference {:e}",
        fine.difference
    );
    assert!(fine.tree_error <= 1e-10, "tree RK4 error {:e}", fine.tree_error);
    assert!(
        fine.cartesian_error <= 1e-9,
        "Cartesian RK4 error {:e}",
        fine.cartesian_error
    );
    for (dt, run) in &runs {
        assert!(run.phi <= 1e-10, "{dt:e} s: |Φ| {:e}", run.phi);
    }
    // This conservative linkage keeps its energy, to 1e-8 of the potential energy it swings
    // through (three cranks' CGs falling 2 × 0.5 sin 60° m and the couplers' twice that), at
    // 1 ms and at 1/32 ms: at a flat pose the energy's jump must shrink with the step (it grew
    // to 3.8e-5 J at 1/32 ms while the tree kept the pins' rows along the ground line there).
    let drop = (std::f64::consts::FRAC_PI_3).sin();
    let scale = 9.81 * (3.0 * drop + 2.0 * 2.0 * drop);
    let (coarse, fine) = (
        flat_passes(&scene, Formulation::Auto, 1e-3),
        flat_passes(&scene, Formulation::Auto, 1e-3 / 32.0),
    );
    for run in [&coarse, &fine] {
        assert!(
            run.passed >= 2,
            "only {} passages through the flat pose",
            run.passed
        );
        assert!(run.drift <= 1e-8 * scale, "energy drift {:e}", run.drift);
        assert!(run.phi <= 1e-10, "|Φ| {:e}", run.phi);
    }
    assert!(
        fine.jump <= coarse.jump,
        "a smaller step made a larger energy jump: {:e} J at 1/32 ms, {:e} J at 1 ms",
        fine.jump,
        coarse.jump
    );
    // The Cartesian model too: its largest energy jump at a flat pose must not grow as the step
    // shrinks from 1/4 ms to 1/32 ms (it grew from 3.3e-9 J at 1/16 ms to 4.2e-8 J at 1/32 ms
    // while it kept, in the second loop, the pin row that the flat pose makes dependent).
    let cartesian = [4.0, 16.0, 32.0].map(|n| flat_passes(&scene, Formulation::Cartesian, 1e-3 / n));
    for pair in cartesian.windows(2) {
        assert!(
            pair[1].passed >= 2 && pair[1].phi <= 1e-10,
            "|Φ| {:e}",
            pair[1].phi
        );
        assert!(
            pair[1].jump <= pair[0].jump,
            "Cartesian: a smaller step made a larger energy jump: {:e} J, {:e} J at the larger step",
            pair[1].jump,
            pair[0].jump
        );
    }
}

#[test]
fn a_loop_joints_reactions_equal_the_cartesian_models() {
    // The tree run's reactions come from its Cartesian mirror at the tree's state: at the
    // same state, the Cartesian model's own.
    let scene = load("four_bar.toml");
    let mut cartesian_scene = scene.clone();
    cartesian_scene.simulation.formulation = Formulation::Cartesian;
    let (mut tree, mut cartesian) = (compile(&scene).unwrap(), compile(&cartesian_scene).unwrap());
    tree.advance_to(1.0).unwrap();
    cartesian.advance_to(1.0).unwrap();
    let reactions = |sim: &mut Simulation| {
        let (model, data) = sim.rigid_mut().unwrap();
        joint_reactions(model, data).unwrap()
    };
    let (a, b) = (reactions(&mut tree), reactions(&mut cartesian));
    let scale = b.iter().map(|r| r.force.norm()).fold(0.0, f64::max);
    for (joint, (a, b)) in a.iter().zip(&b).enumerate() {
        let difference = (a.force - b.force).norm().max((a.torque - b.torque).norm());
        assert!(
            difference <= 1e-6 * scale,
            "joint {joint}: {difference:e} of {scale} N"
        );
    }
}

#[test]
fn a_tree_with_a_loop_exports_its_closing_joint_and_the_capacities_of_its_rows() {
    // The four-bar on the tree: 3 revolute links (nv = 3), the rocker's ground pivot closing
    // the loop as a revolute joint's m = 5 rows (docs/kernel.md), so the dense loop matrices
    // take nv(nv+1)/2 + 2·m·nv + m(m+1)/2 + m + nv reals (tree::Model::loop_workspace).
    let (nv, m) = (3, 5);
    let workspace = nv * (nv + 1) / 2 + 2 * m * nv + m * (m + 1) / 2 + m + nv;
    for precision in [Precision::F32, Precision::F64] {
        let code = rust_module(&load("four_bar.toml"), precision).unwrap();
        let capacities = format!("pub type Capacities = Fixed<3, 1, 0, {m}, {workspace}>;");
        // The scene's ground pivot of the rocker (link 2) at (0.3, 0, 0); the default
        // projection settings of the export's scalar (no `set_stabilization`).
        let closing = "b.close_loop(Joint::new(JointKind::Revolute, BodyRef::Ground, Frame { origin: v(0.3, 0.0, 0.0), ";
        for expected in [
            capacities.as_str(),
            closing,
            ", BodyRef::Body(2), Frame { origin: ",
        ] {
            assert!(code.contains(expected), "missing `{expected}` in\n{code}");
        }
        assert_eq!(code.matches("b.close_loop(").count(), 1);
        assert!(!code.contains("set_stabilization") && !code.contains("forces("));
    }
}

#[test]
fn check_prints_the_spanning_tree_the_loop_rows_and_the_redundant_ones_by_joint_name() {
    check_prints(
        &scenes().join("four_bar.toml"),
        &[
        "formulation: joint coordinates (tree): 3 joints form an open tree from the ground",
        "spanning tree: \"crank_pivot\" (ground → \"crank\"), \"crank_pin\" (\"crank\" → \"coupler\"), \"rocker_pin\" (\"coupler\" → \"rocker\")",
        // Every joint of the loop is a revolute: any one cut costs 5 rows, and file order cuts
        // the last.
        "loop rows: 5 (revolute joint \"rocker_pivot\" cut; the fewest rows)",
        // The planar loop's three out-of-plane rows (z offset, tilts about x and y), as the
        // Cartesian model's check names the same joint's rows 2, 3, 4 (host/tests/suite/four_bar.rs).
        "  loop closed by joint \"rocker_pivot\": revolute (5 rows on the tree's coordinates); redundant rows 2, 3, 4 (zero multipliers)",
        ],
    );
}

#[test]
fn a_loop_the_projection_cannot_close_is_an_error_naming_the_scene_joint() {
    // A 0.2 s RK4 step opens the four-bar's loop by 0.2 m: more than Newton closes in 10
    // iterations.
    let mut scene = load("four_bar.toml");
    scene.simulation.step = 0.2;
    let mut sim = compile(&scene).unwrap();
    let message = loop {
        if let Err(e) = sim.step() {
            break format!("{e:#}");
        }
        assert!(sim.time() < 4.0, "ran without an error");
    };
    assert!(
        message.contains("constraint projection did not converge")
            && message.contains("joint \"rocker_pivot\""),
        "{message}"
    );
}

#[test]
fn a_limit_keeps_its_joint_on_the_tree_and_a_loop_of_limited_joints_stays_cartesian_naming_one() {
    // The tree's end stops are forces on its own joint coordinates; a loop joint has none. A
    // limit on the joint file order would cut keeps it on the tree: the spanning tree cuts
    // another revolute of the loop (the same 5 rows), the last of the tree grown in file order.
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/four_bar.toml");
    let limited = |joints: &[&str]| {
        let mut text = std::fs::read_to_string(&path).unwrap();
        for joint in joints {
            let name = format!("name = \"{joint}\"\n");
            text = text.replace(&name, &format!("{name}limits = [-10.0, 10.0]\n"));
        }
        Scene::parse(&path, &text).unwrap_or_else(|e| panic!("{e}"))
    };
    let scene = limited(&["rocker_pivot"]);
    let Choice::Tree(links) = choose(&scene).unwrap() else {
        panic!("{}", choose(&scene).unwrap().describe())
    };
    let carried = |name: &str| {
        links
            .iter()
            .find(|l| l.joint.is_some_and(|j| scene.joints[j].name == name))
    };
    assert!(carried("rocker_pivot").is_some_and(|l| l.limit.is_some()));
    assert!(carried("rocker_pin").is_none(), "{links:?}");
    // Every joint of the loop limited: one must close it, and the scene stays Cartesian,
    // naming it.
    let scene = limited(&["crank_pivot", "crank_pin", "rocker_pin", "rocker_pivot"]);
    let why = choose(&scene).unwrap().describe();
    assert!(
        why.starts_with("Cartesian coordinates")
            && why.contains("\"rocker_pivot\"")
            && why.contains("closes a loop on the tree")
            && why.contains("joint limits"),
        "{why}"
    );
}
