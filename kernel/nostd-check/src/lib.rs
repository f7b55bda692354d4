//! Instantiates the kernel's generic code (a 5-link chain, every integrator, f32 and f64) in a
//! `#![no_std]` library without an allocator.
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
