//! Energy bookkeeping of ANCF bodies without damping: a free-flying Neo-Hookean block spun up
//! from a rigid motion (kinetic ↔ strain exchange, momenta conserved), then a clamped block
//! released from a deflected shape, each with RK4 at a fifth of its stability limit.
//!
//! Run: `cargo run --release --features examples --example flex_energy`

use ferrodyn::host::storage::{FlexData, FlexModel};
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::*;
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::{Quat, Vec3};
use ferrodyn::kernel::samples::add_box_mesh;
use ferrodyn::kernel::step;

/// The block on the host's growable storage (18 nodes, 12 tets).
type Block = FlexModel;

fn block(gravity: f64, clamped: bool) -> Result<Block, Box<dyn std::error::Error>> {
    let mut b = Block::builder(
        Material::neo_hookean(1e6, 0.3, 1000.0)?,
        Vec3::new(0.0, 0.0, -gravity),
    );
    add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.2, 0.1, 0.1), [2, 1, 1])?;
    if clamped {
        b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })?;
    }
    Ok(b.build()?)
}

fn report(
    name: &str,
    model: &Block,
    data: &mut FlexData,
    duration: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let dt = 0.2 * max_frequency(model, data, 500)?.rk4();
    let e0 = energy(model, data)?;
    let (p0, l0) = momentum(model, data);
    println!("{name}: dt = {dt:.3e} s");
    println!(
        "{:>7} {:>12} {:>12} {:>12} {:>10} {:>10} {:>10}",
        "t (s)", "kinetic", "strain", "total", "ΔE/E0", "|Δp|", "|ΔL|"
    );
    let every = ((duration / 10.0) / dt).round().max(1.0) as u64;
    while data.time() < duration {
        step(model, data, &mut Rk4, dt)?;
        if data.steps() % every == 0 {
            let e = energy(model, data)?;
            let (p, l) = momentum(model, data);
            println!(
                "{:>7.4} {:>12.5e} {:>12.5e} {:>12.6e} {:>10.2e} {:>10.2e} {:>10.2e}",
                data.time(),
                e.kinetic,
                e.strain,
                e.total(),
                (e.total() - e0.total()) / e0.total(),
                (p - p0).norm(),
                (l - l0).norm()
            );
        }
    }
    Ok(())
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let free = block(0.0, false)?;
    let mut data = FlexData::new(&free);
    let rotation = Quat::from_roll_pitch_yaw(0.3, -0.2, 0.5).to_matrix();
    data.set_rigid_motion(
        &free,
        rotation,
        Vec3::new(1.0, 0.0, 0.5),
        Vec3::new(0.3, -0.1, 0.2),
        Vec3::new(1.0, 2.0, 4.0),
    );
    report("free-flying spinning block", &free, &mut data, 0.2)?;

    let clamped = block(0.0, true)?;
    let mut data = FlexData::new(&clamped);
    solve_static(&block(100.0, true)?, &mut data, 1, 1e-12, 20)?;
    report(
        "clamped block released from its deflected shape (momenta include the clamp reaction)",
        &clamped,
        &mut data,
        0.05,
    )
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
    }
}
