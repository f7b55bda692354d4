//! Flexible bodies of ANCF tetrahedral elements (see [`crate::ancf`] for the element).
//!
//! A [`FlexModel`] holds one body: reference nodes, elements, material, boundary conditions,
//! gravity and nodal loads, and its consistent mass matrix, assembled over the free coordinates
//! after a reverse Cuthill–McKee node ordering and factorized once (skyline LDLᵀ) at build.
//! A [`FlexData`] holds the state `y = [e (12 per node) | ė (12 per node)]`, integrator stages
//! and workspace. [`step_flex`] advances it with any kernel integrator; [`solve_static`] finds
//! the equilibrium by Newton–Raphson with the analytic tangent.
//!
//! Capacities: `NODES`, `ELEMENTS` and `SKYLINE` (stored entries of the mass/stiffness profile;
//! the builder's error tells the number needed).

mod analysis;
mod data;
mod model;
mod ordering;
mod statics;
mod system;

pub use analysis::{flex_energy, flex_momentum, max_frequency, FlexEnergy, StableStep};
pub use data::FlexData;
pub use model::{element_build_error, Fixity, FlexBuilder, FlexMeshBuilder, FlexModel};
pub use statics::{solve_static, StaticReport};
pub(crate) use system::FlexView;
pub use system::{step_flex, step_flex_with, FlexExternalForces};
