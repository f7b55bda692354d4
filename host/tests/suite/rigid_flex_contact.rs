//! Contact between rigid shapes and flexible (ANCF) bodies through scene files:
//! scenes/sphere_on_plate.toml (a steel ball hitting a clamped rubber plate: momentum balance,
//! penetration against Hertz's rigid-plane depth, energy only lost) and
//! scenes/block_on_box.toml (a rubber block settling on a fixed steel box: the contact carries
//! m g and the block stays put), and named errors for what stays impossible.

use crate::common::tet_collision::total_force;
use ferrodyn_host::commands::{run, Overrides, RunOptions};
use ferrodyn_host::compile::{compile, coupled_contact, coupled_data, coupled_model, FlexibleParts};
use ferrodyn_host::contact::force::{effective_modulus, effective_radius};
use ferrodyn_host::contact::{FlexContacts, RigidFlexContact};
use ferrodyn_host::record::FLEX_SHAPE_CONTACT_COLUMNS;
use ferrodyn_host::scene::Scene;
use ferrodyn_host::simulation::{ContactModel, Simulation};
use ferrodyn_host::spec::Elastic;
use ferrodyn_kernel::ancf::Material;
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::{flex, rigid, step_with, Dynamics, ExternalForces, ExternalLoads};
use std::path::{Path, PathBuf};
use std::time::Instant;

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(name)
}

fn parse(name: &str, text: &str) -> Scene {
    Scene::parse(&scene_path(name), text).unwrap_or_else(|e| panic!("{e}"))
}

fn scene_text(name: &str) -> String {
    std::fs::read_to_string(scene_path(name)).unwrap()
}

/// E and ν of an ANCF material (from its Lamé parameters).
fn elastic(m: &Material<f64>) -> Elastic {
    Elastic {
        youngs_modulus: m.mu * (3.0 * m.lambda + 2.0 * m.mu) / (m.lambda + m.mu),
        poisson_ratio: m.lambda / (2.0 * (m.lambda + m.mu)),
    }
}

fn shape_contacts(flexible: &FlexContacts) -> &RigidFlexContact {
    flexible.shapes.as_ref().expect("shape contacts")
}

/// The scene's contacts with the impulses RK4 applies metered (stage weights 1, 2, 2, 1 over
/// 6, four stages a step): on the flexible nodes (read from their generalized forces) and on
/// the ball (the opposite of the shape contacts' node forces).
struct ImpulseMeter {
    contact: ContactModel,
    dt: f64,
    stage: usize,
    on_nodes: Vec3<f64>,
    on_ball: Vec3<f64>,
}

impl ImpulseMeter {
    fn flexible(&self) -> &FlexContacts {
        match &self.contact {
            ContactModel::Coupled { flexible, .. } => flexible,
            _ => panic!("a coupled contact model"),
        }
    }
}

impl ExternalForces<f64> for ImpulseMeter {
    fn apply(&mut self, t: f64, loads: &mut ExternalLoads<'_, f64>) {
        let before = total_force(loads.nodes().2);
        self.contact.apply(t, loads);
        let weight = [1.0, 2.0, 2.0, 1.0][self.stage % 4] / 6.0 * self.dt;
        self.stage += 1;
        self.on_nodes += (total_force(loads.nodes().2) - before) * weight;
        let on_ball = shape_contacts(self.flexible())
            .evaluated()
            .iter()
            .fold(Vec3::ZERO, |s, c| s - Vec3::from_array(c.force));
        self.on_ball += on_ball * weight;
    }
    fn accept(&mut self, t: f64, state: &ExternalLoads<'_, f64>) {
        self.contact.accept(t, state);
    }
}

/// Figures of one ball-on-plate run.
#[derive(Debug)]
struct Impact {
    steps: usize,
    /// Ball's vertical velocity before and after (m/s).
    ball_vz: (f64, f64),
    /// Contact impulse on the ball and on the plate's nodes (N·s).
    on_ball: Vec3<f64>,
    on_nodes: Vec3<f64>,
    /// |Δp_ball − m g T − J_ball| (N·s).
    ball_momentum_error: f64,
    /// Δp_plate − m_plate g T − J_nodes: the clamp's impulse (N·s).
    support_impulse: Vec3<f64>,
    /// |Δp_total − m_total g T − J_support| (N·s) with J_support = 0 (free plate).
    total_momentum_error: f64,
    /// Deepest node penetration into the ball (m).
    deepest: f64,
    /// Largest E(t) − E(0) and E(0) − E(T) (J), E with the contact springs.
    energy_rise: f64,
    energy_loss: f64,
    /// Bits of the final state.
    state: Vec<f64>,
}

