//! Time per step of the simple pendulum and of revolute chains of 5, 20, 50 and 100 unit links
//! (f64), with RK4 and with semi-implicit Euler at dt = 1e-3, and of the 5-link chain in f32
//! (RK4). The figure of merit is the growth from 20 to 100 links: the skyline constraint solve
//! is linear in the number of links, so 100/20 should be close to 5. The same models run in
//! MuJoCo and Exudyn through `bash benches/peers/run.sh`.
//!
//! Run: `cargo bench -p ferrodyn-benches --bench rigid_chain -- --warm-up-time 1 --measurement-time 3`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferrodyn::kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn::kernel::rigid::{Data, Model};
use ferrodyn::kernel::samples::{revolute_chain, simple_pendulum, ChainSpec, PendulumCapacities};
use ferrodyn::kernel::{step, Fixed, Integrator, Real, Storage};
use std::hint::black_box;

fn bench_model<R: Real, I: Integrator<R> + Copy, St: Storage>(
    c: &mut Criterion,
    group: &str,
    parameter: &str,
    model: &Model<R, St>,
    method: I,
) {
    let mut method = method;
    let mut data = Box::new(Data::new(model));
    // Start from a moving state: 0.5 s into the fall.
    for _ in 0..500 {
        step(model, &mut data, &mut method, R::from_f64(1e-3)).unwrap();
    }
    let start = data.clone();
    let mut group = c.benchmark_group(group);
    group.bench_function(BenchmarkId::from_parameter(parameter), |b| {
        b.iter(|| {
            // Restart periodically so every sample sees the same part of the motion.
            if data.steps() > 1500 {
                *data = (*start).clone();
            }
            step(black_box(model), &mut data, &mut method, R::from_f64(1e-3)).unwrap();
        })
    });
    group.finish();
}

fn bench_chain<R: Real, const N: usize, const C: usize, const S: usize>(c: &mut Criterion, label: &str) {
    let model: Box<Model<R, Fixed<N, N, 0, C, S>>> =
        Box::new(revolute_chain(&ChainSpec::standard(N)).unwrap());
    let n = N.to_string();
    bench_model(c, &format!("rk4_step_{label}"), &n, &*model, Rk4);
    if label == "f64" {
        bench_model(c, "semi_implicit_euler_step_f64", &n, &*model, SemiImplicitEuler);
    }
}

fn pendulum(c: &mut Criterion) {
    // 1 body, 1 joint, no force, 1 constraint row, 1 skyline entry.
    let model = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, std::f64::consts::FRAC_PI_2).unwrap();
    bench_model(c, "rk4_step_f64", "pendulum", &model, Rk4);
    bench_model(
        c,
        "semi_implicit_euler_step_f64",
        "pendulum",
        &model,
        SemiImplicitEuler,
    );
}

fn chains(c: &mut Criterion) {
    bench_chain::<f64, 5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(c, "f64");
    bench_chain::<f64, 20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(c, "f64");
    bench_chain::<f64, 50, 250, { ChainSpec::<f64>::skyline_entries(50) }>(c, "f64");
    bench_chain::<f64, 100, 500, { ChainSpec::<f64>::skyline_entries(100) }>(c, "f64");
    // f32, the MCU case: 5 links (longer chains of slender rods are ill-conditioned in f32).
    bench_chain::<f32, 5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(c, "f32");
}

criterion_group!(benches, pendulum, chains);
criterion_main!(benches);
