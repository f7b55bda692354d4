//! Time per RK4 step (f64, dt = 1e-3) of the 5- and 20-link chains in joint coordinates
//! (`kernel::tree`, articulated-body algorithm) and in Cartesian coordinates (bodies,
//! constraints, projection), measured in the same run so that their ratio means something on a
//! shared machine. All start 0.5 s into the fall. The chain's hinges are parallel, so its tree
//! takes the planar algorithm; `tree_3d` is the same chain with every other hinge turned to x,
//! which takes the 3-D one.
//!
//! Run: `cargo bench -p ferrodyn-benches --bench tree_chain -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::rigid::{Data, Model};
use ferrodyn::kernel::samples::{revolute_chain, revolute_chain_tree, ChainSpec};
use ferrodyn::kernel::{step, tree, Fixed};
use std::hint::black_box;

const DT: f64 = 1e-3;

fn chain<const N: usize, const C: usize, const S: usize>(c: &mut Criterion) {
    let spec = ChainSpec::standard(N);
    let mut group = c.benchmark_group(format!("chain{N}_rk4_step_f64"));

    let cartesian: Box<Model<f64, Fixed<N, N, 0, C, S>>> = Box::new(revolute_chain(&spec).unwrap());
    let mut data = Box::new(Data::new(&*cartesian));
    for _ in 0..500 {
        step(&*cartesian, &mut data, &mut Rk4, DT).unwrap();
    }
    let start = data.clone();
    group.bench_function(BenchmarkId::from_parameter("cartesian"), |b| {
        b.iter(|| {
            // Restart periodically so every sample sees the same part of the motion.
            if data.steps() > 1500 {
                *data = (*start).clone();
            }
            step(black_box(&*cartesian), &mut data, &mut Rk4, DT).unwrap();
        })
    });

    let joint_space: tree::Model<f64, Fixed<N>> = revolute_chain_tree(&spec).unwrap();
    let mut skew = tree::Model::<f64, Fixed<N>>::builder(joint_space.gravity());
    for (k, link) in joint_space.links().iter().enumerate() {
        let axis = if k % 2 == 1 { Vec3::X } else { link.axis };
        skew.add_link(tree::Link { axis, ..*link }).unwrap();
    }
    let skew = skew.build().unwrap();
    assert!(joint_space.is_planar() && !skew.is_planar());
    for (name, model) in [("tree", &joint_space), ("tree_3d", &skew)] {
        let mut data = tree::Data::new(model);
        for _ in 0..500 {
            step(model, &mut data, &mut Rk4, DT).unwrap();
        }
        let start = data.clone();
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                if data.steps() > 1500 {
                    data = start.clone();
                }
                step(black_box(model), &mut data, &mut Rk4, DT).unwrap();
            })
        });
    }
    group.finish();
}

fn chains(c: &mut Criterion) {
    chain::<5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(c);
    chain::<20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(c);
}

criterion_group!(benches, chains);
criterion_main!(benches);
