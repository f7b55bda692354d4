//! The planar four-bar with four revolute joints (3 redundant rows) from scenes/four_bar.toml:
//! `check` and `run` name the same redundant rows, every integrator runs it, settling reaches
//! the static solution computed independently here (explicitly and with generalized-α), and
//! conflicting constraints are an error naming the joint.

use ferrodyn_host::check::{dof_report, joint_reactions, redundant_rows, settle};
use ferrodyn_host::compile::compile;
use ferrodyn_host::dae::HostMethod;
use ferrodyn_host::scene::Scene;
use ferrodyn_host::spec::{Formulation, IntegratorSpec};
use ferrodyn_kernel::integrators::AdaptiveConfig;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::samples::GRAVITY;
use std::path::PathBuf;

fn scene_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/four_bar.toml")
}

fn scene() -> Scene {
    Scene::load(&scene_path()).unwrap()
}

const CRANK: f64 = 0.1;
const COUPLER: f64 = 0.3;
const ROCKER: f64 = 0.25;
const GROUND: f64 = 0.3;
/// Mass per length of the links (kg/m), as in the scene.
const DENSITY: f64 = 2.0;

#[test]
fn check_names_the_closing_joints_out_of_plane_rows_as_redundant() {
    let scene = scene();
    let mut sim = compile(&scene).unwrap();
    let (model, data) = sim.rigid_mut().unwrap();
    let report = dof_report(model, data).unwrap();
    assert_eq!((report.gruebler, report.rank, report.independent), (-2, 17, 1));
    // All three in the last joint (index 3, "rocker_pivot").
    assert_eq!(report.redundant.len(), 3);
    assert!(
        report.redundant.iter().all(|(joint, _)| *joint == 3),
        "{report:?}"
    );
    assert_eq!(scene.name_maps().joints[3], "rocker_pivot");
}

/// What a 10 s run with one integrator and step showed.
struct Run {
    /// Largest |Φ| after any step.
    max_phi: f64,
    /// Largest E(t) − E(0) (energy gained), J.
    max_gain: f64,
    /// Largest E(0) − E(t) (energy lost), J.
    max_loss: f64,
}

/// Runs the scene for 10 s with `integrator` at step `dt`.
fn run_with(integrator: &str, dt: f64) -> Run {
    let mut scene = scene();
    scene.simulation.integrator = IntegratorSpec::from_name(integrator, AdaptiveConfig::default()).unwrap();
    scene.simulation.step = dt;
    // The Cartesian model's integrators (the joint-coordinate run: host/tests/suite/tree_loops.rs).
    scene.simulation.formulation = Formulation::Cartesian;
    let mut sim = compile(&scene).unwrap();
    let energy = |sim: &ferrodyn_host::simulation::Simulation| sim.energy().unwrap().total();
    let e0 = energy(&sim);
    let mut run = Run {
        max_phi: 0.0,
        max_gain: 0.0,
        max_loss: 0.0,
    };
    for _ in 0..(10.0 / dt).round() as usize {
        sim.step().unwrap();
        let (model, data) = sim.rigid().unwrap();
        run.max_phi = run
            .max_phi
            .max(ferrodyn_kernel::rigid::violation(model, data).position);
        let de = energy(&sim) - e0;
        run.max_gain = run.max_gain.max(de);
        run.max_loss = run.max_loss.max(-de);
    }
    run
}

