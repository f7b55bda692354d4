//! Rigid–flexible systems: a rigid model and a flexible body whose nodes are attached to a
//! rigid-body frame (a beam on a hub), stepped as one [`Model`] through [`crate::Dynamics`].
//!
//! An attached node's 12 coordinates follow the body: r = x + R s, ∂r/∂X_k = R g_k (s, g_k
//! fixed in the body). They are eliminated: with ė_a = T v_b and ë_a = T a_b + c, the flexible
//! equations M_ff ë_f + M_fa ë_a = Q_f give ë_f = u − W a_b (u = M_ff⁻¹(Q_f − M_fa c),
//! W = M_ff⁻¹ M_fa T), and the body sees the condensed mass and force
//!   M_eff = M_b + Tᵀ M_aa T − Tᵀ M_af W,   Q_eff = Q_b + Tᵀ (Q_a − M_aa c − M_af u),
//! which replace its 6×6 block in the rigid constraint solve. Exact (no penalty, no extra
//! multipliers); per evaluation 7 mass solves and 14 element passes. One body may carry the
//! attachments of a flexible body (two bodies would couple through M_ff⁻¹).
//!
//! State: `[rigid q | flexible e | rigid v | flexible ė]`; after every accepted step the
//! attached coordinates are set exactly from the (projected) body state. Capacities: those of
//! the rigid and flexible models, and `STATE` ≥ 13 per body + 24 per node.

mod data;
mod model;
mod system;

pub use data::Data;
pub use model::{Attachment, Builder, Model};
