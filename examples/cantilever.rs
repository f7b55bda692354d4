//! ANCF cantilever (1 m × 0.1 m × 0.1 m, E = 1e8 Pa, ν = 0.3, ρ = 1000 kg/m³, 16×1×1 hexahedra
//! split into 96 tetrahedra): static tip deflection under gravity by Newton's method against
//! Timoshenko, then free vibration after gravity is switched off, with the tip history.
//!
//! Run: `cargo run --release --features examples --example cantilever`

use ferrodyn::host::storage::{FlexData, FlexModel};
use ferrodyn::kernel::ancf::Material;
use ferrodyn::kernel::flex::*;
use ferrodyn::kernel::integrators::Rk4;
use ferrodyn::kernel::math::Vec3;
use ferrodyn::kernel::samples::add_box_mesh;
use ferrodyn::kernel::step;

/// The beam on the host's growable storage (68 nodes, 96 tets).
type Beam = FlexModel;

fn beam(gravity: f64) -> Result<Beam, Box<dyn std::error::Error>> {
    let material = Material::st_venant_kirchhoff(1e8, 0.3, 1000.0)?;
    let mut b = Beam::builder(material, Vec3::new(0.0, 0.0, -gravity));
    add_box_mesh(
        &mut b,
        Vec3::new(0.0, -0.05, -0.05),
        Vec3::new(1.0, 0.1, 0.1),
        [16, 1, 1],
    )?;
    b.fix_plane(0, 0.0, 1e-9, Fixity::ClampedFace { normal_axis: 0 })?;
    Ok(b.build()?)
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let (loaded, free) = (beam(9.81)?, beam(0.0)?);
    let tip: Vec<usize> = (0..free.node_count())
        .filter(|&i| free.reference(i).is_some_and(|x| x.x > 0.999))
        .collect();
    let deflection = |data: &FlexData| {
        tip.iter()
            .map(|&i| data.position(i).z - free.reference(i).unwrap_or_default().z)
            .sum::<f64>()
            / tip.len() as f64
    };
    let mut data = FlexData::new(&loaded);
    let report = solve_static(&loaded, &mut data, 1, 1e-12, 20)?;
    let (a, i, q) = (0.01, 1e-4 / 12.0, 1000.0 * 9.81 * 0.01);
    let timoshenko = q / (8.0 * 1e8 * i) + q / (2.0 * 5.0 / 6.0 * 1e8 / 2.6 * a);
    println!(
        "{} DOF; static solve: {} Newton iterations",
        free.dof_count(),
        report.iterations
    );
    println!(
        "tip deflection {:.5e} m, Timoshenko {timoshenko:.5e} m ({:+.2}%)",
        -deflection(&data),
        100.0 * (-deflection(&data) - timoshenko) / timoshenko
    );
    let limit = max_frequency(&free, &mut data, 500)?;
    let dt = 0.8 * limit.rk4();
    println!(
        "ω_max {:.3e} rad/s → RK4 step {dt:.3e} s; free vibration without gravity:",
        limit.omega_max
    );
    println!("{:>8} {:>12} {:>12}", "t (s)", "tip z (m)", "E (J)");
    let every = (0.02 / dt).round() as u64;
    while data.time() < 0.4 {
        step(&free, &mut data, &mut Rk4, dt)?;
        if data.steps() % every == 0 {
            println!(
                "{:>8.3} {:>12.5e} {:>12.6e}",
                data.time(),
                deflection(&data),
                energy(&free, &data)?.total()
            );
        }
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
    }
}
