//! The benchmark models shared with the peer engines (MuJoCo, Pinocchio, Exudyn), and our side
//! of the peer comparison in `benches/peers/`.
//!
//! ```sh
//! cargo run --release --features examples --example peer_models -- models target/peers/models.json
//! cargo run --release --features examples --example peer_models -- run target/peers/models.json target/peers/ours.json
//! ```
//!
//! `models` writes every model (pendulum, revolute chains, a floating-base tree: lengths, masses,
//! inertias, initial angles, gravity, dt, step counts) as JSON, so that the Python peers build exactly the same
//! systems (`tests/suite/peer_models_json.rs` checks the JSON against the kernel models). `run` reads
//! that JSON back and, for every model and integrator (RK4, semi-implicit Euler), measures the
//! wall time per step (best of a few repeats of the timing run, from the initial state) and the
//! accuracy over a separate run: energy drift, constraint violation and, for the pendulum, the
//! period against the elliptic-integral period.

use ferrodyn::host::storage::TreeModel;
use ferrodyn::kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn::kernel::math::{Mat3, Vec3};
use ferrodyn::kernel::rigid::{self, BodyRef, Data, Model};
use ferrodyn::kernel::samples::{
    revolute_chain, revolute_chain_tree, simple_pendulum, ChainSpec, PendulumCapacities, GRAVITY,
};
use ferrodyn::kernel::tree::{self, Link};
use ferrodyn::kernel::{
    step, Dynamics, Energy, ExternalForces, Fixed, Integrator, KernelError, StepStats, Storage,
};
use serde_json::{json, Value};
use std::time::Instant;

#[path = "../tests/suite/common/cpu_time.rs"]
mod cpu_time;
use cpu_time::cpu_seconds;

/// Time step of every benchmark model (s).
pub const DT: f64 = 1e-3;
/// Chain sizes of the comparison.
pub const CHAIN_LINKS: [usize; 4] = [5, 20, 50, 100];
/// Pendulum: mass (kg), rod length (m), release angle from the downward vertical (rad), bob
/// radius (m; its spin is decoupled in our model, so the motion is the point-mass pendulum).
pub const PENDULUM: (f64, f64, f64, f64) = (1.0, 1.0, std::f64::consts::FRAC_PI_2, 0.01);

/// The floating-base tree: legs × links per leg hinges on a free base.
pub const FLOATING: (usize, usize) = (4, 5);

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
    models.push(floating_json());
    json!({
        "gravity": [0.0, 0.0, -GRAVITY],
        "dt": DT,
        "integrators": ["rk4", "semi_implicit_euler"],
        "models": models,
    })
}

/// A 10 kg base (0.6 × 0.3 × 0.1 m box) on a free joint at the origin with legs of 0.5 kg,
/// 0.25 m rods (radius 10 mm) reaching out along ±x from its corners (±0.3, ±0.15, 0), hinged
/// about y, z, y, z, y in turn (a spatial tree: the 3-D algorithm), released at rest, all hinge
/// angles zero: it falls and its legs swing down.
fn floating_json() -> Value {
    let (legs, per_leg) = FLOATING;
    // Inertias (about the CG, link axes) rounded to a few digits, so the JSON text carries them
    // exactly: the base's are the box's, the rods' those of 0.25 m, 10 mm rods.
    let (base_mass, m, l) = (10.0, 0.5, 0.25);
    let rod = [2.5e-5, 2.6e-3, 2.6e-3];
    let mut links = Vec::new();
    for leg in 0..legs {
        let side = if leg % 2 == 0 { 1.0 } else { -1.0 };
        let corner = [0.3 * side, if leg < 2 { 0.15 } else { -0.15 }, 0.0];
        for k in 0..per_leg {
            let (parent, origin) = match k {
                0 => (-1, corner),
                _ => ((leg * per_leg + k - 1) as i64, [side * l, 0.0, 0.0]),
            };
            let axis = if k % 2 == 0 {
                [0.0, 1.0, 0.0]
            } else {
                [0.0, 0.0, 1.0]
            };
            links.push(
                json!({"parent": parent, "origin": origin, "axis": axis, "mass": m,
                "cg": [side * l / 2.0, 0.0, 0.0], "inertia": rod}),
            );
        }
    }
    json!({
        "name": format!("floating{}", legs * per_leg),
        "kind": "floating_tree",
        "links": legs * per_leg,
        "base": {"mass": base_mass, "inertia": [0.0833, 0.3083, 0.375]},
        "hinges": links,
        "energy_scale": 200.0,
        "timing_steps": 1000,
        "accuracy_duration": 3.0,
        "note": "base on a free joint at the origin (identity orientation, at rest); hinge k: parent -1 is the base, else hinge index; origin in the parent link's frame, which is parallel to the world at zero angles; cg and inertia (about the CG, link axes) in the link frame; energy drift relative to 200 J (about the total weight, 20 kg × g, times 1 m)"
    })
}

