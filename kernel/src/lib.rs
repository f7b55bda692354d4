//! # ferrodyn-kernel
//!
//! The `no_std`, allocation-free core of Ferrodyn: rigid multibody dynamics with joints,
//! forces and explicit/semi-implicit integrators, generic over `f32` and `f64`.
//!
//! ## Memory contract
//! All storage is fixed at compile time by const-generic capacities (bodies, joints, forces,
//! constraint rows, skyline entries). Building a model larger than a capacity is a
//! [`BuildError::CapacityExceeded`], never a panic. Stepping never allocates (there is no
//! allocator: the crate is `#![no_std]` without `alloc`) and never panics: every fallible
//! stage returns a [`KernelError`].
//!
//! ## Determinism contract
//! Every elementary function goes through [`Real`], implemented with `libm` for both `f32`
//! and `f64`; no `std` math, no `mul_add`, no SIMD. The same model stepped with the same
//! inputs gives the same bits on x86_64 and on a Cortex-M4F.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod error;
pub mod integrators;
pub mod math;
mod ode;
mod real;

pub use error::{BuildError, Capacity, Item, KernelError};
pub use ode::{Integrator, OdeSystem, Stages, StepStats, STAGE_BUFFERS};
pub use real::Real;
