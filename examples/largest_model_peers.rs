//! Our side of the largest-model peer comparison (`benches/peers/largest_model.sh`): the
//! largest model of the import corpus by joint count, its import time and its step time.
//!
//! - import: `ferrodyn import`'s work in-process (the model file read and turned into a scene,
//!   the scene's TOML written to a string), and import + `compile` (what `ferrodyn run MODEL`
//!   does before its first step); CPU time, best of `repeats`.
//! - step: the joint-coordinate tree, RK4 at 1 ms for 1 s in zero gravity (under gravity the
//!   hanging humanoid's limbs whip up to 170 rad/s and the motion is chaotic: MuJoCo's own run
//!   moved by 1e-12 at the start parts by 8 rad after 1 s, so the two engines' end positions
//!   would say nothing; gravity costs nothing in the step), the kernel's step alone
//!   (no host mirror, no recorder), the free motion of the robot alone: joint dampers, springs,
//!   limits, actuator ports and couplings removed, as MuJoCo runs with damping, stiffness,
//!   armature, limits, actuation and contacts off (`largest_model_mujoco.py`). The start is the
//!   spread of angles and rates of `import_free_motion.rs`; the end positions go out with the
//!   times so that the MuJoCo script can say how far the two trajectories are apart.
//!
//! One JSON line on stdout: joints (names, link order), q0, v0, q after 1 s, the CPU times.
//!
//! ```sh
//! cargo run --release --features examples --example largest_model_peers -- MODEL.xml 5
//! ```

use ferrodyn::host::compile::{choose, compile, tree_parts, Choice};
use ferrodyn::host::import::{import, ImportOptions};
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::{step, Dynamics};
use serde_json::json;
use std::path::Path;

#[path = "../tests/suite/common/cpu_time.rs"]
mod cpu_time;
use cpu_time::cpu_seconds;

/// Step (s) and steps: 1 s at 1 ms.
const DT: f64 = 1e-3;
const STEPS: usize = 1000;

/// The best CPU time (s) of `repeats` calls of `work`.
fn best_of(
    repeats: usize,
    mut work: impl FnMut() -> Result<(), Box<dyn std::error::Error>>,
) -> Result<f64, Box<dyn std::error::Error>> {
    let mut best = f64::INFINITY;
    for _ in 0..repeats {
        let start = cpu_seconds();
        work()?;
        best = best.min(cpu_seconds() - start);
    }
    Ok(best)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = Path::new(args.get(1).ok_or("usage: largest_model_peers MODEL [repeats]")?);
    let repeats = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let options = ImportOptions::default();
    let out = Path::new("scene.toml");

    let import_cpu = best_of(repeats, || {
        let imported = import(path, &options)?;
        std::hint::black_box(imported.toml(out));
        Ok(())
    })?;
    let compile_cpu = best_of(repeats, || {
        std::hint::black_box(compile(&import(path, &options)?.scene)?);
        Ok(())
    })?;

    let mut scene = import(path, &options)?.scene;
    scene.forces.clear();
    scene.inputs.clear();
    scene.couplings.clear();
    scene.simulation.gravity = Vec3::ZERO;
    let Choice::Tree(links) = choose(&scene)? else {
        return Err(format!("{}: not a tree in joint coordinates", path.display()).into());
    };
    if links.iter().any(|l| l.joint.is_none()) {
        return Err(format!(
            "{}: a floating base (a fixed-base model is expected)",
            path.display()
        )
        .into());
    }
    let parts = tree_parts(&scene, &links)?;
    let n = links.len();
    let q0: Vec<f64> = (0..n).map(|k| 0.3 * (k as f64 + 1.0).sin()).collect();
    let v0: Vec<f64> = (0..n).map(|k| 1.5 * (2.0 * k as f64 + 1.0).cos()).collect();
    let mut fresh = parts.model.new_data();
    for k in 0..n {
        fresh.set_joint_position(&parts.model, k, &[q0[k]])?;
        fresh.set_joint_velocity(&parts.model, k, &[v0[k]])?;
    }
    let mut end = fresh.clone();
    let step_cpu = best_of(repeats, || {
        let mut data = fresh.clone();
        for _ in 0..STEPS {
            step(&parts.model, &mut data, &mut Rk4, std::hint::black_box(DT))?;
        }
        end = data;
        Ok(())
    })? / STEPS as f64;
    let joints: Vec<&str> = links
        .iter()
        .filter_map(|l| l.joint.map(|j| scene.joints[j].name.as_str()))
        .collect();
    println!(
        "{}",
        json!({"engine": "ferrodyn tree", "model": path, "joints": joints, "step": DT, "steps": STEPS,
               "gravity": scene.simulation.gravity.to_array(), "q0": q0, "v0": v0, "q": end.positions(),
               "import_cpu_s": import_cpu, "import_compile_cpu_s": compile_cpu,
               "time_per_step_s": step_cpu, "repeats": repeats})
    );
    Ok(())
}
