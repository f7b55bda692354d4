//! Contact, Hertz–Flores–Coulomb ([`force`]), applied inside the dynamics at every integrator
//! stage:
//! - rigid bodies ([`world`]): shapes on bodies, broad phase by sweep and prune ([`broad`]),
//!   narrow phase by parry3d and a box–plane corner test ([`ContactWorld`]);
//! - flexible (ANCF) bodies: boundary faces and node-to-plane contact with the ground
//!   ([`flexible`]), node-to-surface or surface-to-surface contact between bodies with an AABB
//!   tree refitted every evaluation ([`flex_pair`], [`bvh`]), the tet_collision scenario
//!   ([`tet_collision`]);
//! - per-step CSV records of both ([`output`]).

pub mod broad;
pub mod bvh;
pub mod flex_pair;
pub mod flexible;
pub mod force;
pub mod obj;
pub mod output;
pub mod shape;
pub mod tet_collision;
pub mod world;

pub use force::{ContactMaterial, Dissipation, Elastic};
pub use shape::{Geometry, Shape};
pub use world::{ContactRecord, ContactWorld};

/// A contact input that cannot be used, naming the item.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ContactError {
    /// A shape or material parameter out of range.
    #[error("{item}: {reason}")]
    Invalid {
        /// The shape or material.
        item: String,
        /// What is wrong.
        reason: String,
    },
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
        Self::Invalid {
            item: item.to_string(),
            reason,
        }
    }
}
