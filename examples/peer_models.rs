//! The benchmark models shared with the peer engines (MuJoCo, Exudyn), and our side of the
//! peer comparison in `benches/peers/`.
//!
//! ```sh
//! cargo run --release --example peer_models -- models target/peers/models.json
//! cargo run --release --example peer_models -- run target/peers/models.json target/peers/ours.json
//! ```
//!
//! `models` writes every model (pendulum, revolute chains: lengths, masses, inertias, initial
//! angles, gravity, dt, step counts) as JSON, so that the Python peers build exactly the same
//! systems (`tests/peer_models_json.rs` checks the JSON against the kernel models). `run` reads
//! that JSON back and, for every model and integrator (RK4, semi-implicit Euler), measures the
//! wall time per step (best of a few repeats of the timing run, from the initial state) and the
//! accuracy over a separate run: energy drift, constraint violation and, for the pendulum, the
//! period against the elliptic-integral period.

use ferrodyn::kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::rigid::{self, BodyRef, Data, Model};
use ferrodyn::kernel::samples::{revolute_chain, simple_pendulum, ChainSpec, PendulumCapacities, GRAVITY};
use ferrodyn::kernel::{step, Fixed, Integrator, Storage};
use serde_json::{json, Value};
use std::time::Instant;

#[path = "../tests/common/cpu_time.rs"]
mod cpu_time;
use cpu_time::cpu_seconds;

/// Time step of every benchmark model (s).
pub const DT: f64 = 1e-3;
/// Chain sizes of the comparison.
pub const CHAIN_LINKS: [usize; 4] = [5, 20, 50, 100];
/// Pendulum: mass (kg), rod length (m), release angle from the downward vertical (rad), bob
/// radius (m; its spin is decoupled in our model, so the motion is the point-mass pendulum).
pub const PENDULUM: (f64, f64, f64, f64) = (1.0, 1.0, std::f64::consts::FRAC_PI_2, 0.01);

/// Steps of one timing run and the simulated duration of the accuracy run (s) of a model.
fn budget(links: usize) -> (usize, f64) {
    match links {
        0 => (5000, 10.0),
        l if l <= 20 => (1000, 5.0),
        _ => (1000, 3.0),
    }
}

/// Exact period of the simple pendulum released from rest at θ0 (A&S 17.6, AGM):
/// T = 4 √(L/g) K(sin(θ0/2)).
pub fn pendulum_period(length: f64, theta0: f64) -> f64 {
    let k = (theta0 / 2.0).sin();
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..30 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    4.0 * (length / GRAVITY).sqrt() * std::f64::consts::PI / (2.0 * a)
}

/// The JSON description of every benchmark model.
pub fn models_json() -> Value {
    let (mass, length, angle, radius) = PENDULUM;
    let (steps, duration) = budget(0);
    let mut models = vec![json!({
        "name": "pendulum",
        "kind": "pendulum",
        "mass": mass,
        "length": length,
        "initial_angle": angle,
        "bob_radius": radius,
        "exact_period": pendulum_period(length, angle),
        "timing_steps": steps,
        "accuracy_duration": duration,
        "note": "point mass on a massless rod from the ground origin, released from rest in the x-z plane"
    })];
    for links in CHAIN_LINKS {
        let spec = ChainSpec::<f64>::standard(links);
        let (m, l, r) = (spec.link_mass, spec.link_length, spec.link_radius);
        let (steps, duration) = budget(links);
        models.push(json!({
            "name": format!("chain{links}"),
            "kind": "revolute_chain",
            "links": links,
            "link_length": vec![l; links],
            "link_mass": vec![m; links],
            // Uniform rod as a thin cylinder, about its CG in link axes (x along the link).
            "link_inertia": vec![[m * r * r / 2.0, m * (3.0 * r * r + l * l) / 12.0, m * (3.0 * r * r + l * l) / 12.0]; links],
            "link_radius": r,
            "hinge_axis": [0.0, 1.0, 0.0],
            "initial_angles": vec![0.0; links],
            "timing_steps": steps,
            "accuracy_duration": duration,
            "note": "link k spans x in [k l, (k+1) l] at rest, CG at its middle; joint k at x = k l joins link k to link k-1 (or the ground); released horizontally from rest"
        }));
    }
    json!({
        "gravity": [0.0, 0.0, -GRAVITY],
        "dt": DT,
        "integrators": ["rk4", "semi_implicit_euler"],
        "models": models,
    })
}

