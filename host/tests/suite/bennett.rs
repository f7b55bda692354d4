//! The Bennett linkage of scenes/bennett.toml: an over-constrained spatial 4R loop (Grübler −2,
//! one degree of freedom), and which of its rows are redundant changes with the pose.
//!
//! In Cartesian coordinates 3 of its 20 rows are redundant, and which 3 can be kept well
//! conditioned changes with the pose. It swings through the poses where it folds flat (θ1 = 0
//! and π) for 10 s with RK4, DOPRI45 and BDF2: the constraints hold to 1e-9 (with the redundant
//! rows found in order, the projection failed at the first fold, t = 0.34 s), the explicit
//! methods conserve energy to their truncation error (the reference: a conservative system), and
//! BDF2 only loses energy (it dissipates by design).
//!
//! In joint coordinates (the tree of three revolutes, the fourth joint's 5 rows closing the
//! loop, 3 of them redundant) it swings through the same folds with RK4, DOPRI45 and the
//! implicit generalized-α, HHT and Newmark.

use crate::common;
use ferrodyn_host::check::redundant_rows;
use ferrodyn_host::compile::{choose, compile, Choice};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::Simulation;
use ferrodyn_host::spec::{Formulation, IntegratorSpec};
use ferrodyn_kernel::integrators::AdaptiveConfig;
use std::collections::BTreeSet;
use std::path::PathBuf;

/// scenes/bennett.toml with `integrator` (its default settings).
fn bennett(integrator: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/bennett.toml");
    let mut scene = Scene::load(&path).unwrap();
    scene.simulation.integrator = IntegratorSpec::from_name(integrator, AdaptiveConfig::default()).unwrap();
    scene
}

/// Whether link 1 is on the side y > 0: its frame origin sits at a·(cos θ1, sin θ1, 0), so the
/// side changes as θ1 passes 0 or π, where the linkage folds flat.
fn side(sim: &Simulation) -> bool {
    sim.body_pose(0).0.y > 0.0
}

/// What a 10 s run showed.
struct Run {
    max_phi: f64,
    /// Largest E(t) − E(0) and E(0) − E(t), and E(10 s) − E(0), J.
    max_gain: f64,
    max_loss: f64,
    change: f64,
    /// Largest kinetic energy reached, J: the energy scale.
    max_kinetic: f64,
    /// Passages of link 1 through the folded poses (θ1 crossing 0 or π).
    folds: usize,
    /// The distinct sets of redundant rows the Cartesian model's factorizations chose (for a
    /// tree, its Cartesian mirror's at the tree's states).
    choices: BTreeSet<Vec<(usize, usize)>>,
}

impl Run {
    /// Largest |E(t) − E(0)|.
    fn drift(&self) -> f64 {
        self.max_gain.max(self.max_loss)
    }
}

/// Runs `scene` for 10 s, `label` naming it in messages.
fn swing(scene: &Scene, label: &str) -> Run {
    let mut sim = compile(scene).unwrap();
    let e0 = sim.energy().unwrap().total();
    let mut last_side = side(&sim);
    let mut run = Run {
        max_phi: 0.0,
        max_gain: 0.0,
        max_loss: 0.0,
        change: 0.0,
        max_kinetic: 0.0,
        folds: 0,
        choices: BTreeSet::new(),
    };
    for _ in 0..(10.0 / scene.simulation.step).round() as usize {
        sim.step()
            .unwrap_or_else(|e| panic!("{label} at t = {}: {e:#}", sim.time()));
        // The loop closure as the Cartesian model measures it (on a tree: its Cartesian mirror).
        let (model, data) = sim.rigid().unwrap();
        run.max_phi = run
            .max_phi
            .max(ferrodyn_kernel::rigid::violation(model, data).position);
        run.choices.insert(redundant_rows(model, data));
        let energy = sim.energy().unwrap();
        run.change = energy.total() - e0;
        run.max_gain = run.max_gain.max(run.change);
        run.max_loss = run.max_loss.max(-run.change);
        run.max_kinetic = run.max_kinetic.max(energy.kinetic);
        let now = side(&sim);
        run.folds += usize::from(now != last_side);
        last_side = now;
    }
    println!(
        "{label}: {} fold passages, max |Φ| {:.2e}, energy gained {:.2e} / lost {:.2e}, E(10 s) − E(0) {:.2e} of {:.3} J kinetic, redundant rows chosen {:?}",
        run.folds, run.max_phi, run.max_gain, run.max_loss, run.change, run.max_kinetic, run.choices
    );
    run
}

