//! The 20-link revolute chain (unit links) released horizontally: energy and constraint drift
//! every second, with the solver statistics.
//!
//! Run: `cargo run --release --features examples --example chain20`

use ferrodyn::kernel::rigid::{self, Data, Model};
use ferrodyn::kernel::samples::{revolute_chain, ChainSpec};
use ferrodyn::kernel::{integrators::Rk4, step, Fixed};

const N: usize = 20;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let model: Model<f64, Fixed<N, N, 0, { 5 * N }, { ChainSpec::<f64>::skyline_entries(N) }>> =
        revolute_chain(&ChainSpec::standard(N))?;
    let mut data = Data::new(&model);
    let e0 = rigid::energy(&model, &data).total();
    println!(
        "{:>5} {:>12} {:>12} {:>12} {:>10}",
        "t (s)", "KE (J)", "ΔE (J)", "|Φ| (m)", "tip z (m)"
    );
    for k in 1..=10_000 {
        step(&model, &mut data, &mut Rk4, 1e-3)?;
        if k % 1000 == 0 {
            let e = rigid::energy(&model, &data);
            let v = rigid::violation(&model, &data);
            let tip = data.position(N - 1).z;
            println!(
                "{:>5.1} {:>12.4} {:>12.3e} {:>12.2e} {:>10.4}",
                data.time(),
                e.kinetic,
                e.total() - e0,
                v.position,
                tip
            );
        }
    }
    let s = data.total_stats();
    println!(
        "{} steps, {} evaluations, {} projection iterations",
        data.steps(),
        s.evaluations,
        s.projection_iterations
    );
    Ok(())
}