/// Steps the ball-on-plate scene `text` by RK4 for `duration` with the compiled contacts,
/// metering the contact impulses.
fn impact(text: &str, duration: f64) -> Impact {
    let scene = parse("sphere_on_plate.toml", text);
    let model = coupled_model(&scene).unwrap();
    let mut data = coupled_data(&scene, &model);
    let dt = scene.simulation.step;
    let body_count = model.rigid().bodies().len();
    let contact = coupled_contact(&scene, body_count, model.flex())
        .unwrap()
        .expect("contact");
    let mut meter = ImpulseMeter {
        contact,
        dt,
        stage: 0,
        on_nodes: Vec3::ZERO,
        on_ball: Vec3::ZERO,
    };
    let energy = |data: &_, meter: &ImpulseMeter| {
        model.energy(data).unwrap().total() + meter.flexible().elastic_energy()
    };
    let ball_mass = scene.bodies[0].value.body.mass;
    let plate_mass = model.flex().mass();
    let momenta = |data: &ferrodyn_host::storage::CoupledData| {
        let (ball, _) = rigid::momentum(model.rigid(), data.rigid());
        let (plate, _) = flex::momentum(model.flex(), data.flex());
        (ball, plate)
    };
    model.accept(&mut data, &mut meter).unwrap();
    let (ball0, plate0) = momenta(&data);
    let e0 = energy(&data, &meter);
    let (mut deepest, mut energy_rise) = (0.0f64, f64::NEG_INFINITY);
    let steps = (duration / dt).round() as usize;
    for _ in 0..steps {
        step_with(&model, &mut data, &mut Rk4, dt, &mut meter).unwrap();
        let shapes = shape_contacts(meter.flexible());
        deepest = shapes.active().iter().fold(deepest, |d, c| d.max(c.penetration));
        energy_rise = energy_rise.max(energy(&data, &meter) - e0);
    }
    let t = model.time(&data);
    let (ball1, plate1) = momenta(&data);
    let g = scene.simulation.gravity;
    let support_impulse = plate1 - plate0 - g * (plate_mass * t) - meter.on_nodes;
    let total = (ball1 + plate1) - (ball0 + plate0) - g * ((ball_mass + plate_mass) * t);
    Impact {
        steps,
        ball_vz: (ball0.z / ball_mass, ball1.z / ball_mass),
        on_ball: meter.on_ball,
        on_nodes: meter.on_nodes,
        ball_momentum_error: (ball1 - ball0 - g * (ball_mass * t) - meter.on_ball).norm(),
        support_impulse,
        total_momentum_error: total.norm(),
        deepest,
        energy_rise,
        energy_loss: e0 - energy(&data, &meter),
        state: model.state(&data).to_vec(),
    }
}

