//! Contact, Hertz–Flores–Coulomb ([`force`]), applied inside the dynamics at every integrator
//! stage:
//! - rigid bodies ([`world`]): shapes on bodies, broad phase by sweep and prune ([`broad`]),
//!   narrow phase by parry3d and a box–plane corner test ([`ContactWorld`]);
//! - flexible (ANCF) bodies: boundary faces and node-to-plane contact with the ground
//!   ([`flexible`]), node-to-surface or surface-to-surface contact between bodies with an AABB
//!   tree refitted every evaluation ([`flex_pair`], [`bvh`]);
//! - flexible bodies with rigid shapes on bodies or the ground: node-to-shape by parry3d point
//!   projection, the reaction on the shape's body ([`rigid_flex`]).
//!
//! Shapes and materials are plain descriptions ([`crate::spec`]); forces act through the
//! kernel's [`ExternalForces`](ferrodyn_kernel::ExternalForces), and the state reached after
//! every step is recorded through its `accept` (impact speeds, the active contacts).

pub mod broad;
pub mod bvh;
pub mod flex_pair;
pub mod flexible;
pub mod force;
pub mod ground;
pub mod node;
pub mod rigid_flex;
mod shape;
pub mod world;

pub use flex_pair::FlexContacts;
pub use rigid_flex::{RigidFlexContact, ShapeNodeContact};
pub use world::{ContactRecord, ContactWorld};

use crate::spec::Invalid;

/// A contact input that cannot be used, naming the item.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ContactError {
    /// A shape or material parameter out of range.
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// parry3d has no contact query for this pair of shape kinds.
    #[error("shapes '{a}' and '{b}' may touch but their kinds have no contact query")]
    UnsupportedPair {
        /// First shape.
        a: String,
        /// Second shape.
        b: String,
    },
}

impl ContactError {
    pub(crate) fn invalid(item: &str, reason: String) -> Self {
        Self::Invalid(Invalid::new(item, reason))
    }
}
