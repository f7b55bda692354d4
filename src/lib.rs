//! Ferrodyn facade: re-exports the `no_std` kernel and the `std` host tooling.
//!
//! See `ferrodyn_kernel` for the memory and determinism contracts. The README follows (its
//! code runs as a doc-test).
#![doc = include_str!("../README.md")]

pub use ferrodyn_host as host;
pub use ferrodyn_kernel as kernel;
