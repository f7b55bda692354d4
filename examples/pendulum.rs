//! Simple pendulum (1 kg, 1 m, released at 90°) in the console: measured period against the
//! exact elliptic-integral value, and the energy error of RK4 at dt = 1 ms.
//!
//! Run: `cargo run --release --features examples --example pendulum`

use ferrodyn::kernel::rigid::{self, Data};
use ferrodyn::kernel::samples::{simple_pendulum, PendulumCapacities, GRAVITY};
use ferrodyn::kernel::{integrators::Rk4, step};
use std::f64::consts::{FRAC_PI_2, PI};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1 body, 1 joint, no force, 1 constraint row, 1 skyline entry.
    let model = simple_pendulum::<f64, PendulumCapacities>(1.0, 1.0, FRAC_PI_2)?;
    let mut data = Data::new(&model);
    let dt = 1e-3;
    let e0 = rigid::energy(&model, &data).total();
    let (mut last_x, mut crossings) = (data.position(0).x, Vec::new());
    println!(
        "{:>6} {:>10} {:>10} {:>12}",
        "t (s)", "x (m)", "z (m)", "E − E0 (J)"
    );
    for k in 1..=10_000 {
        step(&model, &mut data, &mut Rk4, dt)?;
        let p = data.position(0);
        if last_x < 0.0 && p.x >= 0.0 {
            // Linear interpolation of the upward zero crossing of x.
            crossings.push(data.time() - dt * p.x / (p.x - last_x));
        }
        last_x = p.x;
        if k % 500 == 0 {
            let de = rigid::energy(&model, &data).total() - e0;
            println!("{:>6.2} {:>10.6} {:>10.6} {:>12.3e}", data.time(), p.x, p.z, de);
        }
    }
    let measured = (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    // T = 4 √(L/g) K(sin 45°), K by the arithmetic–geometric mean.
    let (mut a, mut b) = (1.0f64, (0.5f64).sqrt());
    for _ in 0..30 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    let exact = 4.0 * (1.0 / GRAVITY).sqrt() * PI / (2.0 * a);
    println!("period: measured {measured:.7} s, exact {exact:.7} s");
    Ok(())
}
