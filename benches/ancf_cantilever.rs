//! Time per explicit step (RK4 and semi-implicit Euler) of the ANCF tetrahedral cantilever
//! (1 m × 0.1 m × 0.1 m, E = 1e8 Pa, ν = 0.3, ρ = 1000 kg/m³, clamped at x = 0, under gravity)
//! at three mesh sizes: 4, 8 and 16 hexahedra along the beam, 6 tetrahedra each. The step is
//! whatever the mesh needs (0.8 × the smaller stability limit, the same for both methods) — the
//! figure here is the cost of one step, which should grow linearly with the element count.
//! The implicit cantilever benchmark belongs to the implicit solver (host/src/implicit).
//!
//! Run: `cargo bench --bench ancf_cantilever -- --warm-up-time 1 --measurement-time 3`

use criterion::{BenchmarkId, Criterion};
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::{max_frequency, step_flex, Fixity, FlexData, FlexModel};
use ferrodyn::kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::models::add_box_mesh;
use ferrodyn::kernel::Integrator;
use std::hint::black_box;

fn beam<const N: usize, const E: usize, const S: usize>(divisions: usize) -> Box<FlexModel<f64, N, E, S>> {
    let material = Material::st_venant_kirchhoff(1e8, 0.3, 1000.0).expect("material");
    let mut b = FlexModel::<f64, N, E, S>::builder(material, Vec3::new(0.0, 0.0, -9.81));
    add_box_mesh(
        &mut b,
        Vec3::new(0.0, -0.05, -0.05),
        Vec3::new(1.0, 0.1, 0.1),
        [divisions, 1, 1],
    )
    .expect("mesh");
    b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })
        .expect("clamp");
    Box::new(b.build().expect("beam"))
}

fn bench_method<I: Integrator<f64> + Copy, const N: usize, const E: usize, const S: usize>(
    c: &mut Criterion,
    name: &str,
    method: I,
    model: &FlexModel<f64, N, E, S>,
    dt: f64,
) {
    let mut data = Box::new(FlexData::new(model));
    let start = data.clone();
    let mut group = c.benchmark_group(format!("ancf_cantilever_{name}"));
    group.bench_function(BenchmarkId::from_parameter(model.element_count()), |b| {
        let mut method = method;
        b.iter(|| {
            // Restart periodically so every sample sees the same part of the motion.
            if data.steps() > 2000 {
                *data = (*start).clone();
            }
            step_flex(black_box(model), &mut data, &mut method, dt).expect("step");
        })
    });
    group.finish();
}

fn bench_mesh<const N: usize, const E: usize, const S: usize>(c: &mut Criterion, divisions: usize) {
    let model = beam::<N, E, S>(divisions);
    let mut data = Box::new(FlexData::new(&*model));
    // The smaller of the two stability limits (semi-implicit Euler's, 2/ω_max), for both.
    let limit = max_frequency(&*model, &mut data, 500).expect("ω_max");
    let dt = 0.8 * limit.symplectic().min(limit.rk4());
    bench_method(c, "rk4", Rk4, &model, dt);
    bench_method(c, "semi_implicit_euler", SemiImplicitEuler, &model, dt);
}

fn cantilevers(c: &mut Criterion) {
    bench_mesh::<20, 24, 20_000>(c, 4);
    bench_mesh::<36, 48, 40_000>(c, 8);
    bench_mesh::<68, 96, 80_000>(c, 16);
}

fn main() {
    // Kernel models are fixed-size values: run on a thread with a large stack.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(|| {
            let mut c = Criterion::default().configure_from_args();
            cantilevers(&mut c);
            c.final_summary();
        })
        .expect("bench thread")
        .join()
        .expect("bench thread panicked");
}
