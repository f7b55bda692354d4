//! # ferrodyn-kernel
//!
//! The `no_std`, allocation-free core of Ferrodyn: rigid multibody dynamics with joints,
//! forces and explicit/semi-implicit integrators, generic over `f32` and `f64`.
//!
//! ```
//! use ferrodyn_kernel::{integrators::Rk4, math::{Mat3, Quat, Vec3}, *};
//! // A 1 kg pendulum on a 1 m massless rod, modelled by a distance constraint.
//! let mut b = Model::<f64, 1, 1, 0, 1, 1>::builder(Vec3::new(0.0, 0.0, -9.81));
//! let bob = b.add_body(Body::sphere(1.0, 0.01).at(Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY)).unwrap();
//! b.add_joint(Joint::new(JointKind::Distance { length: 1.0 }, BodyRef::Ground, Frame::at(Vec3::ZERO),
//!                        bob, Frame::at(Vec3::ZERO))).unwrap();
//! let model = b.build().unwrap();
//! let mut data = Data::new(&model);
//! for _ in 0..1000 { step(&model, &mut data, &mut Rk4, 1e-3).unwrap(); }
//! assert!(data.position(0).z < 0.0);
//! ```
//!
//! ## Memory contract
//! All storage is fixed at compile time by const-generic capacities (bodies, joints, forces,
//! constraint rows, skyline entries). Building a model larger than a capacity is a
//! [`BuildError::CapacityExceeded`], never a panic. Stepping never allocates (there is no
//! allocator: the crate is `#![no_std]` without `alloc`) and returns every failure as a
//! [`KernelError`].
//!
//! ## Determinism contract
//! Every elementary function goes through [`Real`], implemented with `libm` for both `f32`
//! and `f64`; no `std` math, no `mul_add`, no SIMD. The same model stepped with the same
//! inputs gives the same bits on x86_64 and on a Cortex-M4F.
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod analysis;
pub mod ancf;
mod body;
mod constraint;
pub mod coupled;
mod data;
mod dynamics;
mod error;
mod external;
pub mod flex;
mod force;
pub mod integrators;
mod joint;
pub mod math;
mod model;
pub mod models;
mod ode;
mod real;
mod simulation;
mod single_trig;
mod skyline;
mod storage;
mod time_function;
pub mod tree;

pub use body::{Body, BodyRef, MassProperties};
pub use constraint::ConstraintRow;
pub use data::{Data, RigidData, BODY_STATE};
pub use error::{BuildError, Capacity, Item, KernelError};
pub use external::{ExternalForces, ExternalLoads, NoExternalForces};
pub use force::{Axes, Force};
pub use joint::{DrivenCoordinate, Frame, Joint, JointKind};
pub use model::{skyline_entries, Model, ModelBuilder, RigidBuilder, RigidModel, Stabilization};
pub(crate) use ode::Clock;
pub use ode::{Integrator, OdeSystem, Stages, StepStats, STAGE_BUFFERS};
pub use real::Real;
pub use simulation::{accelerations, assemble, evaluate_constraints, forward, step, step_with};
pub use storage::{DataStorage, Fixed, FixedData, List, ModelStorage};
pub use time_function::{TimeFunction, TimeValue, TABLE_POINTS};