#[test]
fn four_bar_runs_ten_seconds_with_rk4_bdf2_and_generalized_alpha() {
    // The energy scale: the potential energy released between the start (crank at 60°) and
    // the lowest configuration, the largest kinetic energy the linkage can reach.
    let start = std::f64::consts::FRAC_PI_3;
    let scale = potential(start) - potential(lowest());
    // RK4 conserves energy to its truncation error.
    let rk4 = run_with("rk4", 1e-3);
    let drift = rk4.max_gain.max(rk4.max_loss) / scale;
    println!(
        "rk4 1 ms: max |Φ| {:.2e}, max |ΔE| {drift:.2e} of {scale:.4} J",
        rk4.max_phi
    );
    assert!(rk4.max_phi <= 1e-10, "rk4: max |Φ| {:e}", rk4.max_phi);
    assert!(drift <= 1e-6, "rk4: relative energy drift {drift:e}");
    // BDF2 and generalized-α (ρ∞ = 0.8) dissipate by design, so their energy is not held to
    // 1e-6: the loss must shrink with the step at the methods' order (the numerical damping
    // ratio of BDF2 is O((ωh)³), 8× less for half the step; seen here 5.5×, generalized-α 4.9×).
    for integrator in ["bdf2", "generalized-alpha"] {
        let (coarse, fine) = (run_with(integrator, 1e-3), run_with(integrator, 5e-4));
        let ratio = coarse.max_loss / fine.max_loss;
        println!(
            "{integrator}: max |Φ| {:.2e}; energy lost {:.2e} (1 ms) and {:.2e} (0.5 ms) of {scale:.4} J, ratio {ratio:.2}; largest gain {:.1e} / {:.1e} J",
            coarse.max_phi.max(fine.max_phi),
            coarse.max_loss / scale,
            fine.max_loss / scale,
            coarse.max_gain, fine.max_gain
        );
        assert!(coarse.max_phi.max(fine.max_phi) <= 1e-10, "{integrator}: max |Φ|");
        assert!(ratio > 3.5, "{integrator}: loss ratio {ratio}");
        // What they gain on the way is their second-order error in energy: 4× less for half
        // the step, and far below what they dissipate.
        let gain_ratio = coarse.max_gain / fine.max_gain;
        assert!(gain_ratio > 3.0, "{integrator}: gain ratio {gain_ratio}");
        assert!(
            coarse.max_gain < 0.1 * coarse.max_loss,
            "{integrator} gains energy"
        );
    }
}

/// Positions of A and B and the link angles at crank angle `theta` (B above the line AO₄),
/// by intersecting the coupler and rocker circles.
fn closure(theta: f64) -> ([f64; 2], [f64; 2], [f64; 3]) {
    let a = [CRANK * theta.cos(), CRANK * theta.sin()];
    let (dx, dy) = (GROUND - a[0], -a[1]);
    let d = dx.hypot(dy);
    let along = (COUPLER * COUPLER - ROCKER * ROCKER + d * d) / (2.0 * d);
    let h = (COUPLER * COUPLER - along * along).sqrt();
    let b = [a[0] + (along * dx - h * dy) / d, a[1] + (along * dy + h * dx) / d];
    let angles = [theta, (b[1] - a[1]).atan2(b[0] - a[0]), b[1].atan2(b[0] - GROUND)];
    (a, b, angles)
}

/// Potential energy of the links (uniform rods, CG at mid-length) at crank angle `theta`.
fn potential(theta: f64) -> f64 {
    let (a, b, _) = closure(theta);
    let heights = [a[1] / 2.0, (a[1] + b[1]) / 2.0, b[1] / 2.0];
    let masses = [CRANK, COUPLER, ROCKER].map(|l| DENSITY * l);
    GRAVITY * masses.iter().zip(heights).map(|(m, y)| m * y).sum::<f64>()
}

/// dV/dθ by central differences (error O(h²) ≈ 1e-10 of V).
fn slope(theta: f64) -> f64 {
    let h = 1e-5;
    (potential(theta + h) - potential(theta - h)) / (2.0 * h)
}

/// The crank angle of least potential energy within 0.2 rad of `guess`: the root of dV/dθ,
/// bracketed and bisected to round-off.
fn equilibrium(guess: f64) -> f64 {
    let (mut lo, mut hi) = (guess - 0.2, guess + 0.2);
    assert!(slope(lo) < 0.0 && slope(hi) > 0.0, "no minimum near {guess}");
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if slope(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The crank angle of least potential energy over a whole turn.
fn lowest() -> f64 {
    let grid = (0..360).map(|k| k as f64 * std::f64::consts::PI / 180.0);
    let coarse = grid
        .min_by(|a, b| potential(*a).total_cmp(&potential(*b)))
        .unwrap();
    equilibrium(coarse)
}

/// Solves the square system `m x = r` by Gaussian elimination with partial pivoting.
fn solve(mut m: Vec<Vec<f64>>, mut r: Vec<f64>) -> Vec<f64> {
    let n = r.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))
            .unwrap();
        m.swap(c, p);
        r.swap(c, p);
        let (pivot_rows, below) = m.split_at_mut(c + 1);
        let pivot = &pivot_rows[c];
        for (i, row) in below.iter_mut().enumerate() {
            let f = row[c] / pivot[c];
            for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * p;
            }
            r[c + 1 + i] -= f * r[c];
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        x[i] = (r[i] - (i + 1..n).map(|k| m[i][k] * x[k]).sum::<f64>()) / m[i][i];
    }
    x
}

