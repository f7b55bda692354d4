//! Flexible bodies of ANCF tetrahedral elements (see [`crate::ancf`] for the element).
//!
//! A [`Model`] holds one body (or several meshes numbered one after the other): reference
//! nodes, elements with the material of each (law, E, ν, ρ, Rayleigh damping: bodies of
//! different materials in one model, see [`Builder::set_material`]), boundary conditions,
//! gravity and nodal loads, and its consistent
//! mass matrix, assembled over the free coordinates after a reverse Cuthill–McKee node ordering
//! and factorized once (skyline LDLᵀ) at build. A [`Data`] holds the state
//! `y = [e (12 per node) | ė (12 per node)]`, integrator stages and workspace; it is stepped
//! through [`crate::Dynamics`] with any kernel integrator. The integrators advance the
//! displacements from the reference, `[u | u̇]` with u = e − e_ref ([`Data::displacements`]),
//! and e = e_ref + u is formed after every step: in f32 an absolute coordinate rounded to
//! ε₃₂|X| would be a strain of ε₃₂|X|/h (docs/kernel.md has the figures). [`solve_static`] finds the
//! equilibrium by Newton–Raphson with the analytic tangent.
//!
//! Capacities (of the storage): `NODES`, `ELEMENTS` and `PROFILE` (stored entries of the
//! mass/stiffness profile; the builder's error tells the number needed).

mod analysis;
mod data;
mod model;
mod ordering;
mod statics;
mod system;

pub use analysis::{energy, max_frequency, momentum, StableStep};
pub use data::Data;
pub use model::{element_build_error, Builder, Fixity, MeshBuilder, Model, FIXED};
pub use statics::{solve_static, StaticReport};
pub(crate) use system::FlexView;
pub use system::{gather, scatter_add};