/// The Bennett linkage in Cartesian coordinates with `integrator`.
fn run_with(integrator: &str) -> Run {
    let mut scene = bennett(integrator);
    // The Cartesian model's choice of redundant rows is what this test follows (the scene
    // runs in joint coordinates by default: below).
    scene.simulation.formulation = Formulation::Cartesian;
    swing(&scene, integrator)
}

/// The Bennett linkage in joint coordinates with `integrator` at step `dt`.
fn tree_run(integrator: &str, dt: f64) -> Run {
    let mut scene = bennett(integrator);
    scene.simulation.step = dt;
    assert!(matches!(choose(&scene).unwrap(), Choice::Tree(_)));
    swing(&scene, &format!("{integrator} {dt:e} s in joint coordinates"))
}

#[test]
fn bennett_linkage_swings_through_its_folded_poses_with_rk4_dopri45_and_bdf2() {
    for integrator in ["rk4", "dopri45", "bdf2"] {
        let run = run_with(integrator);
        assert!(run.folds >= 10, "{integrator}: only {} fold passages", run.folds);
        assert!(run.max_phi <= 1e-9, "{integrator}: max |Φ| {:e}", run.max_phi);
        // More than one choice of redundant rows: the choice follows the motion.
        assert!(run.choices.len() > 1, "{integrator}: {:?}", run.choices);
        assert!(
            run.choices.iter().all(|rows| rows.len() == 3),
            "{integrator}: {:?}",
            run.choices
        );
        let scale = run.max_kinetic;
        match integrator {
            // Seen: 1.9e-9 J (RK4) and 7e-10 J (DOPRI45) of about 1 J.
            "rk4" | "dopri45" => assert!(
                run.max_gain.max(run.max_loss) <= 1e-7 * scale,
                "{integrator}: energy drift {:e} of {scale} J",
                run.max_gain.max(run.max_loss)
            ),
            // BDF2 dissipates (seen: 1.3e-4 J lost); what it gains is round-off and truncation.
            _ => assert!(
                run.max_gain <= 1e-3 * run.max_loss,
                "bdf2 gains {:e} J (loses {:e} J)",
                run.max_gain,
                run.max_loss
            ),
        }
    }
}

#[test]
fn the_bennett_linkage_swings_through_its_folded_poses_in_joint_coordinates() {
    for (integrator, dt) in [("rk4", 1e-3), ("dopri45", 1e-3), ("rk4", 5e-4)] {
        let run = tree_run(integrator, dt);
        assert!(run.folds >= 10, "{integrator}: only {} fold passages", run.folds);
        assert!(run.max_phi <= 1e-9, "{integrator}: max |Φ| {:e}", run.max_phi);
        // A conservative system: energy kept to the truncation error. In joint coordinates it
        // is concentrated on the steps that cross a folded pose: RK4 at 1 ms loses up to
        // 3·10⁻⁵ of the kinetic energy there (seen 3.9e-5 J of 1.27 J), 2000× less at 0.5 ms;
        // the Cartesian model's bound (above) holds from 0.5 ms and with DOPRI45.
        let bound = match (integrator, dt) {
            ("rk4", 1e-3) => 1e-4,
            _ => 1e-7,
        };
        assert!(
            run.drift() <= bound * run.max_kinetic,
            "{integrator} {dt}: energy drift {:e} of {} J",
            run.drift(),
            run.max_kinetic
        );
    }
}