/// Pin forces at equilibrium crank angle `theta`, each on the second body of its joint:
/// F1 (ground → crank at O₂), F2 (crank → coupler at A), F3 (coupler → rocker at B),
/// F4 (ground → rocker at O₄). Planar statics, 3 equations per link, 9 in all for 8 unknowns:
/// the crank's moment equation is the equilibrium condition itself, so the other 8 are solved
/// and it is checked.
fn static_pin_forces(theta: f64) -> [[f64; 2]; 4] {
    let (a, b, _) = closure(theta);
    let (o2, o4) = ([0.0, 0.0], [GROUND, 0.0]);
    let mid = |p: [f64; 2], q: [f64; 2]| [(p[0] + q[0]) / 2.0, (p[1] + q[1]) / 2.0];
    let (c1, c2, c3) = (mid(o2, a), mid(a, b), mid(o4, b));
    // Unknowns x = [F1x F1y F2x F2y F3x F3y F4x F4y]. Each link: Σ ±F + w = 0 and
    // Σ (p − c) × (±F) = 0 about its CG c, with (p−c) × f = (p−c)_x f_y − (p−c)_y f_x.
    // (link length, CG, [(pin point, unknown force, sign on this link); 2])
    let links = [
        (CRANK, c1, [(o2, 0, 1.0), (a, 1, -1.0)]),
        (COUPLER, c2, [(a, 1, 1.0), (b, 2, -1.0)]),
        (ROCKER, c3, [(b, 2, 1.0), (o4, 3, 1.0)]),
    ];
    let mut rows = vec![vec![0.0; 8]; 9];
    let mut rhs = vec![0.0; 9];
    for (k, (length, c, pins)) in links.into_iter().enumerate() {
        rhs[3 * k + 1] = DENSITY * length * GRAVITY;
        for (p, force, sign) in pins {
            rows[3 * k][2 * force] = sign;
            rows[3 * k + 1][2 * force + 1] = sign;
            rows[3 * k + 2][2 * force] = -(p[1] - c[1]) * sign;
            rows[3 * k + 2][2 * force + 1] = (p[0] - c[0]) * sign;
        }
    }
    let crank_moment = rows.remove(2);
    rhs.remove(2);
    let x = solve(rows, rhs);
    let residual: f64 = crank_moment.iter().zip(&x).map(|(m, f)| m * f).sum();
    assert!(
        residual.abs() < 1e-9,
        "the crank is not in equilibrium: {residual:e} N·m"
    );
    [[x[0], x[1]], [x[2], x[3]], [x[4], x[5]], [x[6], x[7]]]
}

#[test]
fn settled_reactions_equal_the_static_solution() {
    settle_with("rk4");
}

/// Generalized-α runs the scene on the implicit multibody solver: its rigid bodies are still
/// settled, their reactions recorded and their redundant rows named as the explicit path does.
#[test]
fn generalized_alpha_settles_to_the_static_solution() {
    settle_with("generalized-alpha");
}

