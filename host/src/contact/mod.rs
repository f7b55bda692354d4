//! Rigid-body contact: shapes on bodies, broad phase (sweep and prune), narrow phase (parry3d
//! and a box–plane corner test), and the Hertz–Flores–Coulomb force law, applied as body
//! forces inside the kernel's dynamics at every integrator stage (see [`ContactWorld`]).

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