#[test]
fn the_bennett_linkage_swings_through_its_folded_poses_with_generalized_alpha_hht_and_newmark() {
    // The implicit methods on the tree (`dae`: HHT and Newmark as the generalized-α recurrence
    // with α_m = 0), each 10 s through 20 folds with the loop held to 1e-9.
    let mut drift = Vec::new();
    for (integrator, dt) in [
        ("generalized-alpha", 1e-3),
        ("generalized-alpha", 5e-4),
        ("hht", 1e-3),
        ("newmark", 1e-3),
    ] {
        let run = tree_run(integrator, dt);
        assert!(run.folds >= 10, "{integrator}: only {} fold passages", run.folds);
        assert!(run.max_phi <= 1e-9, "{integrator}: max |Φ| {:e}", run.max_phi);
        // Energy: these second-order methods' truncation error, at most 1e-5 of the kinetic
        // energy (seen at 1 ms: 2.2e-6 J (ρ∞ = 0.8), 2.6e-6 (HHT), 2.0e-6 (Newmark) of 1.27 J),
        // lowest where the linkage is slowest and highest where it is fastest, with no trend:
        // the numerical damping of ρ∞ < 1 acts on frequencies near 1/h, and this swing's
        // (ωh ≈ 0.01) loses less to it in 10 s than the swing's own truncation error.
        assert!(
            run.drift() <= 1e-5 * run.max_kinetic,
            "{integrator} {dt}: energy drift {:e} of {} J",
            run.drift(),
            run.max_kinetic
        );
        if integrator == "generalized-alpha" {
            drift.push(run.drift());
        }
    }
    // Halving the step divides the energy error by 4 (second order): it is the scheme's
    // truncation error, not a fault at the folds (seen: 3.9 at 3 s).
    let ratio = drift[0] / drift[1];
    assert!(
        (3.0..=5.0).contains(&ratio),
        "energy error ratio on halving the step: {ratio}"
    );
}

/// The Cartesian model's fold passages where its rows were weakest: RK4 at 1/8 ms (the finer
/// step lands closer to the folded poses than 1 ms does) and the implicit generalized-α (before
/// this, its Newton stalled at 5e-10 against its 1e-10 tolerance at t = 0.143 s: the multipliers
/// of the redundant rows, left in its matrix, grew without bound).
#[test]
fn the_cartesian_bennett_linkage_swings_at_an_eighth_of_a_millisecond_and_with_generalized_alpha() {
    let mut scene = bennett("rk4");
    scene.simulation.formulation = Formulation::Cartesian;
    scene.simulation.step = 1e-3 / 8.0;
    let fine = swing(&scene, "rk4 1/8 ms Cartesian");
    assert!(fine.folds >= 10, "only {} fold passages", fine.folds);
    assert!(fine.max_phi <= 1e-9, "max |Φ| {:e}", fine.max_phi);
    // Conservative: RK4 at 1/8 ms keeps the energy to round-off and projection (seen ≈ 2e-12 J
    // of 1.27 J).
    assert!(
        fine.drift() <= 1e-9 * fine.max_kinetic,
        "energy drift {:e} of {} J",
        fine.drift(),
        fine.max_kinetic
    );
    let mut drift = Vec::new();
    for dt in [1e-3, 5e-4] {
        let mut scene = bennett("generalized-alpha");
        scene.simulation.formulation = Formulation::Cartesian;
        scene.simulation.step = dt;
        let run = swing(&scene, &format!("generalized-alpha {dt:e} s Cartesian"));
        assert!(run.folds >= 10, "{dt}: only {} fold passages", run.folds);
        assert!(run.max_phi <= 1e-9, "{dt}: max |Φ| {:e}", run.max_phi);
        // Rows left out of the Newton matrix carry zero multipliers, as the explicit path's.
        assert!(
            run.choices.iter().all(|rows| rows.len() == 3),
            "{:?}",
            run.choices
        );
        drift.push(run.drift() / run.max_kinetic);
    }
    // The energy error is the scheme's truncation error (second order: halving the step
    // divides it by about 4), not a fault at the folds.
    let ratio = drift[0] / drift[1];
    println!("generalized-alpha Cartesian energy error ratio on halving the step: {ratio:.2}");
    assert!(drift[0] <= 1e-4, "relative energy drift {:e}", drift[0]);
    assert!(
        (3.0..=5.0).contains(&ratio),
        "energy error ratio on halving the step: {ratio}"
    );
}

/// `scene` in `formulation` with RK4 at step `dt`.
fn rk4_at(formulation: Formulation, dt: f64) -> Simulation {
    let mut scene = bennett("rk4");
    scene.simulation.formulation = formulation;
    scene.simulation.step = dt;
    compile(&scene).unwrap()
}