/// The floating-base tree of [`floating_json`] in joint coordinates, from its JSON entry.
pub fn floating_tree(entry: &Value) -> Result<TreeModel, Box<dyn std::error::Error>> {
    let v3 = |v: &Value| {
        Vec3::new(
            v[0].as_f64().unwrap_or(0.0),
            v[1].as_f64().unwrap_or(0.0),
            v[2].as_f64().unwrap_or(0.0),
        )
    };
    let mut b = tree::Model::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let base = &entry["base"];
    let mass = base["mass"].as_f64().ok_or("base mass")?;
    b.add_link(Link::free(None, Vec3::ZERO).with_mass(
        mass,
        Vec3::ZERO,
        Mat3::diagonal(v3(&base["inertia"])),
    ))?;
    for hinge in entry["hinges"].as_array().ok_or("hinges")? {
        // Link 0 is the base; hinge k is link k + 1.
        let parent = (hinge["parent"].as_i64().ok_or("parent")? + 1) as usize;
        let link = Link::revolute(Some(parent), v3(&hinge["origin"]), v3(&hinge["axis"]));
        let inertia = Mat3::diagonal(v3(&hinge["inertia"]));
        b.add_link(link.with_mass(hinge["mass"].as_f64().ok_or("mass")?, v3(&hinge["cg"]), inertia))?;
    }
    Ok(b.build()?)
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
/// scale of the relative energy drift (a model may give its own).
fn energy_scale(entry: &Value, links: usize) -> f64 {
    if let Some(scale) = entry["energy_scale"].as_f64() {
        scale
    } else if links == 0 {
        let (m, l, a, _) = PENDULUM;
        m * GRAVITY * l * (1.0 - a.cos())
    } else {
        // Σ m g (k + ½) l = m g l n²/2 for unit links.
        GRAVITY * (links * links) as f64 / 2.0
    }
}

/// What one pass of `peer_models` measures.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    /// CPU time per step: one timing run of `timing_steps` steps from the initial state (the
    /// rounds of `benches/peers/run.sh` alternate engines and take medians).
    Time,
    /// Energy drift, constraint violation and pendulum period over the accuracy run.
    Accuracy,
}

/// What the accuracy run reads of a state besides the energy: the constraint violation
/// (position, velocity; zero for the tree) and, for the pendulum, its angle and rate.
struct Probe {
    violation: (f64, f64),
    angle: (f64, f64),
}

