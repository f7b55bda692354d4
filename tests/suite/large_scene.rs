//! Scenes of 10⁵ rigid bodies build (parse, check, compile) and step like the kernel's own
//! models of them: the scene build is linear in bodies and joints (it was quadratic: 139 s for
//! 10⁵ bodies). Times are measured by `benches/scene_build.rs`, not asserted here.

#[path = "common/large_scene.rs"]
mod scenes;

use ferrodyn::host::compile::{choose, compile, Choice};
use ferrodyn::host::scene::Scene;
use ferrodyn::host::storage::Growable;
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::samples::{revolute_chain_tree, ChainSpec};
use ferrodyn::kernel::{step, Dynamics};
use scenes::{rods, Shape};
use std::path::Path;

const N: usize = 100_000;

fn parsed(shape: Shape) -> Scene {
    Scene::parse(Path::new("rods.toml"), &rods(N, shape)).unwrap()
}

fn bits(s: &[f64]) -> Vec<u64> {
    s.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn a_chain_of_100000_rods_compiles_to_the_kernel_chain_and_steps_bit_for_bit() {
    // Reference: kernel::samples::revolute_chain_tree(&ChainSpec::standard(n)), the tree the
    // scene describes (scenes/gen_chain20.py writes the same rods; chain20.toml equals it).
    let scene = parsed(Shape::Chain);
    let choice = choose(&scene).unwrap();
    assert!(matches!(&choice, Choice::Tree(links) if links.len() == N));
    assert_eq!(
        choice.describe(),
        "joint coordinates (tree): 100000 joints form an open tree from the ground"
    );
    let mut sim = compile(&scene).unwrap();
    let reference = revolute_chain_tree::<f64, Growable>(&ChainSpec::standard(N)).unwrap();
    let mut data = reference.new_data();
    assert_eq!(bits(sim.state()), bits(reference.state(&data)));
    sim.step().unwrap();
    step(&reference, &mut data, &mut Rk4, 1e-3).unwrap();
    assert_eq!(bits(sim.state()), bits(reference.state(&data)));
}

#[test]
fn a_star_of_100000_rods_is_100000_pendulums_each_the_kernel_pendulum() {
    // Every rod hangs from the ground at its own hinge: n one-link trees of the kernel's
    // one-rod chain, each stepping as it does.
    let scene = parsed(Shape::Star);
    assert!(matches!(choose(&scene).unwrap(), Choice::Tree(links) if links.len() == N));
    let mut sim = compile(&scene).unwrap();
    let pendulum = revolute_chain_tree::<f64, Growable>(&ChainSpec::standard(1)).unwrap();
    let mut data = pendulum.new_data();
    for _ in 0..3 {
        sim.step().unwrap();
        step(&pendulum, &mut data, &mut Rk4, 1e-3).unwrap();
    }
    let (angle, rate) = (pendulum.state(&data)[0], pendulum.state(&data)[1]);
    assert!(angle != 0.0 && rate != 0.0, "the rods fall: {angle} {rate}");
    let (angles, rates) = sim.state().split_at(N);
    assert!(angles.iter().all(|q| q.to_bits() == angle.to_bits()));
    assert!(rates.iter().all(|v| v.to_bits() == rate.to_bits()));
}
