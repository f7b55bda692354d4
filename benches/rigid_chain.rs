//! Time per RK4 step of revolute chains of 5, 20, 50 and 100 unit links (f64), and of the
//! 5-link chain in f32. The figure of merit is the growth from 20 to 100 links: the skyline
//! constraint solve is linear in the number of links, so 100/20 should be close to 5.
//!
//! Run: `cargo bench --bench rigid_chain`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferrodyn::kernel::models::{revolute_chain, ChainSpec};
use ferrodyn::kernel::{integrators::Rk4, step, Data, Model, Real};
use std::hint::black_box;

fn bench_chain<R: Real, const N: usize, const C: usize, const S: usize>(c: &mut Criterion, label: &str) {
    let model: Box<Model<R, N, N, 0, C, S>> = Box::new(revolute_chain(&ChainSpec::standard(N)).unwrap());
    let mut data = Box::new(Data::new(&*model));
    // Start from a moving state: 0.5 s into the fall.
    for _ in 0..500 {
        step(&*model, &mut data, &mut Rk4, R::from_f64(1e-3)).unwrap();
    }
    let start = data.clone();
    let mut group = c.benchmark_group(format!("rk4_step_{label}"));
    group.bench_function(BenchmarkId::from_parameter(N), |b| {
        b.iter(|| {
            // Restart periodically so every sample sees the same part of the motion.
            if data.steps() > 1500 {
                *data = (*start).clone();
            }
            step(black_box(&*model), &mut data, &mut Rk4, R::from_f64(1e-3)).unwrap();
        })
    });
    group.finish();
}

fn chains(c: &mut Criterion) {
    bench_chain::<f64, 5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(c, "f64");
    bench_chain::<f64, 20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(c, "f64");
    bench_chain::<f64, 50, 250, { ChainSpec::<f64>::skyline_entries(50) }>(c, "f64");
    bench_chain::<f64, 100, 500, { ChainSpec::<f64>::skyline_entries(100) }>(c, "f64");
    // f32, the MCU case: 5 links (longer chains of slender rods are ill-conditioned in f32).
    bench_chain::<f32, 5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(c, "f32");
}

criterion_group!(benches, chains);
criterion_main!(benches);