#[test]
fn generalized_alpha_names_the_redundant_rows_and_reactions_of_rk4() {
    let compiled = |integrator: &str| {
        let mut scene = scene();
        scene.simulation.integrator =
            IntegratorSpec::from_name(integrator, AdaptiveConfig::default()).unwrap();
        compile(&scene).unwrap()
    };
    let (mut explicit, mut implicit) = (compiled("rk4"), compiled("generalized-alpha"));
    // What `run` prints before the first step: the rows the initial factorization found.
    let rows = |sim: &ferrodyn_host::simulation::Simulation| {
        let (model, data) = sim.rigid().unwrap();
        redundant_rows(model, data)
    };
    assert_eq!(rows(&implicit), rows(&explicit));
    assert_eq!(rows(&implicit).len(), 3, "{:?}", rows(&implicit));
    // The reactions recorder evaluates the rigid data in place: the same assembled state gives
    // the same reactions.
    let reactions = |sim: &mut ferrodyn_host::simulation::Simulation| {
        let (model, data) = sim.rigid_mut().expect("rigid bodies to evaluate");
        joint_reactions(model, data).unwrap()
    };
    assert_eq!(reactions(&mut implicit), reactions(&mut explicit));
}

/// Settles the scene with `integrator` and checks the rest state and its reactions against
/// the independent static solution.
fn settle_with(integrator: &str) {
    let mut scene = scene();
    scene.simulation.integrator = IntegratorSpec::from_name(integrator, AdaptiveConfig::default()).unwrap();
    let mut sim = compile(&scene).unwrap();
    let mut method = HostMethod::new(&scene.simulation.integrator).unwrap();
    let (model, data) = sim.rigid_mut().unwrap();
    let tolerance = 1e-9 * GRAVITY;
    let rest = settle(model, data, &mut method, 1e-3, tolerance, 120.0).unwrap();
    assert!(rest.acceleration <= tolerance, "{rest:?}");
    assert!(data.velocity(0).norm() == 0.0, "left at rest");
    // The crank angle reached, against the independent minimum of the potential energy.
    let crank_axis = data.orientation(0).rotate(Vec3::X);
    let theta = crank_axis.y.atan2(crank_axis.x);
    let reference = equilibrium(theta);
    println!(
        "settled in {:.2} s, {} resets, RMS acceleration {:.2e} m/s²: crank {theta:.12} rad, minimum of V at {reference:.12} rad",
        rest.time, rest.resets, rest.acceleration
    );
    assert!((theta - reference).abs() < 1e-7, "crank {theta} vs {reference}");
    let expected = static_pin_forces(reference);
    let reactions = joint_reactions(model, data).unwrap();
    let scale = expected.iter().map(|f| f[0].hypot(f[1])).fold(0.0, f64::max);
    for (k, (r, e)) in reactions.iter().zip(&expected).enumerate() {
        let error = (r.force.x - e[0]).hypot(r.force.y - e[1]);
        println!(
            "  joint {k}: ours [{:.9}, {:.9}] N, static [{:.9}, {:.9}] N",
            r.force.x, r.force.y, e[0], e[1]
        );
        assert!(error <= 1e-6 * scale, "joint {k}: {:?} vs {e:?}", r.force);
        assert!(
            r.force.z.abs() <= 1e-9 * scale,
            "joint {k}: out-of-plane {}",
            r.force.z
        );
    }
    // The redundant rows (out of plane, rocker_pivot) carry nothing.
    let report = dof_report(model, data).unwrap();
    assert_eq!(report.redundant.len(), 3);
}

#[test]
fn conflicting_pivots_are_an_error_naming_the_joint() {
    // The rocker's ground pivot 1 mm out of the plane: its out-of-plane rows depend on the other
    // joints' rows but read 1 mm, which no configuration removes.
    let text = std::fs::read_to_string(scene_path()).unwrap().replace(
        "frame_i = { origin = [0.3, 0.0, 0.0], axis",
        "frame_i = { origin = [0.3, 0.0, 0.001], axis",
    );
    let path = std::env::temp_dir().join(format!("ferrodyn-four-bar-conflict-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let scene = Scene::load(&path).unwrap();
    let message = match compile(&scene) {
        Ok(_) => panic!("a conflicting pivot must be refused"),
        Err(e) => e.to_string(),
    };
    println!("{message}");
    assert!(message.contains("rocker_pivot"), "{message}");
    assert!(message.contains("conflicts"), "{message}");
    let _ = std::fs::remove_file(path);
}
