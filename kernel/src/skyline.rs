//! Symmetric positive-definite solve in skyline (profile) storage: LDLᵀ without fill outside
//! the profile.
//!
//! The constraint matrix A = Φ_q M⁻¹ Φ_qᵀ couples two joint rows only when the joints share a
//! body, so along a chain the profile is a narrow band: factorization and solve cost
//! O(rows × band²), linear in the number of links, instead of O(rows³) for a dense matrix.

use crate::Real;

/// Where each row of the profile lives in the flat storage.
/// Row `r` stores columns `first[r] ..= r`, ending with the diagonal at `diag[r]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SkylineLayout<'a> {
    /// First stored column of each row.
    pub first: &'a [usize],
    /// Storage index of each row's diagonal entry.
    pub diag: &'a [usize],
}

impl SkylineLayout<'_> {
    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.first.len()
    }
    /// Storage index of entry (row, col), col in first[row] ..= row.
    #[inline]
    pub fn index(&self, row: usize, col: usize) -> usize {
        self.diag[row] + col - row
    }
}

/// Factorizes A = L D Lᵀ in place (L unit lower, stored below the diagonal; D on it).
/// Returns `Err(row)` at the first pivot that is not clearly positive (singular or indefinite).
pub(crate) fn factorize<R: Real>(layout: &SkylineLayout<'_>, a: &mut [R]) -> Result<(), usize> {
    let threshold = R::EPSILON * R::from_f64(1e3);
    for i in 0..layout.rows() {
        let fi = layout.first[i];
        // u_ij = a_ij − Σ_k u_ik l_jk (u = L·D, row i so far), rows j < i already factored.
        for j in fi..i {
            let fj = layout.first[j];
            let start = fi.max(fj);
            let mut s = a[layout.index(i, j)];
            for k in start..j {
                s -= a[layout.index(i, k)] * a[layout.index(j, k)];
            }
            a[layout.index(i, j)] = s;
        }
        let original = a[layout.index(i, i)];
        let mut d = original;
        for j in fi..i {
            let u = a[layout.index(i, j)];
            let l = u / a[layout.index(j, j)];
            d -= u * l;
            a[layout.index(i, j)] = l;
        }
        if !(d > threshold * original.abs()) || !d.is_finite() {
            return Err(i);
        }
        a[layout.index(i, i)] = d;
    }
    Ok(())
}

/// Solves A x = b with the factor from [`factorize`]; `x` holds b on entry.
pub(crate) fn solve<R: Real>(layout: &SkylineLayout<'_>, a: &[R], x: &mut [R]) {
    let n = layout.rows();
    for i in 0..n {
        let mut s = x[i];
        for k in layout.first[i]..i {
            s -= a[layout.index(i, k)] * x[k];
        }
        x[i] = s;
    }
    for i in 0..n {
        x[i] /= a[layout.index(i, i)];
    }
    for i in (0..n).rev() {
        let xi = x[i];
        for k in layout.first[i]..i {
            x[k] -= a[layout.index(i, k)] * xi;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_banded_spd_system_exactly() {
        // Reference: tridiagonal (2, −1) matrix of order 5; A·x computed directly.
        let first = [0, 0, 1, 2, 3];
        let diag = [0, 2, 4, 6, 8];
        let layout = SkylineLayout {
            first: &first,
            diag: &diag,
        };
        let mut a = [2.0, -1.0, 2.0, -1.0, 2.0, -1.0, 2.0, -1.0, 2.0];
        let x_true = [1.0, -2.0, 3.0, 0.5, 4.0];
        let mut b = [0.0; 5];
        for i in 0..5 {
            b[i] = 2.0 * x_true[i];
            if i > 0 {
                b[i] -= x_true[i - 1];
            }
            if i < 4 {
                b[i] -= x_true[i + 1];
            }
        }
        factorize(&layout, &mut a).unwrap();
        solve(&layout, &a, &mut b);
        for i in 0..5 {
            assert!((b[i] - x_true[i]).abs() < 1e-14);
        }
    }

    #[test]
    fn singular_matrix_reports_the_row() {
        // Two identical rows: the second pivot vanishes.
        let first = [0, 0];
        let diag = [0, 2];
        let layout = SkylineLayout {
            first: &first,
            diag: &diag,
        };
        let mut a = [1.0, 1.0, 1.0];
        assert_eq!(factorize(&layout, &mut a), Err(1));
    }
}
