//! Implicit time integration of ANCF flexible bodies: Newmark-β and HHT-α with Newton–Raphson
//! on the analytic element tangent of the kernel, sparse assembly on a pattern computed once,
//! and a sparse LDLᵀ (faer) whose symbolic factorization is reused for every step and every
//! Newton iteration. The body is the kernel's flexible model on the host's growable storage.
//!
//! - [`Pattern`]: the sparsity pattern and element scatter positions.
//! - [`SparseLdlt`]: the factorization.
//! - [`HhtFlex`]: the integrator (settings: [`HhtOptions`](crate::spec::HhtOptions)); it is
//!   also a [`System`](crate::simulation::System) the drive loop steps.

mod assembly;
mod contact_tangent;
mod hht;
mod multibody;
mod multibody_system;
mod redundant;
mod scheme;
mod sparse;
mod system;

pub use assembly::{
    add_damping_force, elastic_force_and_scaled_tangent, elastic_force_and_tangent, ElementScale, Pattern,
};
pub use hht::{HhtFlex, StepReport};
pub use multibody::{Convergence, FlexPart, MultibodyHht, MultibodyReport};
pub use scheme::{Coefficients, Scheme};
pub use sparse::SparseLdlt;
pub use system::ImplicitSystem;

use crate::spec::InvalidOption;
use ferrodyn_kernel::ancf::ElementError;
use ferrodyn_kernel::{BuildError, Item, KernelError};

/// Errors of the implicit flexible solver.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImplicitError {
    /// An option or input is out of range.
    #[error("invalid implicit-solver option {name}: {reason}")]
    InvalidOption {
        /// The option.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// Building the body failed.
    #[error("flexible body: {0}")]
    Build(#[from] BuildError),
    /// An element could not be evaluated (inverted, non-finite).
    #[error("element {element} at t = {time} s: {error}")]
    Element {
        /// The element.
        element: usize,
        /// Simulation time.
        time: f64,
        /// The kernel's element error.
        error: ElementError,
    },
    /// The sparse factorization failed (singular or non-finite matrix).
    #[error("sparse factorization: {reason}")]
    Factorization {
        /// What happened.
        reason: String,
    },
    /// Newton–Raphson did not converge, after every allowed step halving.
    #[error(
        "Newton–Raphson did not converge at t = {time} s with step {step} s after {iterations} iterations \
         (tolerance {tolerance}); residual norm history [{}], increment norm history [{}]",
        history(residuals),
        history(increments)
    )]
    NotConverged {
        /// Time at the start of the failed step.
        time: f64,
        /// The smallest step tried.
        step: f64,
        /// Iterations of the last attempt.
        iterations: u32,
        /// Tolerance on the increment (max norm).
        tolerance: f64,
        /// ‖r‖₂ at each iteration of the last attempt.
        residuals: Vec<f64>,
        /// ‖Δq‖∞ at each iteration of the last attempt.
        increments: Vec<f64>,
    },
    /// The pattern has more entries than the scatter index type holds.
    #[error("sparse pattern too large ({entries} entries)")]
    TooLarge {
        /// Entries needed.
        entries: usize,
    },
}

impl ImplicitError {
    /// The kernel's error for this failure at time `time`: the element that cannot be
    /// evaluated, or the material for any other failure.
    pub fn kernel_error(&self, time: f64) -> KernelError {
        match *self {
            Self::Element { element, time, .. } => KernelError::NonFinite {
                item: Item::Element(element),
                time,
            },
            _ => KernelError::NonFinite {
                item: Item::Material,
                time,
            },
        }
    }
}

impl From<InvalidOption> for ImplicitError {
    fn from(e: InvalidOption) -> Self {
        Self::InvalidOption {
            name: e.name,
            reason: e.reason,
        }
    }
}

/// Formats a norm history as `1.234e-5, …`.
fn history(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{v:.3e}"))
        .collect::<Vec<_>>()
        .join(", ")
}
