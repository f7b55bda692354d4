//! Our side of the four-bar peer comparison (`benches/peers/four_bar.sh`): scenes/four_bar.toml
//! on the joint-coordinate tree (its last joint closing the loop as constraint rows) and in
//! Cartesian coordinates, RK4 at 1 ms from the scene's initial state, the kernel's step alone
//! (no host mirror, no recorder): CPU time per step (best of `repeats` runs of 2 s) and the
//! closure error after 2 s, one JSON line per formulation.
//!
//! ```sh
//! cargo run --release --features examples --example four_bar_peers -- scenes/four_bar.toml 5
//! ```

use ferrodyn::host::compile::{choose, compile, tree_parts, Choice};
use ferrodyn::host::scene::Scene;
use ferrodyn::host::spec::Formulation;
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::rigid::violation;
use ferrodyn::kernel::tree::loop_residual;
use ferrodyn::kernel::{step, Dynamics};
use serde_json::json;
use std::path::Path;

#[path = "../tests/suite/common/cpu_time.rs"]
mod cpu_time;
use cpu_time::cpu_seconds;

/// Step (s) and simulated time (s) of every run.
const DT: f64 = 1e-3;
const SECONDS: f64 = 2.0;

/// The CPU time per step (s), best of `repeats` runs from `fresh`, and the state after one run.
fn time<M: Dynamics<f64>>(
    model: &M,
    fresh: &M::Data,
    repeats: usize,
) -> Result<(f64, M::Data), Box<dyn std::error::Error>>
where
    M::Data: Clone,
{
    let steps = (SECONDS / DT).round() as usize;
    let (mut best, mut last) = (f64::INFINITY, fresh.clone());
    for _ in 0..repeats {
        let mut data = fresh.clone();
        let start = cpu_seconds();
        for _ in 0..steps {
            step(model, &mut data, &mut Rk4, std::hint::black_box(DT))?;
        }
        best = best.min((cpu_seconds() - start) / steps as f64);
        last = data;
    }
    Ok((best, last))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).map_or("scenes/four_bar.toml", String::as_str);
    let repeats = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let scene = Scene::load(Path::new(path))?;

    let Choice::Tree(links) = choose(&scene)? else {
        return Err(format!("{path}: not a tree in joint coordinates").into());
    };
    let parts = tree_parts(&scene, &links)?;
    let fresh = parts.initial_data()?;
    let (cpu, data) = time(&parts.model, &fresh, repeats)?;
    // The loop joint's rows: its three point rows and two axis rows (0 for the planar motion).
    let closure = loop_residual(&parts.model, &data);
    // The crank's angle from +x (its joint turns it from the scene's initial 60°), to set
    // beside MuJoCo's: how far a soft loop's motion departs from the rigid one.
    let crank = std::f64::consts::FRAC_PI_3 + data.positions()[0];
    println!(
        "{}",
        json!({"engine": "ferrodyn tree", "time_per_step_s": cpu, "closure_after_2s": closure,
               "crank_angle_after_2s": crank,
               "note": "joint coordinates, loop rows solved with the mass matrix, projected after every step"})
    );

    let mut cartesian = scene.clone();
    cartesian.simulation.formulation = Formulation::Cartesian;
    let mut sim = compile(&cartesian)?;
    let (model, fresh) = sim.rigid_mut().ok_or("no Cartesian model")?;
    let (model, fresh) = (model.clone(), fresh.clone());
    let (cpu, data) = time(&model, &fresh, repeats)?;
    println!(
        "{}",
        json!({"engine": "ferrodyn Cartesian", "time_per_step_s": cpu,
               "closure_after_2s": violation(&model, &data).position,
               "note": "6 coordinates per body, every joint a constraint, projected after every step"})
    );
    Ok(())
}