/// Timing or accuracy of one model with one integrator, for either formulation.
fn measure<M, I>(
    model: &M,
    integrator: &I,
    links: usize,
    entry: &Value,
    pass: Pass,
    probe: impl Fn(&M::Data) -> Probe,
) -> Result<Value, Box<dyn std::error::Error>>
where
    M: Dynamics<f64>,
    M::Data: Clone,
    I: Integrator<f64> + Clone,
{
    let steps = entry["timing_steps"].as_u64().unwrap_or(1000) as usize;
    let duration = entry["accuracy_duration"].as_f64().unwrap_or(1.0);
    let fresh = Box::new(model.new_data());
    if pass == Pass::Time {
        let mut data = fresh.clone();
        let mut method = integrator.clone();
        let (mut evaluations, mut iterations) = (0u64, 0u64);
        let (cpu, wall) = (cpu_seconds(), Instant::now());
        for _ in 0..steps {
            let s = model.step(&mut data, &mut method, std::hint::black_box(DT))?;
            evaluations += u64::from(s.evaluations);
            iterations += u64::from(s.projection_iterations);
        }
        let wall = wall.elapsed().as_secs_f64() / steps as f64;
        let cpu = (cpu_seconds() - cpu) / steps as f64;
        std::hint::black_box(model.state(&data));
        return Ok(json!({
            "time_per_step_s": cpu,
            "wall_time_per_step_s": wall,
            "evaluations_per_step": evaluations as f64 / steps as f64,
            "projection_iterations_per_step": iterations as f64 / steps as f64,
            "timing_steps": steps,
        }));
    }
    // Accuracy: energy every step, violation every 10 steps, pendulum angle every step.
    let mut data = fresh.clone();
    let mut method = integrator.clone();
    let e0 = model.energy(&data)?.total();
    let (mut drift, mut violation, mut velocity_violation) = (0.0f64, 0.0f64, 0.0f64);
    let mut samples = Vec::new();
    let total = (duration / DT).round() as usize;
    for k in 0..=total {
        drift = drift.max((model.energy(&data)?.total() - e0).abs());
        let p = probe(&data);
        if k % 10 == 0 {
            violation = violation.max(p.violation.0);
            velocity_violation = velocity_violation.max(p.violation.1);
        }
        if links == 0 {
            samples.push((model.time(&data), p.angle.0, p.angle.1));
        }
        if k < total {
            model.step(&mut data, &mut method, DT)?;
        }
    }
    let mut out = json!({
        "accuracy_duration": duration,
        "energy_drift_abs": drift,
        "energy_drift_rel": drift / energy_scale(entry, links),
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

/// Both integrators on one model.
fn measure_both<M>(
    model: &M,
    links: usize,
    entry: &Value,
    pass: Pass,
    probe: impl Fn(&M::Data) -> Probe + Copy,
) -> Result<Value, Box<dyn std::error::Error>>
where
    M: Dynamics<f64>,
    M::Data: Clone,
{
    Ok(json!({
        "rk4": measure(model, &Rk4, links, entry, pass, probe)?,
        "semi_implicit_euler": measure(model, &SemiImplicitEuler, links, entry, pass, probe)?,
    }))
}

/// Probe of the Cartesian model: violation; the pendulum's angle from its bob (body 0).
fn cartesian_probe<St: Storage>(model: &Model<f64, St>) -> impl Fn(&Data<f64, St>) -> Probe + Copy + '_ {
    move |data| {
        let v = rigid::violation(model, data);
        let p = data.point_position(BodyRef::Body(0), Vec3::ZERO);
        let w = data.velocity(0);
        Probe {
            violation: (v.position, v.velocity),
            angle: (
                p.x.atan2(-p.z),
                (w.x * -p.z + p.x * w.z) / (p.x * p.x + p.z * p.z),
            ),
        }
    }
}

/// Probe of the tree: no constraint; the first joint's angle and rate.
fn tree_probe<St: Storage>(data: &tree::Data<f64, St>) -> Probe {
    Probe {
        violation: (0.0, 0.0),
        angle: (data.positions()[0], data.velocities()[0]),
    }
}

/// The pendulum in joint coordinates, as MuJoCo's: one hinge about −y at the origin, the bob a
/// point mass at (0, 0, −L) in the link frame (a negligible 1e-12 inertia, as in the MJCF).
fn pendulum_tree() -> Result<tree::Model<f64, Fixed<1>>, Box<dyn std::error::Error>> {
    let (m, l, _, _) = PENDULUM;
    let mut b = tree::Model::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let inertia = Mat3::diagonal(Vec3::new(1e-12, 1e-12, 1e-12));
    b.add_link(Link::revolute(None, Vec3::ZERO, -Vec3::Y).with_mass(m, Vec3::new(0.0, 0.0, -l), inertia))?;
    Ok(b.build()?)
}

/// One model in both formulations: `{"cartesian": {...}, "tree": {...}}`.
fn chain<const N: usize, const C: usize, const S: usize>(
    entry: &Value,
    pass: Pass,
) -> Result<Value, Box<dyn std::error::Error>> {
    let spec = ChainSpec::standard(N);
    let model: Box<Model<f64, Fixed<N, N, 0, C, S>>> = Box::new(revolute_chain(&spec)?);
    let tree_model: Box<tree::Model<f64, Fixed<N>>> = Box::new(revolute_chain_tree(&spec)?);
    Ok(json!({
        "cartesian": measure_both(&*model, N, entry, pass, cartesian_probe(&model))?,
        "tree": measure_both(&*tree_model, N, entry, pass, tree_probe)?,
    }))
}

fn run(models_path: &str, out_path: &str, passes: &[Pass]) -> Result<(), Box<dyn std::error::Error>> {
    let spec: Value = serde_json::from_str(&std::fs::read_to_string(models_path)?)?;
    if spec != models_json() {
        return Err(format!("{models_path} is not the models JSON of this build: regenerate it").into());
    }
    let mut results = serde_json::Map::new();
    for entry in spec["models"].as_array().into_iter().flatten() {
        let name = entry["name"].as_str().unwrap_or("?").to_string();
        let mut merged = json!({});
        for &pass in passes {
            let kind = entry["kind"].as_str().unwrap_or("?");
            let r = match entry["links"].as_u64().unwrap_or(0) {
                n if kind == "floating_tree" => {
                    let model = floating_tree(entry)?;
                    json!({"tree": measure_both(&model, n as usize, entry, pass, tree_probe)?})
                }
                0 => {
                    let (m, l, a, _) = PENDULUM;
                    let cartesian = simple_pendulum::<f64, PendulumCapacities>(m, l, a)?;
                    let tree_model = pendulum_tree()?;
                    let mut probe_data = tree_model.new_data();
                    probe_data.set_position(0, a)?;
                    json!({
                        "cartesian": measure_both(&cartesian, 0, entry, pass, cartesian_probe(&cartesian))?,
                        "tree": measure_both(&WithInitial(&tree_model, probe_data), 0, entry, pass, |d: &tree::Data<f64, Fixed<1>>| tree_probe(d))?,
                    })
                }
                5 => chain::<5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(entry, pass)?,
                20 => chain::<20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(entry, pass)?,
                50 => chain::<50, 250, { ChainSpec::<f64>::skyline_entries(50) }>(entry, pass)?,
                100 => chain::<100, 500, { ChainSpec::<f64>::skyline_entries(100) }>(entry, pass)?,
                n => return Err(format!("no chain of {n} links in this example").into()),
            };
            merge(&mut merged, r);
        }
        results.insert(name, merged);
    }
    let out = json!({
        "engine": "ferrodyn",
        "version": env!("CARGO_PKG_VERSION"),
        "formulations": {
            "cartesian": "maximal coordinates (7 per body), acceleration-level KKT (skyline Schur complement) + projection",
            "tree": "joint coordinates (kernel::tree), articulated-body algorithm (the floating tree on growable storage, as `ferrodyn run` has it)",
        },
        "models": results,
    });
    std::fs::write(out_path, serde_json::to_string_pretty(&out)?)?;
    Ok(())
}

/// Deep merge of JSON objects (`b` into `a`).
fn merge(a: &mut Value, b: Value) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(Value::Null), v);
            }
        }
        (a, b) => *a = b,
    }
}