/// Upward zero crossings of θ sampled as (t, θ, θ̇), by cubic Hermite interpolation.
fn upward_crossings(samples: &[(f64, f64, f64)]) -> Vec<f64> {
    let mut out = Vec::new();
    for w in samples.windows(2) {
        let ((t0, x0, v0), (t1, x1, v1)) = (w[0], w[1]);
        if x0 < 0.0 && x1 >= 0.0 {
            let h = t1 - t0;
            let p = |s: f64| {
                let (s2, s3) = (s * s, s * s * s);
                (2.0 * s3 - 3.0 * s2 + 1.0) * x0
                    + (s3 - 2.0 * s2 + s) * h * v0
                    + (-2.0 * s3 + 3.0 * s2) * x1
                    + (s3 - s2) * h * v1
            };
            let dp = |s: f64| {
                let s2 = s * s;
                (6.0 * s2 - 6.0 * s) * x0
                    + (3.0 * s2 - 4.0 * s + 1.0) * h * v0
                    + (-6.0 * s2 + 6.0 * s) * x1
                    + (3.0 * s2 - 2.0 * s) * h * v1
            };
            let mut s = x0 / (x0 - x1);
            for _ in 0..20 {
                s -= p(s) / dp(s);
            }
            out.push(t0 + s * h);
        }
    }
    out
}

/// Energy released when the model hangs straight down from rest at its initial height: the
/// scale of the relative energy drift.
fn energy_scale(links: usize) -> f64 {
    if links == 0 {
        let (m, l, a, _) = PENDULUM;
        m * GRAVITY * l * (1.0 - a.cos())
    } else {
        // Σ m g (k + ½) l = m g l n²/2 for unit links.
        GRAVITY * (links * links) as f64 / 2.0
    }
}

/// Timing and accuracy of one model with one integrator.
fn measure<I: Integrator<f64> + Clone, St: Storage>(
    model: &Model<f64, St>,
    integrator: &I,
    links: usize,
    entry: &Value,
) -> Result<Value, Box<dyn std::error::Error>> {
    let steps = entry["timing_steps"].as_u64().unwrap_or(1000) as usize;
    let duration = entry["accuracy_duration"].as_f64().unwrap_or(1.0);
    let fresh = Box::new(Data::new(model));
    // Timing: best of 3 runs of `steps` steps from the initial state, CPU and wall time.
    let (mut best, mut best_wall) = (f64::INFINITY, f64::INFINITY);
    let mut stats = Default::default();
    for _ in 0..3 {
        let mut data = fresh.clone();
        let mut method = integrator.clone();
        let (cpu, wall) = (cpu_seconds(), Instant::now());
        for _ in 0..steps {
            step(model, &mut data, &mut method, std::hint::black_box(DT))?;
        }
        best_wall = best_wall.min(wall.elapsed().as_secs_f64() / steps as f64);
        best = best.min((cpu_seconds() - cpu) / steps as f64);
        std::hint::black_box(data.state());
        stats = data.total_stats();
    }
    // Accuracy: energy every step, violation every 10 steps, pendulum angle every step.
    let mut data = fresh.clone();
    let mut method = integrator.clone();
    let e0 = rigid::energy(model, &data).total();
    let (mut drift, mut violation, mut velocity_violation) = (0.0f64, 0.0f64, 0.0f64);
    let mut samples = Vec::new();
    let total = (duration / DT).round() as usize;
    for k in 0..=total {
        drift = drift.max((rigid::energy(model, &data).total() - e0).abs());
        if k % 10 == 0 {
            let v = rigid::violation(model, &data);
            violation = violation.max(v.position);
            velocity_violation = velocity_violation.max(v.velocity);
        }
        if links == 0 {
            let p = data.point_position(BodyRef::Body(0), Vec3::ZERO);
            let v = data.velocity(0);
            let theta = p.x.atan2(-p.z);
            let rate = (v.x * -p.z + p.x * v.z) / (p.x * p.x + p.z * p.z);
            samples.push((data.time(), theta, rate));
        }
        if k < total {
            step(model, &mut data, &mut method, DT)?;
        }
    }
    let mut out = json!({
        "time_per_step_s": best,
        "wall_time_per_step_s": best_wall,
        "evaluations_per_step": f64::from(stats.evaluations) / steps as f64,
        "projection_iterations_per_step": f64::from(stats.projection_iterations) / steps as f64,
        "timing_steps": steps,
        "accuracy_duration": duration,
        "energy_drift_abs": drift,
        "energy_drift_rel": drift / energy_scale(links),
        "constraint_violation": violation,
        "constraint_velocity_violation": velocity_violation,
    });
    if links == 0 {
        let c = upward_crossings(&samples);
        if c.len() >= 2 {
            let period = (c[c.len() - 1] - c[0]) / (c.len() - 1) as f64;
            let exact = entry["exact_period"].as_f64().unwrap_or(f64::NAN);
            out["period"] = json!(period);
            out["period_error_rel"] = json!((period - exact).abs() / exact);
        }
    }
    Ok(out)
}

