//! # ferrodyn-kernel
//!
//! The `no_std`, allocation-free core of Ferrodyn: rigid multibody dynamics in Cartesian
//! ([`rigid`]) and joint coordinates ([`tree`]), ANCF tetrahedral flexible bodies ([`flex`],
//! elements in [`ancf`]), rigid–flexible systems ([`coupled`]), forces, and explicit and
//! semi-implicit integrators ([`integrators`]), generic over `f32` and `f64`.
//!
//! Every family has a `Model` (the immutable description) and a `Data` (all mutable state) and
//! implements one trait, [`Dynamics`]: step under any [`Integrator`], with or without
//! [`ExternalForces`], time, [`Energy`], the state as one flat slice, a [`Digest`] of its bits.
//!
//! ```
//! use ferrodyn_kernel::{integrators::Rk4, samples, step, Dynamics, Fixed};
//! // The 5-link chain of unit rods, released horizontally: 5 bodies, 5 joints, no force
//! // element, 25 constraint rows, 175 skyline entries, spelled once.
//! type Chain = Fixed<5, 5, 0, 25, 175>;
//! let model = samples::revolute_chain::<f32, Chain>(&samples::ChainSpec::standard(5)).unwrap();
//! let mut data = model.new_data();
//! for _ in 0..100 { step(&model, &mut data, &mut Rk4, 1e-3).unwrap(); }
//! let e = model.energy(&data).unwrap();
//! assert!(e.total().abs() < 1e-3, "released at rest at zero height: E stays 0");
//! ```
//!
//! ## Memory contract
//! All storage is fixed at compile time by the capacities of a [`Fixed`] storage (bodies,
//! joints, forces, constraint rows, skyline entries, nodes, elements, profile entries, state),
//! spelled once in one type. Building a model larger than a capacity is a
//! [`BuildError::CapacityExceeded`], never a panic. Stepping never allocates (there is no
//! allocator: the crate is `#![no_std]` without `alloc`) and returns every failure as a
//! [`KernelError`]. A host may supply growable storage instead ([`Storage`]); the algorithms
//! see slices only, so both run the same code.
//!
//! ## Determinism contract
//! Every elementary function goes through [`Real`], implemented with `libm` for both `f32`
//! and `f64`; no `std` math, no `mul_add`, no SIMD. The same model stepped with the same
//! inputs gives the same bits on x86_64 and on a Cortex-M4F.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ancf;
pub mod contact;
pub mod coupled;
mod digest;
mod dynamics;
mod error;
pub mod flex;
pub mod integrators;
mod limit;
mod loads;
pub mod math;
mod port;
pub mod rigid;
pub mod samples;
mod storage;
mod time_function;
pub mod tree;

pub use digest::Digest;
pub use dynamics::{step, step_with, Dynamics, Energy};
pub use error::{BuildError, Capacity, Described, Item, KernelError};
pub(crate) use integrators::Clock;
pub use integrators::{Integrator, OdeSystem, Stages, StepStats, STAGE_BUFFERS};
pub use limit::JointLimit;
pub use loads::{ExternalForces, ExternalLoads, NoExternalForces};
pub use math::Real;
pub use port::Port;
pub use storage::{Fixed, List, Storage};
pub use time_function::{CubicTable, Piece, Piecewise, Rate, TimeFunction, TimeValue, PIECES, TABLE_POINTS};
