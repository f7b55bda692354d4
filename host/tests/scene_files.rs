//! Every scene in `scenes/` loads and compiles; the rigid ones match the kernel's canonical
//! models bit for bit, the arms have the degrees of freedom Grübler's count gives.

use std::f64::consts::FRAC_PI_2;
use std::path::{Path, PathBuf};

use ferrodyn_host::scene::Scene;
use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::models::{revolute_chain, simple_pendulum, ChainSpec};
use ferrodyn_kernel::{step, Data, Fixed};

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes")
}

fn load(name: &str) -> Scene {
    Scene::load(&scenes_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `f` on a thread with a 256 MiB stack: kernel models are big fixed-size values.
fn with_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(f)
        .expect("test thread")
        .join()
        .expect("test thread panicked")
}

/// Capacities large enough for every scene in `scenes/`.
type Rigid = ferrodyn_kernel::Model<f64, 32, 32, 8, 160, 2000>;
type Flexible = ferrodyn_kernel::flex::FlexModel<f64, 400, 1000, 2_000_000>;

#[test]
fn pendulum_scene_steps_bit_for_bit_like_the_kernel_model() {
    // Reference: kernel::models::simple_pendulum(1 kg, 1 m, 90°), same construction order.
    let scene = load("pendulum.toml");
    assert_eq!(scene.integrator().name(), "rk4");
    let (from_scene, names) = scene.build_rigid::<Fixed<1, 1, 0, 1, 1>>().unwrap();
    assert_eq!(names.bodies, ["bob"]);
    let reference = simple_pendulum(1.0, 1.0, FRAC_PI_2).unwrap();
    let (mut a, mut b) = (Data::new(&from_scene), Data::new(&reference));
    for _ in 0..1000 {
        step(&from_scene, &mut a, &mut Rk4, 1e-3).unwrap();
        step(&reference, &mut b, &mut Rk4, 1e-3).unwrap();
    }
    let bits = |d: &Data<f64, 1, 1, 1>| d.state().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&a), bits(&b));
    assert!(a.position(0).z < -0.1, "the bob has swung down");
}

#[test]
fn chain20_scene_steps_bit_for_bit_like_the_kernel_chain() {
    // Reference: kernel::models::revolute_chain(&ChainSpec::standard(20)).
    const S: usize = ChainSpec::<f64>::skyline_entries(20);
    with_stack(|| {
        let scene = load("chain20.toml");
        let caps = scene.required_capacities();
        assert_eq!(
            (caps.bodies, caps.joints, caps.rows, caps.skyline),
            (20, 20, 100, S)
        );
        let (from_scene, _) = scene.build_rigid::<Fixed<20, 20, 0, 100, S>>().unwrap();
        let reference = revolute_chain::<f64, 20, 20, 0, 100, S>(&ChainSpec::standard(20)).unwrap();
        let (mut a, mut b) = (Box::new(Data::new(&from_scene)), Box::new(Data::new(&reference)));
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
    });
}

#[test]
fn arm_has_four_dof_and_the_strap_takes_one() {
    // Grübler: 6·2 − 3 (spherical) − 5 (revolute) = 4; a distance constraint removes 1 more.
    for (file, dof) in [("arm.toml", 4), ("arm_strap.toml", 3)] {
        let (model, names) = load(file).build_rigid::<Fixed<2, 3, 1, 9, 45>>().unwrap();
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
        with_stack(move || {
            let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
            let (rigid, _) = scene
                .build_rigid::<Fixed<32, 32, 8, 160, 2000>>()
                .unwrap_or_else(|e| panic!("{e}"));
            for k in 0..scene.flexibles.len() {
                let flex: Box<Flexible> = Box::new(scene.build_flexible(k).unwrap_or_else(|e| panic!("{e}")));
                let attachments = scene
                    .attachments(k, &rigid, &flex)
                    .unwrap_or_else(|e| panic!("{e}"));
                let expected = scene.flexibles[k].attach.as_ref().map_or(0, |(_, n)| n.len());
                assert_eq!(attachments.len(), expected, "{}", path.display());
            }
            let _: &Rigid = &rigid;
        });
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
    let (model, names) = scene.build_rigid::<Fixed<2, 3, 2, 9, 45>>().unwrap();
    assert_eq!(model.gruebler_dof(), 3);
    assert_eq!(names.forces, ["elbow_damper", "push"]);
    assert_eq!(scene.integrator().name(), "dopri45");
    let sensors: Vec<_> = scene.sensors.iter().map(|s| s.columns()).collect();
    assert_eq!(
        sensors[0],
        ["hand_x", "hand_y", "hand_z", "hand_vx", "hand_vy", "hand_vz"]
    );
    assert_eq!(sensors[1], ["elbow_encoder_angle", "elbow_encoder_rate"]);
}

#[test]
fn spinning_beam_scene_steps_as_a_coupled_system() {
    use ferrodyn_kernel::coupled::{step_coupled, CoupledData};
    // Coupled state: 2 × (7 per body + 12 per node) − 1 per body, for 1 body and ≤ 400 nodes.
    const STATE: usize = 2 * (7 + 12 * 400);
    with_stack(|| {
        let scene = load("spinning_beam.toml");
        let (hub, names) = scene.build_rigid::<Fixed<1, 2, 0, 6, 21>>().unwrap();
        assert_eq!(names.joints, ["axle", "motor"]);
        let beam: Box<Flexible> = Box::new(scene.build_flexible(0).unwrap());
        let attachments = scene.attachments(0, &hub, &beam).unwrap();
        assert_eq!(attachments.len(), beam_root_nodes(&scene));
        let mut data: Box<CoupledData<f64, 1, 6, 21, 400, 2_000_000, STATE>> =
            Box::new(CoupledData::new(&hub, &beam, &attachments).unwrap());
        let dt = scene.simulation.step;
        for _ in 0..10 {
            step_coupled(&hub, &beam, &attachments, &mut data, &mut Rk4, dt).unwrap();
        }
        // The drive holds the hub at 20 rad/s (ramp slope) about z.
        let w = data.rigid.angular_velocity(0);
        assert!((w.z - 20.0).abs() < 1e-6, "{w:?}");
    });
}

/// Nodes of the beam's root face (the "clamp" group of beam_coarse.msh).
fn beam_root_nodes(scene: &Scene) -> usize {
    scene.flexibles[0].mesh.nodes_of_group("clamp").unwrap().len()
}