fn measure_both<St: Storage>(
    model: &Model<f64, St>,
    links: usize,
    entry: &Value,
) -> Result<Value, Box<dyn std::error::Error>> {
    Ok(json!({
        "rk4": measure(model, &Rk4, links, entry)?,
        "semi_implicit_euler": measure(model, &SemiImplicitEuler, links, entry)?,
    }))
}

fn chain<const N: usize, const C: usize, const S: usize>(
    entry: &Value,
) -> Result<Value, Box<dyn std::error::Error>> {
    let model: Box<Model<f64, Fixed<N, N, 0, C, S>>> = Box::new(revolute_chain(&ChainSpec::standard(N))?);
    measure_both(&*model, N, entry)
}

fn run(models_path: &str, out_path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(models_path)?)?;
    if spec != models_json() {
        return Err(format!("{models_path} is not the models JSON of this build: regenerate it").into());
    }
    let mut results = serde_json::Map::new();
    for entry in spec["models"].as_array().into_iter().flatten() {
        let name = entry["name"].as_str().unwrap_or("?").to_string();
        eprintln!("ours: {name}");
        let r = match entry["links"].as_u64().unwrap_or(0) {
            0 => {
                let (m, l, a, _) = PENDULUM;
                measure_both(&simple_pendulum::<f64, PendulumCapacities>(m, l, a)?, 0, entry)?
            }
            5 => chain::<5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(entry)?,
            20 => chain::<20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(entry)?,
            50 => chain::<50, 250, { ChainSpec::<f64>::skyline_entries(50) }>(entry)?,
            100 => chain::<100, 500, { ChainSpec::<f64>::skyline_entries(100) }>(entry)?,
            n => return Err(format!("no chain of {n} links in this example").into()),
        };
        results.insert(name, r);
    }
    let out = json!({
        "engine": "ferrodyn",
        "version": env!("CARGO_PKG_VERSION"),
        "formulation": "maximal coordinates, acceleration-level KKT (skyline Schur complement) + projection",
        "models": results,
    });
    std::fs::write(out_path, serde_json::to_string_pretty(&out)?)?;
    Ok(())
}

/// `profile LINKS STEPS`: RK4 steps of a chain from rest and nothing else, for callgrind
/// (`benches/peers/profile.sh`).
fn profile(links: &str, steps: &str) -> Result<(), Box<dyn std::error::Error>> {
    fn go<const N: usize, const C: usize, const S: usize>(
        steps: usize,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let model: Box<Model<f64, Fixed<N, N, 0, C, S>>> = Box::new(revolute_chain(&ChainSpec::standard(N))?);
        let mut data = Box::new(Data::new(&*model));
        for _ in 0..steps {
            step(&*model, &mut data, &mut Rk4, DT)?;
        }
        let s = data.total_stats();
        println!(
            "{N} links, {steps} RK4 steps: {} evaluations, {} projection iterations",
            s.evaluations, s.projection_iterations
        );
        Ok(())
    }
    let steps: usize = steps.parse()?;
    match links.parse::<usize>()? {
        5 => go::<5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(steps),
        20 => go::<20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(steps),
        50 => go::<50, 250, { ChainSpec::<f64>::skyline_entries(50) }>(steps),
        100 => go::<100, 500, { ChainSpec::<f64>::skyline_entries(100) }>(steps),
        n => Err(format!("no chain of {n} links in this example").into()),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["models", path] => serde_json::to_string_pretty(&models_json())
            .map_err(Into::into)
            .and_then(|s| std::fs::write(path, s).map_err(Into::into)),
        ["profile", links, steps] => profile(links, steps),
        ["run", models, out] => run(models, out),
        _ => Err::<(), Box<dyn std::error::Error>>(
            "usage: peer_models models OUT.json | peer_models run MODELS.json OUT.json | peer_models profile LINKS STEPS".into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
