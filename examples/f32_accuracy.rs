//! How far the 5-link chain in joint coordinates stepped in f32 strays from the same chain in
//! f64 (RK4, 1 ms, 1000 steps, released horizontally): the accuracy figure of the firmware's
//! f32 models, with the default f32 math (libm sqrt, Cephes sin/cos) or, built with
//! `--features fast-math-f32`, micromath's approximations (docs/firmware.md).
//!
//! ```sh
//! cargo run --release --features examples --example f32_accuracy
//! cargo run --release --features examples,fast-math-f32 --example f32_accuracy
//! ```

use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::samples::{revolute_chain_tree, ChainSpec};
use ferrodyn::kernel::{step, Dynamics, Fixed};

fn main() {
    const STEPS: usize = 1000;
    let single = revolute_chain_tree::<f32, Fixed<5>>(&ChainSpec::standard(5)).expect("chain");
    let double = revolute_chain_tree::<f64, Fixed<5>>(&ChainSpec::standard(5)).expect("chain");
    let (mut a, mut b) = (single.new_data(), double.new_data());
    let (mut worst_angle, mut worst_rate) = (0.0f64, 0.0f64);
    let energy0 = double.energy(&b).expect("energy").total();
    for _ in 0..STEPS {
        step(&single, &mut a, &mut Rk4, 1e-3).expect("f32 step");
        step(&double, &mut b, &mut Rk4, 1e-3).expect("f64 step");
        let (x, y) = (single.state(&a), double.state(&b));
        for k in 0..5 {
            worst_angle = worst_angle.max((f64::from(x[k]) - y[k]).abs());
            worst_rate = worst_rate.max((f64::from(x[5 + k]) - y[5 + k]).abs());
        }
    }
    let drift32 = f64::from(single.energy(&a).expect("energy").total()) - energy0;
    let math = if cfg!(feature = "fast-math-f32") {
        "micromath (fast-math-f32)"
    } else {
        "default"
    };
    println!(
        "chain5 tree, f32 {math} math vs f64, {STEPS} RK4 steps of 1 ms: max |Δq| = {worst_angle:.3e} rad, max |Δq̇| = {worst_rate:.3e} rad/s, f32 energy change {drift32:.3e} J"
    );
}
