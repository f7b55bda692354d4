//! Cost of one HHT-α step (α = −0.05, dt = 1e-3 s) of the coupled rigid + flexible solver: a
//! rigid hub on a revolute joint, driven at 20 rad/s by a motor, carrying an ANCF box beam
//! (1 m × 0.1 m × 0.1 m, SVK E = 1e8 Pa, ρ = 1000 kg/m³, root face attached to the hub) as in
//! `scenes/spinning_beam.toml`, meshed 10×2×2, 50×2×2 and 280×2×2 cells (6 tets each) for about
//! 1k, 5k and 30k DOF (12 per node + 6 for the hub), the sizes of `implicit_cantilever`.
//! The scene goes through the same path as `ferrodyn run`: `Scene::parse` and `compile`;
//! `newton_tol = 1e-8` (see NEWTON_TOL).
//!
//! Run: `cargo bench -p ferrodyn-benches --bench implicit_multibody`
//! Before the criterion group a summary prints the CPU time per step of each size and its
//! ratio per DOF to the 1k case, from the same run.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use ferrodyn::host::compile::compile;
use ferrodyn::host::scene::Scene;
use ferrodyn::host::simulation::Simulation;
use std::path::Path;
use std::time::Duration;

#[path = "../tests/suite/common/cpu_time.rs"]
mod cpu_time;
use cpu_time::cpu_seconds;

const SIZES: [usize; 3] = [10, 50, 280];
/// Steps taken before timing: the first steps start from rest and take more Newton work.
const WARM_UP_STEPS: usize = 3;
/// Newton's force-residual ratio. At 30k DOF the default 1e-10 is below the round-off floor
/// of the residual (it stalls near 1.3e-10 on the first step), so all sizes use 1e-8.
const NEWTON_TOL: f64 = 1e-8;

fn scene_text(cells: usize) -> String {
    format!(
        r#"
[simulation]
end_time = 100.0
step = 1e-3
integrator = "hht"
output_interval = 1e-3

[simulation.implicit]
alpha = -0.05
newton_tol = {NEWTON_TOL:e}

[[body]]
id = 1
name = "hub"
mass = 20.0
inertia = {{ Ixx = 0.05, Iyy = 0.05, Izz = 0.1 }}
pos = [-0.1, 0.05, 0.05]
angular_velocity = [0.0, 0.0, 20.0]

[[joint]]
name = "axle"
type = "revolute"
body_i = "ground"
body_j = "hub"
frame_i = {{ origin = [-0.1, 0.05, 0.05], axis = [0.0, 0.0, 1.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}

[[drive]]
name = "motor"
body_i = "ground"
body_j = "hub"
frame_i = {{ origin = [-0.1, 0.05, 0.05], axis = [0.0, 0.0, 1.0] }}
frame_j = {{ origin = [0.0, 0.0, 0.0], axis = [0.0, 0.0, 1.0] }}
coordinate = "rotation"
function = {{ ramp = {{ start = 0.0, initial = 0.0, slope = 20.0 }} }}

[[flexible]]
name = "beam"
box = {{ origin = [0.0, 0.0, 0.0], size = [1.0, 0.1, 0.1], divisions = [{cells}, 2, 2] }}
material = {{ law = "svk", E = 1e8, nu = 0.3, rho = 1000.0 }}
attach = {{ group = "xmin", body = "hub" }}
"#
    )
}

/// The compiled scene after the warm-up steps, and its DOF (12 per node + 6 for the hub).
fn spinning(cells: usize) -> (Simulation, usize) {
    let scene = Scene::parse(Path::new("implicit_multibody.toml"), &scene_text(cells)).unwrap();
    let mut sim = compile(&scene).unwrap();
    for _ in 0..WARM_UP_STEPS {
        sim.step().unwrap();
    }
    let dof = sim.flexible().unwrap().coordinates.len() + 6;
    (sim, dof)
}

fn summary() {
    println!("coupled hub + ANCF beam, HHT-α (α = −0.05), dt = 1e-3 s, CPU time per step");
    let mut first: Option<(usize, f64)> = None;
    for cells in SIZES {
        let (mut sim, dof) = spinning(cells);
        let reps = if dof > 20_000 { 5 } else { 20 };
        let start = cpu_seconds();
        for _ in 0..reps {
            sim.step().unwrap();
        }
        let per_step = (cpu_seconds() - start) / reps as f64;
        let (d0, t0) = *first.get_or_insert((dof, per_step));
        println!(
            "  [{cells}, 2, 2]: {dof} DOF, {:.1} ms per step, {:.2} µs per DOF, time/DOF ratio to {d0} DOF: {:.2}",
            per_step * 1e3,
            per_step / dof as f64 * 1e6,
            (per_step / dof as f64) / (t0 / d0 as f64)
        );
        if let Some(report) = sim.solver_report() {
            println!("    {report}");
        }
    }
}

fn benches(c: &mut Criterion) {
    summary();
    let mut group = c.benchmark_group("implicit_multibody");
    // A 30k-DOF step takes most of a second: flat sampling runs each of the 10 samples once
    // instead of criterion's 1 + 2 + … + 10 ramp.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for cells in SIZES {
        let (mut sim, dof) = spinning(cells);
        group.bench_function(BenchmarkId::new("hht_step", dof), |b| {
            b.iter(|| sim.step().unwrap())
        });
    }
    group.finish();
}

criterion_group!(implicit_multibody, benches);
criterion_main!(implicit_multibody);
