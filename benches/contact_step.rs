//! Cost of a full RK4 step with rigid contact (Hertz–Flores–Coulomb, forces at every stage):
//! one steel sphere resting on a plane, and a pile of 100 spheres (a 5 × 5 × 4 lattice of
//! touching spheres on a plane: 100 sphere–plane or sphere–sphere contacts and more).
//!
//! Run: `cargo bench -p ferrodyn-benches --bench contact_step`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferrodyn::host::contact::ContactWorld;
use ferrodyn::host::spec::{ContactMaterial, Geometry, Shape};
use ferrodyn::host::storage::{RigidData, RigidModel};
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::{Quat, Vec3};
use ferrodyn::kernel::rigid::Body;
use ferrodyn::kernel::{step_with, Dynamics};
use std::hint::black_box;

const RADIUS: f64 = 0.05;
/// Steps of 10 µs resolve a steel sphere's Hertz contact (about 0.3 ms at 1 m/s).
const DT: f64 = 1e-5;

/// `layers` layers of `side` × `side` spheres, each resting on the one below (centres 2r
/// apart, the bottom layer touching the plane).
fn pile(side: usize, layers: usize) -> (RigidModel, RigidData, ContactWorld) {
    let mut b = RigidModel::builder(Vec3::new(0.0, 0.0, -9.81));
    let mut shapes = vec![Shape::new("ground", None, Geometry::Plane)];
    let mut n = 0;
    for layer in 0..layers {
        for i in 0..side * side {
            let at = Vec3::new(
                2.0 * RADIUS * (i % side) as f64,
                2.0 * RADIUS * (i / side) as f64,
                RADIUS * (1.0 + 2.0 * layer as f64) - 1e-6,
            );
            b.add_body(Body::sphere(4.11, RADIUS).at(at, Quat::IDENTITY))
                .unwrap();
            shapes.push(Shape::new(
                &format!("ball{n}"),
                Some(n),
                Geometry::Sphere { radius: RADIUS },
            ));
            n += 1;
        }
    }
    let model = b.build().unwrap();
    let mut data = RigidData::new(&model);
    let mut world = ContactWorld::new(shapes, n, ContactMaterial::elastic()).unwrap();
    // The contacts see the initial state; every step_with shows them the accepted state.
    model.accept(&mut data, &mut world).unwrap();
    // Settle into contact for a few steps so the bench measures touching bodies.
    for _ in 0..10 {
        step_with(&model, &mut data, &mut Rk4, DT, &mut world).unwrap();
    }
    assert!(world.active().len() >= side * side, "bottom layer on the plane");
    (model, data, world)
}

fn contact_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("contact_rk4_step");
    for (name, side, layers) in [("sphere_on_plane", 1, 1), ("pile_100_spheres", 5, 4)] {
        let (model, mut data, mut world) = pile(side, layers);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                step_with(&model, &mut data, &mut Rk4, DT, &mut world).unwrap();
                black_box(world.active().len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, contact_step);
criterion_main!(benches);
