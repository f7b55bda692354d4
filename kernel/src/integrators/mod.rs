//! Time integrators behind the one [`crate::Integrator`] trait.
//!
//! | method | order | evaluations / step | stage buffers used |
//! |---|---|---|---|
//! | [`Rk4`] | 4 | 4 | `k[0]` copy of `y(t)`, `k[1..5]` slopes (5) |
//! | [`SemiImplicitEuler`] | 1, symplectic | 1 | `k[0]` copy of `y(t)`, `k[1]` derivative (2) |
//! | [`VelocityVerlet`] | 2, symplectic | 2 | `k[0]` copy of `y(t)`, `k[1]` derivative (2) |
//!
//! All fit in [`crate::STAGE_BUFFERS`] = 9 buffers; `y` itself holds the intermediate stage
//! arguments. Every method keeps the copy of `y(t)` in `k[0]` and restores it on any error.

mod common;
mod rk4;
mod semi_implicit_euler;
mod velocity_verlet;

#[cfg(test)]
mod test_systems;

pub use rk4::Rk4;
pub use semi_implicit_euler::SemiImplicitEuler;
pub use velocity_verlet::VelocityVerlet;
