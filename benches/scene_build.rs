//! Time to build a scene of n rigid bodies: parse and check its TOML text (`Scene::parse`),
//! then compile it into a simulation at its initial state (`compile`: formulation, the
//! Cartesian mirror assembled, the kernel tree and its data). Chains (each rod on the one
//! before) and stars (every rod on the ground), both in joint coordinates. One build per size:
//! at 10⁵ and more a build takes seconds, and its growth with n (linear, or not) is what this
//! shows. docs/performance.md ("Scene build") has the figures.
//!
//! Every size is parsed from its TOML text (a 10⁶-body file is about 330 MB: the CLI reads it
//! with `--max-scene-size 1G`).
//!
//! Run: `cargo bench -p ferrodyn-benches --bench scene_build` (sizes 10³, 10⁴, 10⁵), or name the sizes:
//! `cargo bench -p ferrodyn-benches --bench scene_build -- 10000 100000 1000000`.

#[path = "../tests/suite/common/cpu_time.rs"]
mod cpu_time;
#[path = "../tests/suite/common/large_scene.rs"]
mod large_scene;

use cpu_time::cpu_seconds;
use ferrodyn::host::compile::compile;
use ferrodyn::host::scene::Scene;
use large_scene::{rods, Shape};
use std::path::Path;
use std::time::Instant;

fn main() {
    // cargo bench passes `--bench`; every argument that is a number is a size.
    let mut sizes: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![1_000, 10_000, 100_000];
    }
    println!("shape    bodies   parse+check (s)           compile (s)   compile/body (µs)   compile wall (s)   peak RSS (MB)");
    for n in sizes {
        for (shape, name) in [(Shape::Chain, "chain"), (Shape::Star, "star")] {
            let text = rods(n, shape);
            let (start, wall) = (cpu_seconds(), Instant::now());
            let scene = Scene::parse(Path::new("rods.toml"), &text).expect("the scene parses");
            let parsed = format!(
                "{:.3} ({:.3} wall)",
                cpu_seconds() - start,
                wall.elapsed().as_secs_f64()
            );
            drop(text);
            let (start, wall) = (cpu_seconds(), Instant::now());
            let sim = compile(&scene).expect("the scene compiles");
            let (compiled, wall) = (cpu_seconds() - start, wall.elapsed().as_secs_f64());
            assert_eq!(sim.state().len(), 2 * n);
            println!(
                "{name:<7} {n:>8}   {parsed:>23}   {compiled:>11.3}   {:>17.2}   {wall:>16.3}   {:>13.0}",
                compiled / n as f64 * 1e6,
                peak_rss_mb()
            );
        }
    }
}

/// The process's peak resident memory so far (MB; 0 where /proc is not there).
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok());
    kb.unwrap_or(0.0) / 1e3
}