#[test]
fn ball_on_clamped_plate_balances_momentum_stays_below_hertz_and_loses_energy() {
    let started = Instant::now();
    let text = scene_text("sphere_on_plate.toml");
    let scene = parse("sphere_on_plate.toml", &text);
    let r = impact(&text, scene.simulation.end_time);
    // The system measured is the one `ferrodyn run` steps: the compiled simulation reaches the
    // same state bit for bit.
    let mut sim = compile(&scene).unwrap();
    for _ in 0..r.steps {
        sim.step().unwrap();
    }
    let same = sim.state().len() == r.state.len()
        && sim
            .state()
            .iter()
            .zip(&r.state)
            .all(|(a, b)| a.to_bits() == b.to_bits());
    assert!(same, "the compiled simulation differs from the measured system");

    // Reference: Hertz (Johnson 1985, §11.4), the ball stopped by a rigid half-space of the
    // plate's material: δ = (15 m v₀²/(16 E* √R*))^{2/5}, E* of steel on rubber, R* of the
    // ball and the node (the radius the law uses). The plate yields (it bends and its nodes
    // move away), so the deepest penetration must lie below it.
    let ball_mass = scene.bodies[0].value.body.mass;
    let rubber = elastic(&scene.flexibles[0].material);
    let e_star = effective_modulus(&rubber, &Elastic::STEEL);
    let node_radius = scene.flexibles[0].contact.unwrap().node_radius;
    let r_star = effective_radius(0.02, node_radius);
    // Impact speed after the 0.5 mm fall from 1 m/s.
    let v0 = (1.0f64 + 2.0 * 9.81 * 0.0005).sqrt();
    let hertz = (15.0 * ball_mass * v0 * v0 / (16.0 * e_star * r_star.sqrt())).powf(0.4);
    let wall = started.elapsed().as_secs_f64();
    println!(
        "sphere_on_plate.toml: {} steps, ball vz {:.4} → {:.4} m/s, contact impulse on the ball {:?} N·s, on the plate {:?} N·s, clamp {:?} N·s, ball momentum error {:.2e} N·s, deepest {:.4e} m = {:.3} of the rigid-plane Hertz depth {:.4e} m, energy rise ≤ {:.2e} J, lost {:.4e} J, {wall:.1} s",
        r.steps,
        r.ball_vz.0,
        r.ball_vz.1,
        r.on_ball.to_array(),
        r.on_nodes.to_array(),
        r.support_impulse.to_array(),
        r.ball_momentum_error,
        r.deepest,
        r.deepest / hertz,
        hertz,
        r.energy_rise,
        r.energy_loss
    );
    // Momentum: the ball's change is gravity's impulse plus the contact's (RK4 updates
    // velocities linearly in the stage forces, so up to round-off); the plate's nodes take
    // exactly the opposite impulse (third law, force at the node on both).
    let j = r.on_ball.norm();
    assert!(
        r.on_ball.z > 0.0 && j > 0.0,
        "the ball was not stopped: {:?}",
        r.on_ball
    );
    assert!(r.ball_momentum_error < 1e-9 * j, "{}", r.ball_momentum_error);
    assert!(
        (r.on_ball + r.on_nodes).norm() < 1e-12 * j,
        "{:?}",
        r.on_ball + r.on_nodes
    );
    // The clamp holds the plate up under its own weight and the ball's push: its net impulse
    // points up.
    assert!(r.support_impulse.z > 0.0, "{:?}", r.support_impulse);
    assert!(r.ball_vz.1 > 0.0, "the ball rebounds: {}", r.ball_vz.1);
    assert!(
        r.deepest > 0.0 && r.deepest < hertz,
        "{} against {}",
        r.deepest,
        hertz
    );
    // Energy: kinetic + strain + gravity + the contact springs, only lost (e = 0.8, friction),
    // never above its start by more than RK4's error.
    assert!(r.energy_loss > 0.0, "{}", r.energy_loss);
    assert!(r.energy_rise < 1e-6, "{}", r.energy_rise);
}

#[test]
fn ball_on_free_plate_conserves_total_momentum() {
    // Reference: without the clamp, nothing but gravity acts from outside: the ball's and the
    // plate's momenta change together by (m_ball + m_plate) g T, the contact forces cancel.
    let text =
        scene_text("sphere_on_plate.toml").replace("clamp = [\"xmin\", \"xmax\", \"ymin\", \"ymax\"]\n", "");
    let r = impact(&text, 0.01);
    println!(
        "free plate: contact impulse on the ball {:?} N·s, total momentum error {:.2e} N·s",
        r.on_ball.to_array(),
        r.total_momentum_error
    );
    assert!(r.on_ball.z > 0.0);
    assert!(
        r.total_momentum_error < 1e-9 * r.on_ball.norm(),
        "{}",
        r.total_momentum_error
    );
}

#[test]
fn block_settles_on_a_fixed_box_carrying_its_weight() {
    // The scene's RK4 at 4e-5 s, HHT of the block alone at 1 ms, and the implicit multibody
    // solver at 1 ms (a rigid pendulum elsewhere in the scene sends it there).
    let implicit = |text: String| {
        text.replace("integrator = \"rk4\"", "integrator = \"hht\"")
            .replace("step = 4e-5", "step = 1e-3")
    };
    let pendulum = "\n[[body]]\nid = 1\nname = \"bob\"\nmass = 1.0\ninertia = { Ixx = 1e-3, Iyy = 1e-3, Izz = 1e-3 }\npos = [1.0, 0.0, 0.0]\n\n[[joint]]\nname = \"rod\"\ntype = \"distance\"\nbody_i = \"ground\"\nbody_j = \"bob\"\nlength = 1.0\n";
    let text = scene_text("block_on_box.toml");
    for (what, text) in [
        ("rk4", text.clone()),
        ("hht", implicit(text.clone())),
        ("hht multibody", implicit(format!("{text}{pendulum}"))),
    ] {
        block_on_box_carries_its_weight(what, &text);
    }
}

