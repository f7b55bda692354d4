//! Sparse symmetric LDLᵀ (faer, supernodal, AMD ordering) on a
//! fixed pattern: the symbolic factorization is computed once and reused for every numeric
//! factorization (every Newton iteration of every step); factor values and workspace are
//! allocated once too.

use super::assembly::Pattern;
use super::ImplicitError;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::ldlt::factor::LdltRegularization;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LdltRef, SymbolicCholesky, SymmetricOrdering,
};
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par, Side};

/// A symmetric sparse LDLᵀ factorization with its symbolic part fixed at construction.
pub struct SparseLdlt {
    col_ptr: Vec<usize>,
    row_idx: Vec<usize>,
    symbolic: SymbolicCholesky<usize>,
    values: Vec<f64>,
    buffer: MemBuffer,
    factorized: bool,
    factorizations: u64,
}

impl SparseLdlt {
    /// The symbolic analysis (ordering, elimination tree, supernodes) of `pattern`, once.
    pub fn new(pattern: &Pattern) -> Result<Self, ImplicitError> {
        let (col_ptr, row_idx) = (pattern.col_ptr.clone(), pattern.row_idx.clone());
        let symbolic = {
            let a = SymbolicSparseColMatRef::new_checked(pattern.n, pattern.n, &col_ptr, None, &row_idx);
            factorize_symbolic_cholesky(
                a,
                Side::Upper,
                SymmetricOrdering::Amd,
                CholeskySymbolicParams {
                    // faer's flop-ratio rule picks the simplicial kernel for the ANCF
                    // patterns; the supernodal one factors them 1.3–2× faster (docs/implicit.md).
                    supernodal_flop_ratio_threshold: SupernodalThreshold::FORCE_SUPERNODAL,
                    ..Default::default()
                },
            )
            .map_err(|e| ImplicitError::Factorization {
                reason: format!("symbolic factorization failed: {e:?}"),
            })?
        };
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_ldlt_scratch::<f64>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, Par::Seq),
        ]);
        let values = vec![0.0; symbolic.len_val()];
        Ok(Self {
            col_ptr,
            row_idx,
            symbolic,
            values,
            buffer: MemBuffer::new(req),
            factorized: false,
            factorizations: 0,
        })
    }

    /// Stored entries of the factor L.
    pub fn factor_entries(&self) -> usize {
        self.values.len()
    }

    /// Numeric factorizations done so far.
    pub fn factorizations(&self) -> u64 {
        self.factorizations
    }

    /// Factorizes the matrix with `values` in the pattern given at construction (upper
    /// triangle). A zero or non-finite pivot is an error (no regularization).
    pub fn factorize(&mut self, values: &[f64]) -> Result<(), ImplicitError> {
        self.factorized = false;
        if let Some(i) = values.iter().position(|v| !v.is_finite()) {
            return Err(ImplicitError::Factorization {
                reason: format!("non-finite matrix entry at stored position {i}"),
            });
        }
        let n = self.col_ptr.len() - 1;
        let a = SparseColMatRef::new(
            SymbolicSparseColMatRef::new_checked(n, n, &self.col_ptr, None, &self.row_idx),
            values,
        );
        let stack = MemStack::new(&mut self.buffer);
        self.symbolic
            .factorize_numeric_ldlt(
                &mut self.values,
                a,
                Side::Upper,
                LdltRegularization::default(),
                Par::Seq,
                stack,
                Default::default(),
            )
            .map_err(|e| ImplicitError::Factorization {
                reason: format!("numeric LDLᵀ failed: {e:?}"),
            })?;
        if let Some(i) = self.values.iter().position(|v| !v.is_finite()) {
            return Err(ImplicitError::Factorization {
                reason: format!("singular matrix: non-finite factor entry {i}"),
            });
        }
        self.factorized = true;
        self.factorizations += 1;
        Ok(())
    }

    /// Solves A x = b in place with the last factorization.
    pub fn solve(&mut self, b: &mut [f64]) -> Result<(), ImplicitError> {
        if !self.factorized || b.len() + 1 != self.col_ptr.len() {
            return Err(ImplicitError::Factorization {
                reason: "solve without a valid factorization of matching size".into(),
            });
        }
        let ldlt = LdltRef::<usize, f64>::new(&self.symbolic, &self.values);
        let stack = MemStack::new(&mut self.buffer);
        let n = b.len();
        let rhs = MatMut::from_column_major_slice_mut(b, n, 1);
        ldlt.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
        if b.iter().any(|v| !v.is_finite()) {
            return Err(ImplicitError::Factorization {
                reason: "singular matrix: the solution is not finite".into(),
            });
        }
        Ok(())
    }
}
