//! Every scene in `scenes/` loads and compiles; the rigid ones match the kernel's canonical
//! models bit for bit, the arms have the degrees of freedom Grübler's count gives.

use std::f64::consts::FRAC_PI_2;
use std::path::{Path, PathBuf};

use ferrodyn_host::compile::{compile, coupled_model, flexible_model, rigid_model, Capacities};
use ferrodyn_host::scene::Scene;
use ferrodyn_host::storage::Growable;
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::rigid::Data;
use ferrodyn_kernel::samples::{revolute_chain, simple_pendulum, ChainSpec, PendulumCapacities};
use ferrodyn_kernel::{step, Dynamics, Fixed};

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn load(name: &str) -> Scene {
    Scene::load(&scenes_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Rigid capacities large enough for every scene in `scenes/`.
type Rigid = Fixed<32, 32, 8, 160, 2000>;

#[test]
fn pendulum_scene_steps_bit_for_bit_like_the_kernel_model() {
    // Reference: kernel::samples::simple_pendulum(1 kg, 1 m, 90°), same construction order.
    let scene = load("pendulum.toml");
    assert_eq!(scene.simulation.integrator.name(), "rk4");
    let from_scene = rigid_model::<PendulumCapacities>(&scene).unwrap();
    assert_eq!(scene.name_maps().bodies, ["bob"]);
    let reference = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, FRAC_PI_2).unwrap();
    let (mut a, mut b) = (Data::new(&from_scene), Data::new(&reference));
    for _ in 0..1000 {
        step(&from_scene, &mut a, &mut Rk4, 1e-3).unwrap();
        step(&reference, &mut b, &mut Rk4, 1e-3).unwrap();
    }
    let bits = |d: &Data<f64, PendulumCapacities>| d.state().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a), bits(&b));
    assert!(a.position(0).z < -0.1, "the bob has swung down");
}

#[test]
fn chain20_scene_steps_bit_for_bit_like_the_kernel_chain() {
    // Reference: kernel::samples::revolute_chain(&ChainSpec::standard(20)).
    const S: usize = ChainSpec::<f64>::skyline_entries(20);
    let scene = load("chain20.toml");
    let caps = Capacities::of_scene(&scene);
    assert_eq!(
        (caps.bodies, caps.joints, caps.rows, caps.skyline),
        (20, 20, 100, S)
    );
    let from_scene = rigid_model::<Fixed<20, 20, 0, 100, S>>(&scene).unwrap();
    let reference = revolute_chain::<f64, Fixed<20, 20, 0, 100, S>>(&ChainSpec::standard(20)).unwrap();
    let (mut a, mut b) = (Data::new(&from_scene), Data::new(&reference));
    for _ in 0..1000 {
        step(&from_scene, &mut a, &mut Rk4, 1e-3).unwrap();
        step(&reference, &mut b, &mut Rk4, 1e-3).unwrap();
    }
    let same = a
        .state()
        .iter()
        .zip(b.state())
        .all(|(x, y)| x.to_bits() == y.to_bits());
    assert!(same && a.state().len() == b.state().len());
}

#[test]
fn arm_has_four_dof_and_the_strap_takes_one() {
    // Grübler: 6·2 − 3 (spherical) − 5 (revolute) = 4; a distance constraint removes 1 more.
    for (file, dof) in [("arm.toml", 4), ("arm_strap.toml", 3)] {
        let scene = load(file);
        let model = rigid_model::<Fixed<2, 3, 1, 9, 45>>(&scene).unwrap();
        let names = scene.name_maps();
        assert_eq!(model.gruebler_dof(), dof, "{file}");
        assert_eq!(names.joint("elbow"), Some(1));
        assert_eq!(names.force("elbow_damper"), Some(0));
    }
}

