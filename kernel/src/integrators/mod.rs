//! Time integrators behind the one [`Integrator`] trait, and the [`OdeSystem`] interface through
//! which they advance every model family.
//!
//! | method | order | evaluations / step | stage buffers used |
//! |---|---|---|---|
//! | [`Rk4`] | 4 | 4 | `k[0]` copy of `y(t)`, `k[1..5]` slopes (5) |
//! | [`Rkf45`] | 4 (5 for the error) | 6 per substep | `k[0]` copy of `y(t)`, `k[1]` substep start, `k[2..8]` slopes (8) |
//! | [`Dopri45`] | 5 (4 for the error) | 7 per substep | `k[0]` copy of `y(t)`, `k[1]` substep start, `k[2..9]` slopes (9) |
//! | [`SemiImplicitEuler`] | 1, symplectic | 1 | `k[0]` copy of `y(t)`, `k[1]` derivative (2) |
//! | [`VelocityVerlet`] | 2 (also with velocity-dependent forces), symplectic for velocity-independent ones | 2 | `k[0]` copy of `y(t)`, `k[1]` derivative, `k[2]` v½ (3) |
//!
//! All fit in [`STAGE_BUFFERS`] = 9 buffers; `y` itself holds the intermediate stage
//! arguments. Every method keeps the copy of `y(t)` in `k[0]` and restores it on any error.
//! [`Method`] selects one at run time.

mod adaptive_config;
mod common;
mod dopri45;
mod embedded;
mod method;
mod ode;
mod rk4;
mod rkf45;
mod semi_implicit_euler;
mod velocity_verlet;

#[cfg(test)]
mod embedded_tests;
#[cfg(test)]
mod test_systems;

pub use adaptive_config::AdaptiveConfig;
pub use dopri45::{Dopri45, DormandPrince54};
pub use embedded::{EmbeddedPair, EmbeddedRk, Tableau, MAX_STAGES};
pub use method::{Method, METHOD_NAMES};
pub(crate) use ode::{add_increment, stage_argument, Clock};
pub use ode::{Integrator, OdeSystem, Stages, StepStats, STAGE_BUFFERS};
pub use rk4::Rk4;
pub use rkf45::{Fehlberg45, Rkf45};
pub use semi_implicit_euler::SemiImplicitEuler;
pub use velocity_verlet::VelocityVerlet;
