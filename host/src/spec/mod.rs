//! Plain descriptions that scenes are made of and solvers are made from: contact shapes,
//! surface materials and contact parameters ([`contact`]), integrator settings
//! ([`integrator`]), the formulation of the rigid part ([`formulation`]). No solver code: a scene holds these, [`crate::compile`] hands them to the
//! solvers.

pub mod contact;
pub mod formulation;
pub mod integrator;

pub use contact::{ContactMaterial, Dissipation, Elastic, Geometry, Proximity, Shape};
pub use formulation::Formulation;
pub use integrator::{
    HhtOptions, ImplicitSpec, IntegratorSpec, InvalidOption, NewtonSettings, TangentChoice,
};

/// A description item with a value out of range, naming the item.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{item}: {reason}")]
pub struct Invalid {
    /// The item (e.g. "shape 'ball'").
    pub item: String,
    /// What is wrong.
    pub reason: String,
}

impl Invalid {
    /// The error for `item`.
    pub fn new(item: &str, reason: String) -> Self {
        Self {
            item: item.to_string(),
            reason,
        }
    }
}