#[test]
fn every_scene_loads_and_compiles() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(scenes_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 7, "{files:?}");
    for path in files {
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        // What `ferrodyn run` steps.
        compile(&scene).unwrap_or_else(|e| panic!("{e}"));
        let rigid = rigid_model::<Rigid>(&scene).unwrap_or_else(|e| panic!("{e}"));
        for k in 0..scene.flexibles.len() {
            flexible_model::<Growable>(&scene, std::slice::from_ref(&scene.flexibles[k]))
                .unwrap_or_else(|e| panic!("{e}"));
        }
        // Attachments exist in the coupled model of rigid bodies and one flexible body.
        let expected: Vec<usize> = (scene.flexibles.iter())
            .map(|f| f.attach.as_ref().map_or(0, |(_, n)| n.len()))
            .collect();
        if rigid.bodies().is_empty() || scene.flexibles.is_empty() {
            assert!(expected.iter().all(|&n| n == 0), "{}", path.display());
        } else {
            let coupled = coupled_model::<Growable>(&scene).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(coupled.attachments().len(), expected[0], "{}", path.display());
        }
    }
}

#[test]
fn the_readme_example_is_a_valid_scene() {
    let readme = std::fs::read_to_string(scenes_dir().join("README.md")).unwrap();
    let start = readme.find("```toml\n").expect("a toml example") + "```toml\n".len();
    let example = &readme[start..start + readme[start..].find("```").unwrap()];
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme_example.toml");
    std::fs::write(&path, example).unwrap();
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let model = rigid_model::<Fixed<2, 3, 3, 9, 45>>(&scene).unwrap();
    assert_eq!(model.gruebler_dof(), 3);
    // The elbow's limits are a force element named after the joint, after the [[force]]s.
    assert_eq!(scene.name_maps().forces, ["elbow_damper", "push", "elbow"]);
    assert_eq!(scene.simulation.integrator.name(), "dopri45");
    let sensors: Vec<_> = scene.sensors.iter().map(|s| s.columns()).collect();
    assert_eq!(
        sensors[0],
        ["hand_x", "hand_y", "hand_z", "hand_vx", "hand_vy", "hand_vz"]
    );
    assert_eq!(sensors[1], ["elbow_encoder_angle", "elbow_encoder_rate"]);
}

#[test]
fn spinning_beam_scene_steps_as_a_coupled_system() {
    // The hub (rigid) and the beam (flexible) joined at the beam's root nodes: the kernel's
    // coupled model on the host's growable storage.
    let scene = load("spinning_beam.toml");
    assert_eq!(scene.name_maps().joints, ["axle", "motor"]);
    let model = coupled_model::<Growable>(&scene).unwrap();
    assert_eq!(model.rigid().bodies().len(), 1);
    assert_eq!(model.attachments().len(), beam_root_nodes(&scene));
    let mut data = model.new_data();
    // The scene runs by HHT at 1 ms; RK4 is stable at 1e-5 s (0.55 of its limit).
    let dt = 1e-5;
    for _ in 0..10 {
        step(&model, &mut data, &mut Rk4, dt).unwrap();
    }
    // The drive holds the hub at 20 rad/s (ramp slope) about z.
    let w = data.rigid().angular_velocity(0);
    assert!((w.z - 20.0).abs() < 1e-6, "{w:?}");
}

#[test]
fn an_attached_beam_starts_in_its_hubs_rigid_motion() {
    // The hub spins at 20 rad/s about its axle through (−0.1, 0.05, 0.05): every node of the
    // beam moves with ṙ = ω × (r − c) at t = 0, explicit and implicit alike, so the run starts
    // without the impulse of a beam at rest on a spinning hub.
    for integrator in ["rk4", "hht"] {
        let mut scene = load("spinning_beam.toml");
        scene.simulation.integrator = ferrodyn_host::spec::IntegratorSpec::from_name(
            integrator,
            ferrodyn_kernel::integrators::AdaptiveConfig::default(),
        )
        .unwrap();
        let sim = compile(&scene).unwrap();
        let flex = sim.flexible().unwrap();
        let axle = ferrodyn_kernel::math::Vec3::new(-0.1, 0.05, 0.05);
        let omega = ferrodyn_kernel::math::Vec3::new(0.0, 0.0, 20.0);
        let worst = (0..flex.node_count())
            .map(|n| (flex.velocity(n) - omega.cross(flex.position(n) - axle)).norm())
            .fold(0.0, f64::max);
        assert!(worst < 1e-12, "{integrator}: {worst}");
    }
}

/// Nodes of the beam's root face (the "clamp" group of beam_coarse.msh).
fn beam_root_nodes(scene: &Scene) -> usize {
    scene.flexibles[0].mesh.nodes_of_group("clamp").unwrap().len()
}