#[test]
fn the_cartesian_and_joint_coordinate_bennett_linkages_move_alike_through_a_fold() {
    // Two independent formulations of the same linkage (6 coordinates a body and 20 rows,
    // against 3 joint angles and 5 loop rows) over its first 1.5 s, three fold passages: at a
    // fold each has its own truncation error, so they are compared where RK4's is small (1/16
    // ms), with the Cartesian model's own error there (itself at 1/32 ms).
    let dt = 1e-3 / 16.0;
    let mut tree = rk4_at(Formulation::Auto, dt);
    let mut cartesian = rk4_at(Formulation::Cartesian, dt);
    let mut finer = rk4_at(Formulation::Cartesian, dt / 2.0);
    assert!(tree.labels.description.contains("joint coordinates"));
    let (mut difference, mut truncation, mut folds) = (0.0f64, 0.0f64, 0);
    let mut last_side = side(&cartesian);
    while cartesian.time() < 1.5 {
        tree.step().unwrap();
        cartesian
            .step()
            .unwrap_or_else(|e| panic!("Cartesian at t = {}: {e:#}", cartesian.time()));
        finer.advance_to(cartesian.time()).unwrap();
        difference = difference.max(common::body_difference(&tree, &cartesian));
        truncation = truncation.max(common::body_difference(&finer, &cartesian));
        folds += usize::from(side(&cartesian) != last_side);
        last_side = side(&cartesian);
    }
    println!(
        "Bennett RK4 {dt:e} s, 1.5 s, {folds} folds: tree vs Cartesian {difference:.2e}, Cartesian vs itself at dt/2 {truncation:.2e}"
    );
    assert!(folds >= 2, "only {folds} fold passages");
    // Seen: 3.65e-7, while the Cartesian model is 1.1e-9 from itself at dt/2: the tree's own
    // error at the folds (its RK4 loses energy on the steps that cross one) dominates.
    assert!(difference <= 1e-6, "tree vs Cartesian {difference:e}");
    assert!(truncation <= 1e-8, "Cartesian vs itself at dt/2 {truncation:e}");
}

#[test]
fn the_cartesian_double_parallelogram_passes_its_flat_pose_at_an_eighth_of_a_millisecond() {
    // Flat (t ≈ 0.546 s), both loops lose rank at once: Φ_q itself drops two ranks, and the
    // rows of the two coupler pins along the ground line keep only θ² of their diagonal
    // (θ the cranks' angle to it). The model passes it with its loops closed and the energy of
    // this conservative linkage kept (the scale: the potential energy it swings through,
    // three cranks' CGs falling 2 × 0.5 sin 60° m and the couplers' twice that, as the tree's
    // test in tree_loops.rs).
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/double_parallelogram.toml");
    let mut scene = Scene::load(&path).unwrap();
    scene.simulation.formulation = Formulation::Cartesian;
    scene.simulation.step = 1e-3 / 8.0;
    let mut sim = compile(&scene).unwrap();
    let e0 = sim.energy().unwrap().total();
    let drop = (std::f64::consts::FRAC_PI_3).sin();
    let scale = 9.81 * (3.0 * drop + 2.0 * 2.0 * drop);
    let (mut passed, mut drift, mut phi) = (0, 0.0f64, 0.0f64);
    let mut above = sim.body_pose(0).0.y > 0.0;
    for _ in 0..16000 {
        sim.step()
            .unwrap_or_else(|e| panic!("at t = {}: {e:#}", sim.time()));
        let now = sim.body_pose(0).0.y > 0.0;
        passed += usize::from(now != above);
        above = now;
        drift = drift.max((sim.energy().unwrap().total() - e0).abs());
        let (model, data) = sim.rigid().unwrap();
        phi = phi.max(ferrodyn_kernel::rigid::violation(model, data).position);
    }
    println!(
        "double parallelogram Cartesian, 2 s RK4 1/8 ms: {passed} flat passages, energy drift {drift:.2e} of {scale:.2} J, max |Φ| {phi:.2e}"
    );
    assert!(passed >= 2, "only {passed} passages through the flat pose");
    assert!(drift <= 1e-8 * scale, "energy drift {drift:e}");
    assert!(phi <= 1e-10, "|Φ| {phi:e}");
}