/// A tree model whose fresh data starts from `initial` (the pendulum's release angle) rather
/// than from all joints at zero.
struct WithInitial<'m>(&'m tree::Model<f64, Fixed<1>>, tree::Data<f64, Fixed<1>>);

impl Dynamics<f64> for WithInitial<'_> {
    type Data = tree::Data<f64, Fixed<1>>;
    fn new_data(&self) -> Self::Data {
        self.1.clone()
    }
    fn step_with<I: Integrator<f64>, E: ExternalForces<f64>>(
        &self,
        data: &mut Self::Data,
        integrator: &mut I,
        dt: f64,
        external: &mut E,
    ) -> Result<StepStats, KernelError> {
        self.0.step_with(data, integrator, dt, external)
    }
    fn accept<E: ExternalForces<f64>>(
        &self,
        data: &mut Self::Data,
        external: &mut E,
    ) -> Result<(), KernelError> {
        self.0.accept(data, external)
    }
    fn time(&self, data: &Self::Data) -> f64 {
        self.0.time(data)
    }
    fn energy(&self, data: &Self::Data) -> Result<Energy<f64>, KernelError> {
        self.0.energy(data)
    }
    fn state<'d>(&self, data: &'d Self::Data) -> &'d [f64] {
        self.0.state(data)
    }
    fn set_state(&self, data: &mut Self::Data, state: &[f64]) -> Result<(), KernelError> {
        self.0.set_state(data, state)
    }
}

/// `profile-tree LINKS STEPS`: RK4 steps of the chain in joint coordinates from rest and
/// nothing else, for callgrind (`benches/peers/profile.sh`).
fn profile_tree(links: &str, steps: &str) -> Result<(), Box<dyn std::error::Error>> {
    fn go<const N: usize>(steps: usize) -> Result<(), Box<dyn std::error::Error>> {
        let model: Box<tree::Model<f64, Fixed<N>>> = Box::new(revolute_chain_tree(&ChainSpec::standard(N))?);
        let mut data = Box::new(model.new_data());
        for _ in 0..steps {
            step(&*model, &mut data, &mut Rk4, DT)?;
        }
        println!("{N} links in joint coordinates, {steps} RK4 steps");
        Ok(())
    }
    let steps: usize = steps.parse()?;
    match links.parse::<usize>()? {
        5 => go::<5>(steps),
        20 => go::<20>(steps),
        50 => go::<50>(steps),
        100 => go::<100>(steps),
        n => Err(format!("no chain of {n} links in this example").into()),
    }
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
        ["profile-tree", links, steps] => profile_tree(links, steps),
        ["run", models, out] => run(models, out, &[Pass::Time, Pass::Accuracy]),
        ["time", models, out] => run(models, out, &[Pass::Time]),
        ["accuracy", models, out] => run(models, out, &[Pass::Accuracy]),
        _ => Err::<(), Box<dyn std::error::Error>>(
            "usage: peer_models models OUT.json | peer_models run|time|accuracy MODELS.json OUT.json | peer_models profile[-tree] LINKS STEPS".into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
