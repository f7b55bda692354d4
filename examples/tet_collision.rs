//! Two ANCF tetrahedral blocks colliding with each other and with the ground: a 1 kg rubber
//! cube falling at 1 m/s onto a 2 kg block lying on a steel floor, node-to-surface and
//! node-to-plane Hertz–Flores–Coulomb contact, RK4 with contact forces at every stage.
//!
//! Run: `cargo run --release --features examples --example tet_collision -- [elastic|plastic]` (default: both).

// The scenario is shared with the host's contact tests (written against the crates
// `ferrodyn_host` and `ferrodyn_kernel`, both dependencies of this package).
#[path = "../host/tests/suite/common/tet_collision.rs"]
mod tet_collision;

use tet_collision::run;

fn main() -> Result<(), String> {
    let modes: Vec<bool> = match std::env::args().nth(1).as_deref() {
        Some("elastic") => vec![false],
        Some("plastic") => vec![true],
        None => vec![false, true],
        Some(other) => return Err(format!("unknown mode '{other}': choose elastic or plastic")),
    };
    for plastic in modes {
        let r = run(plastic, 0.06).map_err(|e| e.to_string())?;
        println!(
            "{}: {} RK4 steps of {:.2e} s; falling block vz {:.3} → {:.3} m/s; deepest node in the other block {:.2e} m, in the ground {:.2e} m (Hertz bound {:.2e} m); ground impulse {:.4} N·s; momentum balance error {:.1e}",
            if plastic { "plastic" } else { "elastic" },
            r.steps,
            r.dt,
            r.falling_vz.0,
            r.falling_vz.1,
            r.deepest_pair,
            r.deepest_ground,
            r.hertz_depth,
            r.ground_impulse.z,
            r.momentum_error
        );
    }
    Ok(())
}
