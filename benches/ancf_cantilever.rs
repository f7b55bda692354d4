//! Time per explicit step (RK4 and semi-implicit Euler) of the ANCF tetrahedral cantilever
//! (1 m × 0.1 m × 0.1 m, E = 1e8 Pa, ν = 0.3, ρ = 1000 kg/m³, clamped at x = 0, under gravity)
//! at three mesh sizes: 4, 8 and 16 hexahedra along the beam, 6 tetrahedra each. The step is
//! whatever the mesh needs (0.8 × the smaller stability limit, the same for both methods) — the
//! figure here is the cost of one step, which should grow linearly with the element count.
//! The implicit cantilever benchmark belongs to the implicit solver (host/src/implicit).
//!
//! Run: `cargo bench -p ferrodyn-benches --bench ancf_cantilever -- --warm-up-time 1 --measurement-time 3`

use criterion::{BenchmarkId, Criterion};
use ferrodyn::host::storage::{FlexData, FlexModel};
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::{max_frequency, Fixity};
use ferrodyn::kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::samples::add_box_mesh;
use ferrodyn::kernel::{step, Integrator};
use std::hint::black_box;

/// The cantilever on the host's growable storage (the kernel's flexible model and step; only
/// where the lists live differs from a fixed-capacity build).
fn beam(divisions: usize) -> FlexModel {
    let material = Material::st_venant_kirchhoff(1e8, 0.3, 1000.0).expect("material");
    let mut b = FlexModel::builder(material, Vec3::new(0.0, 0.0, -9.81));
    add_box_mesh(
        &mut b,
        Vec3::new(0.0, -0.05, -0.05),
        Vec3::new(1.0, 0.1, 0.1),
        [divisions, 1, 1],
    )
    .expect("mesh");
    b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
        .expect("clamp");
    b.build().expect("beam")
}

fn bench_method<I: Integrator<f64> + Copy>(
    c: &mut Criterion,
    name: &str,
    method: I,
    model: &FlexModel,
    dt: f64,
) {
    let mut data = FlexData::new(model);
    let start = data.clone();
    let mut group = c.benchmark_group(format!("ancf_cantilever_{name}"));
    group.bench_function(BenchmarkId::from_parameter(model.element_count()), |b| {
        let mut method = method;
        b.iter(|| {
            // Restart periodically so every sample sees the same part of the motion.
            if data.steps() > 2000 {
                data = start.clone();
            }
            step(black_box(model), &mut data, &mut method, dt).expect("step");
        })
    });
    group.finish();
}

fn bench_mesh(c: &mut Criterion, divisions: usize) {
    let model = beam(divisions);
    let mut data = FlexData::new(&model);
    // The smaller of the two stability limits (semi-implicit Euler's, 2/ω_max), for both.
    let limit = max_frequency(&model, &mut data, 500).expect("ω_max");
    let dt = 0.8 * limit.symplectic().min(limit.rk4());
    bench_method(c, "rk4", Rk4, &model, dt);
    bench_method(c, "semi_implicit_euler", SemiImplicitEuler, &model, dt);
}

fn cantilevers(c: &mut Criterion) {
    bench_mesh(c, 4);
    bench_mesh(c, 8);
    bench_mesh(c, 16);
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    cantilevers(&mut c);
    c.final_summary();
}
