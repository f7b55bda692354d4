//! Which joint rows the implicit multibody solver leaves out of its Newton matrix: the rows
//! the kernel's rank-revealing factorization of Φ_q M⁻¹ Φ_qᵀ finds redundant (chosen again,
//! by pivoting, when a kept row becomes nearly dependent: `rigid::is_redundant_row`).
//!
//! The quasi-definite matrix [[A, Φ_qᵀ], [Φ_q, −δ I]] is regular with every row in it, but a
//! redundant row's multiplier lies in the null space of Φ_qᵀ: each Newton correction adds
//! (Φ/β')/δ of the row's round-off residual to it and nothing takes it back, so it grows
//! without bound (to 1.9·10⁶ N in 0.14 s on the Bennett linkage, whose reactions are a few N),
//! and the round-off of Φ_qᵀμ then holds the force residual above its tolerance. Left out
//! (zero multiplier, as the explicit path gives it), the rows kept have a well-conditioned
//! matrix; their Φ still must meet the constraint tolerance.

use crate::storage::{RigidData, RigidModel};
use ferrodyn_kernel::rigid;
use ferrodyn_kernel::KernelError;

/// The joint rows left out, one flag per row (all false without a closed loop).
#[derive(Clone, Debug, Default)]
pub(super) struct RedundantRows {
    rows: Vec<bool>,
}

impl RedundantRows {
    /// No row left out, for `rows` joint rows.
    pub(super) fn none(rows: usize) -> Self {
        Self {
            rows: vec![false; rows],
        }
    }

    /// Chooses the rows anew at the state in `data` (the kernel's factorization there); returns
    /// whether the choice changed. Rigid bodies alone: an attachment row of a flexible body is
    /// no kernel row, so with one the rows are all kept.
    pub(super) fn choose(
        &mut self,
        model: &RigidModel,
        data: &mut RigidData,
        rigid_only: bool,
    ) -> Result<bool, KernelError> {
        if !(rigid_only && model.closes_loop()) {
            return Ok(false);
        }
        rigid::forward(model, data)?;
        let mut changed = false;
        for (r, left_out) in self.rows.iter_mut().enumerate() {
            let now = rigid::is_redundant_row(model, data, r);
            changed |= now != *left_out;
            *left_out = now;
        }
        Ok(changed)
    }

    /// Whether row `r` is left out.
    pub(super) fn contains(&self, r: usize) -> bool {
        self.rows.get(r).copied().unwrap_or(false)
    }
}