fn block_on_box_carries_its_weight(what: &str, text: &str) {
    // Reference: statics. Once the block is at rest the contact forces on its nodes balance
    // its weight, Σ F_n = m g, and it has not slid (the box top is level).
    let started = Instant::now();
    let scene = parse("block_on_box.toml", text);
    let mass = FlexibleParts::of(&scene).unwrap().model.mass();
    let weight = mass * 9.81;
    let mut sim = compile(&scene).unwrap();
    let start: Vec<Vec3<f64>> = {
        let f = sim.flexible().unwrap();
        (0..f.node_count()).map(|n| f.position(n)).collect()
    };
    let steps = (scene.simulation.end_time / scene.simulation.step).round() as usize;
    for _ in 0..steps {
        sim.step().unwrap();
    }
    let shapes = shape_contacts(contacts(&sim));
    let normal: f64 = shapes.active().iter().map(|c| c.normal_force * c.normal[2]).sum();
    let friction = shapes.active().iter().fold(Vec3::ZERO, |s, c| {
        s + Vec3::from_array(c.force) - Vec3::from_array(c.normal) * c.normal_force
    });
    let flex = sim.flexible().unwrap();
    // The nodes' mean horizontal displacement (the block's slide; the bottom also spreads
    // by Poisson's effect, which averages out) and their lowest sinking.
    let (mut mean, mut spread, mut sunk, mut speed) = (Vec3::ZERO, 0.0f64, 0.0f64, 0.0f64);
    for (n, x0) in start.iter().enumerate() {
        let d = flex.position(n) - *x0;
        mean += Vec3::new(d.x, d.y, 0.0) * (1.0 / start.len() as f64);
        spread = spread.max((d.x * d.x + d.y * d.y).sqrt());
        sunk = sunk.min(d.z);
        speed = speed.max(flex.velocity(n).norm());
    }
    let slid = mean.norm();
    let deepest = shapes.active().iter().fold(0.0f64, |d, c| d.max(c.penetration));
    println!(
        "block_on_box.toml by {what}: {} node contacts carry {normal:.5} N of m g = {weight:.5} N (ratio {:.6}), friction {:?} N, slid {slid:.2e} m (bottom spread {spread:.2e} m), sunk {sunk:.3e} m, deepest {deepest:.3e} m, fastest node {speed:.2e} m/s, {:.1} s",
        shapes.active().len(),
        normal / weight,
        friction.to_array(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(
        shapes.active().len(),
        9,
        "the 3 × 3 nodes of the bottom face touch"
    );
    assert!((normal / weight - 1.0).abs() < 1e-3, "{normal} against {weight}");
    assert!(friction.norm() < 1e-3 * weight, "{friction:?}");
    // At rest, and moved by less than 1e-4 of its 0.1 m width (a mean nodal displacement of
    // the asymmetric 6-tet cells, not a slide: friction carries no load at the end).
    assert!(speed < 1e-6, "{speed}");
    assert!(slid < 1e-5, "{slid}");
    assert!(sunk > -2.0 * deepest, "{sunk}");
}

/// The flexible contacts of a simulation at its last accepted state.
fn contacts(sim: &Simulation) -> &FlexContacts {
    sim.contacts()
        .and_then(|c| c.flexible())
        .expect("flexible contacts")
}

#[test]
fn ball_on_plate_under_hht_bounces_as_under_rk4() {
    // The implicit multibody solver with the ball–node coupling in its matrix, at 5× the RK4
    // step (and halved steps where the touch-down makes Newton fail): the ball leaves the plate
    // as the explicit run has it (reference: the same model by RK4 at 2e-5 s).
    let ball = |text: String| {
        let mut sim = compile(&parse("sphere_on_plate.toml", &text)).unwrap_or_else(|e| panic!("{e}"));
        while sim.time() < 0.03 - 1e-9 {
            sim.step().unwrap_or_else(|e| panic!("{e:#}"));
        }
        let (_, data) = sim.rigid().unwrap();
        (data.position(0).z, data.velocity(0).z)
    };
    let explicit = ball(scene_text("sphere_on_plate.toml"));
    let implicit = ball(
        scene_text("sphere_on_plate.toml")
            .replace(
                "integrator = \"rk4\"\noutput_interval = 1e-3\n",
                "integrator = \"hht\"\noutput_interval = 1e-3\n[simulation.implicit]\nmax_halvings = 4\n",
            )
            .replace("step = 2e-5", "step = 1e-4"),
    );
    println!("ball at 0.03 s (z, vz): RK4 {explicit:?}, HHT {implicit:?}");
    assert!(explicit.1 > 0.5 && implicit.1 > 0.5, "both rebound");
    // Measured: 1.4e-4 of the rebound speed, 4e-6 m of height (HHT's discretization error).
    assert!(
        (implicit.1 - explicit.1).abs() < 1e-3 * explicit.1,
        "rebound speed"
    );
    assert!((implicit.0 - explicit.0).abs() < 2e-5, "height");
}

#[test]
fn what_stays_impossible_is_one_named_error() {
    // A material pairing a rigid body with a flexible one that does not exist.
    let text = scene_text("sphere_on_plate.toml")
        .replace("bodies = [\"ball\", \"plate\"]", "bodies = [\"ball\", \"sheet\"]");
    let e = Scene::parse(&scene_path("sphere_on_plate.toml"), &text)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("sheet") && e.contains("contact_material"), "{e}");
}

#[test]
fn sphere_on_plate_run_writes_flex_shape_contacts_csv() {
    let dir = std::env::temp_dir().join(format!("ferrodyn-rigid-flex-{}", std::process::id()));
    run(&RunOptions {
        scene: Some(scene_path("sphere_on_plate.toml")),
        out: dir.clone(),
        force: true,
        overrides: Overrides {
            end: Some(0.006),
            ..Overrides::default()
        },
        ..RunOptions::default()
    })
    .unwrap();
    let text = std::fs::read_to_string(dir.join("flex_shape_contacts.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next().unwrap(), FLEX_SHAPE_CONTACT_COLUMNS.join(","));
    let rows: Vec<Vec<f64>> = lines
        .map(|l| l.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    // The 0.5 mm gap closes at 1 m/s after 0.5 ms; the ball (shape 0) then presses on the
    // plate (flexible 0) at every output time.
    assert!(rows.len() >= 4, "{text}");
    for r in &rows {
        assert_eq!((r[1], r[2], r[9]), (0.0, 0.0, 1.0), "{r:?}");
        assert!(r[3] >= 1.0 && r[4] > 0.0 && r[5] > 0.0, "{r:?}");
    }
    for file in ["contacts.csv", "flex_contacts.csv", "trajectory.csv", "plate.pvd"] {
        assert!(dir.join(file).exists(), "{file}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn implicit_multibody_contact_runs_rigid_shapes() {
    // Rigid shapes under HHT: scenes/sphere_drop.toml through its first impact at 1e-4 s (the
    // contact forces in the multibody solver's residual). Reference: the ball reaches the
    // floor at √(2 h / g) = 0.319 s and leaves it upwards (e = 0.7).
    let text = std::fs::read_to_string(scene_path("sphere_drop.toml"))
        .unwrap()
        .replace("integrator = \"rk4\"", "integrator = \"hht\"")
        .replace("step = 5e-5", "step = 1e-4")
        .replace("end_time = 1.5", "end_time = 0.4");
    let scene = parse("sphere_drop.toml", &text);
    let mut sim = compile(&scene).unwrap();
    let (mut touched, steps) = (None, 4000);
    for _ in 0..steps {
        sim.step().unwrap();
        if touched.is_none() && sim.contacts().unwrap().active_count() > 0 {
            touched = Some(sim.time());
        }
    }
    let vz = sim.rigid().unwrap().1.velocity(0).z;
    println!("sphere_drop.toml under HHT: touch-down at {touched:?} s, ball vz at 0.4 s {vz:.4} m/s");
    assert!((touched.unwrap() - 0.319).abs() < 2e-3, "{touched:?}");
    assert!(vz > 0.0, "{vz}");
}
