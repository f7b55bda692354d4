//! The `ferrodyn` commands as library functions: each loads or builds a scene, compiles it into
//! a [`Simulation`](crate::simulation::Simulation) and drives, checks or shows it. `view` and
//! `render` live in [`crate::view`].

mod check;
mod export;
mod overrides;
mod run;

pub use check::check;
pub use export::{export_fmu, export_rust};
pub use overrides::{Overrides, ATOL_PER_RTOL};
pub use run::{run, RunOptions};
