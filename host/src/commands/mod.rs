//! The `ferrodyn` commands as library functions: each loads or builds a scene, compiles it into
//! a [`Simulation`](crate::simulation::Simulation) and drives, checks or shows it. `view` and
//! `render` live in [`crate::view`].

mod check;
mod export;
mod import;
mod import_servos;
mod overrides;
mod run;

pub use check::check;
pub use export::{export_firmware, export_fmu, export_rust, rust_module_of};
pub use import::import_model;
pub use import_servos::parse_gains as parse_servo_gains;
pub use overrides::{Overrides, ATOL_PER_RTOL};
pub use run::{run, RunOptions};

/// `n` and the noun in the number it takes: "1 body", "3 bodies".
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
