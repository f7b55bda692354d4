//! Instantiates the kernel's generic code (a 5-link chain with every integrator, an ANCF block,
//! the rigid–flexible spinning beam; f32 and f64) in a `#![no_std]` library without an allocator.
#![no_std]

use ferrodyn_kernel::integrators::{AdaptiveConfig, Method};
use ferrodyn_kernel::models::{revolute_chain, ChainSpec};
use ferrodyn_kernel::{analysis, step, Data, Model, Real};

const N: usize = 5;

fn run<R: Real>() -> R {
    let model: Model<R, N, N, 0, { 5 * N }, { ChainSpec::<f64>::skyline_entries(N) }> =
        match revolute_chain(&ChainSpec::standard(N)) {
            Ok(m) => m,
            Err(_) => return R::ZERO,
        };
    let mut data = Data::new(&model);
    let config = AdaptiveConfig::default();
    for mut method in [
        Method::Rk4,
        Method::rkf45(config),
        Method::dopri45(config),
        Method::SemiImplicitEuler,
        Method::VelocityVerlet,
    ] {
        for _ in 0..10 {
            if step(&model, &mut data, &mut method, R::from_f64(1e-3)).is_err() {
                return R::ZERO;
            }
        }
    }
    analysis::energy(&model, &data).total()
}

/// A 6-tet ANCF block (clamped face) stepped with RK4, and the spinning beam (rigid hub +
/// attached ANCF beam) stepped once: instantiates the flexible and coupled code paths.
fn flexible<R: Real>() -> R {
    use ferrodyn_kernel::ancf::Material;
    use ferrodyn_kernel::coupled::{step_coupled, CoupledData};
    use ferrodyn_kernel::flex::{flex_energy, step_flex, Fixity, FlexData, FlexModel};
    use ferrodyn_kernel::math::Vec3;
    use ferrodyn_kernel::models::{add_box_mesh, spinning_beam};
    let Ok(material) = Material::st_venant_kirchhoff(R::from_f64(1e6), R::from_f64(0.3), R::from_f64(1000.0))
    else {
        return R::ZERO;
    };
    let mut b = FlexModel::<R, 8, 6, 600>::builder(material, Vec3::new(R::ZERO, R::ZERO, -R::from_f64(9.81)));
    let size = Vec3::new(R::from_f64(0.2), R::from_f64(0.1), R::from_f64(0.1));
    if add_box_mesh(&mut b, Vec3::ZERO, size, [1, 1, 1]).is_err()
        || b.fix_plane(
            0,
            R::ZERO,
            R::from_f64(1e-6),
            Fixity::ClampedFace { normal_axis: 0 },
        )
        .is_err()
    {
        return R::ZERO;
    }
    let Ok(model) = b.build() else { return R::ZERO };
    let mut data = FlexData::new(&model);
    for _ in 0..10 {
        if step_flex(
            &model,
            &mut data,
            &mut ferrodyn_kernel::integrators::Rk4,
            R::from_f64(1e-5),
        )
        .is_err()
        {
            return R::ZERO;
        }
    }
    let Ok(beam) = spinning_beam(R::from_f64(10.0), R::ZERO) else {
        return R::ZERO;
    };
    let Ok(mut coupled) =
        CoupledData::<R, 1, 6, 21, 20, 20_000, 600>::new(&beam.hub, &beam.beam, &beam.attachments)
    else {
        return R::ZERO;
    };
    let _ = step_coupled(
        &beam.hub,
        &beam.beam,
        &beam.attachments,
        &mut coupled,
        &mut ferrodyn_kernel::integrators::Rk4,
        R::from_f64(1e-5),
    );
    flex_energy(&model, &data).map(|e| e.total()).unwrap_or(R::ZERO)
}

/// Energy of the flexible block after 10 steps (f32).
#[no_mangle]
pub extern "C" fn ferrodyn_check_flex_f32() -> f32 {
    flexible::<f32>()
}

/// Energy of the flexible block after 10 steps (f64).
#[no_mangle]
pub extern "C" fn ferrodyn_check_flex_f64() -> f64 {
    flexible::<f64>()
}

/// Total energy of the chain after 50 steps in f64.
#[no_mangle]
pub extern "C" fn ferrodyn_check_f64() -> f64 {
    run::<f64>()
}

/// Total energy of the chain after 50 steps in f32.
#[no_mangle]
pub extern "C" fn ferrodyn_check_f32() -> f32 {
    run::<f32>()
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
