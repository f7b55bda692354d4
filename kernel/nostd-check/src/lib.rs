//! Instantiates the kernel's generic code (a 5-link chain with every integrator, an ANCF block,
//! the rigid–flexible spinning beam; f32 and f64) in a `#![no_std]` library without an allocator.
#![no_std]

use ferrodyn_kernel::integrators::{AdaptiveConfig, Method};
use ferrodyn_kernel::samples::{revolute_chain, revolute_chain_tree, ChainSpec};
use ferrodyn_kernel::{step, Dynamics, Fixed, Real};

const N: usize = 5;

fn run<R: Real>() -> R {
    let Ok(model) = revolute_chain::<R, Fixed<N, N, 0, { 5 * N }, { ChainSpec::<f64>::skyline_entries(N) }>>(
        &ChainSpec::standard(N),
    ) else {
        return R::ZERO;
    };
    let Ok(tree) = revolute_chain_tree::<R, Fixed<N>>(&ChainSpec::standard(N)) else {
        return R::ZERO;
    };
    let mut data = model.new_data();
    let mut tree_data = tree.new_data();
    let config = AdaptiveConfig::default();
    for mut method in [
        Method::Rk4,
        Method::rkf45(config),
        Method::dopri45(config),
        Method::SemiImplicitEuler,
        Method::VelocityVerlet,
    ] {
        for _ in 0..10 {
            let dt = R::from_f64(1e-3);
            if step(&model, &mut data, &mut method, dt).is_err()
                || step(&tree, &mut tree_data, &mut method, dt).is_err()
            {
                return R::ZERO;
            }
        }
    }
    let energy = |e: Result<ferrodyn_kernel::Energy<R>, _>| e.map(|e| e.total()).unwrap_or(R::ZERO);
    energy(model.energy(&data)) + energy(tree.energy(&tree_data))
}

/// A 6-tet ANCF block (clamped face) stepped with RK4, and the spinning beam (rigid hub +
/// attached ANCF beam) stepped once: instantiates the flexible and coupled code paths.
fn flexible<R: Real>() -> R {
    use ferrodyn_kernel::ancf::Material;
    use ferrodyn_kernel::flex::{self, Fixity};
    use ferrodyn_kernel::integrators::Rk4;
    use ferrodyn_kernel::math::Vec3;
    use ferrodyn_kernel::samples::{add_box_mesh, spinning_beam};
    let Ok(material) = Material::st_venant_kirchhoff(R::from_f64(1e6), R::from_f64(0.3), R::from_f64(1000.0))
    else {
        return R::ZERO;
    };
    let gravity = Vec3::new(R::ZERO, R::ZERO, -R::from_f64(9.81));
    let mut b = flex::Model::<R, Fixed<0, 0, 0, 0, 0, 8, 6, 1533>>::builder(material, gravity);
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
    let mut data = model.new_data();
    for _ in 0..10 {
        if step(&model, &mut data, &mut Rk4, R::from_f64(1e-5)).is_err() {
            return R::ZERO;
        }
    }
    let Ok(beam) = spinning_beam::<R, Fixed<1, 2, 0, 6, 21, 20, 24, 11109, 493>>(R::from_f64(10.0), R::ZERO)
    else {
        return R::ZERO;
    };
    let mut coupled = beam.new_data();
    let _ = step(&beam, &mut coupled, &mut Rk4, R::from_f64(1e-5));
    model.energy(&data).map(|e| e.total()).unwrap_or(R::ZERO)
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
