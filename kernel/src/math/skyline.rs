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
    factorize_rows(layout, a, false).map(|_| ())
}

/// Factorizes a symmetric positive semidefinite A = L D Lᵀ in place, revealing its rank: a row
/// that depends on the rows before it (pivot at round-off level) gets D = +∞, so its column of
/// L (u/∞) and its unknown in [`solve`] (x/∞) come out zero with no extra work per entry: the
/// other rows are solved exactly, as the system with the dependent rows removed. Returns the
/// number of dependent rows; `Err(row)` at a pivot that is not finite (a broken matrix). The
/// matrix must be semidefinite by construction: a negative pivot is taken as round-off of zero.
pub(crate) fn factorize_semidefinite<R: Real>(
    layout: &SkylineLayout<'_>,
    a: &mut [R],
) -> Result<usize, usize> {
    factorize_rows(layout, a, true)
}

/// Whether row `row` of a factor from [`factorize_semidefinite`] was found dependent.
pub(crate) fn is_dependent<R: Real>(layout: &SkylineLayout<'_>, a: &[R], row: usize) -> bool {
    layout
        .diag
        .get(row)
        .is_some_and(|&d| a.get(d).is_some_and(|p| *p == R::INFINITY))
}

fn factorize_rows<R: Real>(
    layout: &SkylineLayout<'_>,
    a: &mut [R],
    dependent_allowed: bool,
) -> Result<usize, usize> {
    // Positive definite: a pivot this small relative to its diagonal means a dependent row.
    // Slender bodies make legitimate pivots small too (6e-4 relative for a chain of 1 m × 10 mm
    // rods), so the bound stays near round-off.
    let threshold = R::EPSILON * R::from_f64(64.0);
    // Semidefinite: a dependent row's pivot is what round-off leaves of the cancellation
    // a_ii − Σ u_ij l_ij, measured against the size of its terms, a_ii + Σ u_ij l_ij =
    // 2 a_ii − d (each u_ij l_ij = u_ij²/d_j ≥ 0): seen at 1e-13 of them in f64 (the
    // four-bar), where independent rows keep 1e-3 or more (7e-2 along a 20-link chain of
    // slender rods), but random f32 chains have shown independent rows below 3e-4. ε^⅔
    // (3.7e-11 in f64, 2.4e-5 in f32) lies between; in f32 the gap is narrow, since a pivot
    // squares the relative size of what is left of a row.
    let dependent_bound = R::EPSILON_TWO_THIRDS;
    let mut dependent = 0;
    let (first, diag) = (layout.first, layout.diag);
    for (i, (&fi, &di)) in first.iter().zip(diag).enumerate() {
        // Rows j < i (already factored) lie before row i in storage.
        let (done, rest) = a.split_at_mut(di + fi - i);
        let (row_i, rest) = rest.split_at_mut(i - fi);
        // u_ij = a_ij − Σ_k u_ik l_jk (u = L·D of row i so far), for j = fi + c.
        for (c, (&fj, &dj)) in first[fi..i].iter().zip(&diag[fi..i]).enumerate() {
            // Row j's stored columns from `start` up to j − 1 end just before its diagonal dj:
            // one slice of `len` entries, matched with row i's columns start .. j − 1.
            let len = fi.max(fj).abs_diff(fi + c);
            let (ui, uij) = row_i.split_at_mut(c);
            let (Some(ui), Some(lj)) = (ui.get(c - len..), done.get(dj - len..dj)) else {
                continue;
            };
            uij[0] = subtract_products(uij[0], ui, lj);
        }
        // l_ij = u_ij / d_j, d_i = a_ii − Σ_j u_ij l_ij.
        let original = rest[0];
        let mut d = original;
        for (u, &dj) in row_i.iter_mut().zip(&diag[fi..i]) {
            // A dependent row j (d_j = +∞) gives l = 0: it takes no part in the later rows.
            let l = *u / done[dj];
            d -= *u * l;
            *u = l;
        }
        let terms = original + (original - d);
        // Written so that a NaN pivot also fails.
        let independent = match dependent_allowed {
            true => d > dependent_bound * terms,
            false => d > threshold * original.abs(),
        };
        if independent && d.is_finite() {
            rest[0] = d;
        } else if dependent_allowed && d <= dependent_bound * terms && terms.is_finite() {
            // A semidefinite matrix has no negative pivot: one is round-off of a zero one.
            rest[0] = R::INFINITY;
            dependent += 1;
        } else {
            return Err(i);
        }
    }
    Ok(dependent)
}

/// s − Σ u_k l_k, subtracted in order over the common length; two terms a round by slice
/// patterns: the short loops of a narrow profile pay less set-up than the compiler's own
/// unrolling of a plain loop.
#[inline(always)]
fn subtract_products<R: Real>(mut s: R, mut u: &[R], mut l: &[R]) -> R {
    while let ([u0, u1, u_rest @ ..], [l0, l1, l_rest @ ..]) = (u, l) {
        s -= *u0 * *l0;
        s -= *u1 * *l1;
        (u, l) = (u_rest, l_rest);
    }
    if let ([u0, ..], [l0, ..]) = (u, l) {
        s -= *u0 * *l0;
    }
    s
}

/// Solves A x = b with the factor from [`factorize`]; `x` holds b on entry.
pub(crate) fn solve<R: Real>(layout: &SkylineLayout<'_>, a: &[R], x: &mut [R]) {
    let (first, diag) = (layout.first, layout.diag);
    // Row i of L: the entries left of its diagonal, columns first[i] .. i − 1.
    let row = |i: usize, fi: usize, di: usize| a.get(di + fi - i..di).unwrap_or(&[]);
    for (i, (&fi, &di)) in first.iter().zip(diag).enumerate() {
        let Some((xi, done)) = x.get_mut(..=i).and_then(|x| x.split_last_mut()) else {
            break;
        };
        *xi = subtract_products(*xi, row(i, fi, di), done.get(fi..).unwrap_or(&[]));
    }
    for (xi, &di) in x.iter_mut().zip(diag) {
        // A dependent row of a semidefinite factor (d = +∞) gets a zero unknown.
        if let Some(d) = a.get(di) {
            *xi /= *d;
        }
    }
    for (i, (&fi, &di)) in first.iter().zip(diag).enumerate().rev() {
        let Some((xi, done)) = x.get_mut(..=i).and_then(|x| x.split_last_mut()) else {
            continue;
        };
        for (l, xk) in row(i, fi, di).iter().zip(done.get_mut(fi..).unwrap_or(&mut [])) {
            *xk -= *l * *xi;
        }
    }
}

/// y = A x for the symmetric matrix whose lower profile is stored in `a` (not factorized).
pub(crate) fn multiply<R: Real>(layout: &SkylineLayout<'_>, a: &[R], x: &[R], y: &mut [R]) {
    for v in y.iter_mut() {
        *v = R::ZERO;
    }
    for i in 0..layout.rows() {
        let fi = layout.first[i];
        let row = &a[layout.index(i, fi)..=layout.index(i, i)];
        let (off, diag) = row.split_at(i - fi);
        let mut s = diag[0] * x[i];
        for ((aij, xj), yj) in off.iter().zip(&x[fi..i]).zip(&mut y[fi..i]) {
            s += *aij * *xj;
            *yj += *aij * x[i];
        }
        y[i] += s;
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

    /// The factorization as first written (index arithmetic per entry): the faster loop above
    /// must give the same bits (the determinism contract fixes the order of operations).
    fn reference_factorize(layout: &SkylineLayout<'_>, a: &mut [f64]) {
        for i in 0..layout.rows() {
            let fi = layout.first[i];
            let (done, rest) = a.split_at_mut(layout.index(i, fi));
            let row_i = &mut rest[..=i - fi];
            for j in fi..i {
                let fj = layout.first[j];
                let start = fi.max(fj);
                let row_j = &done[layout.index(j, fj)..=layout.index(j, j)];
                let (ui, lj) = (&row_i[start - fi..j - fi], &row_j[start - fj..j - fj]);
                let mut s = row_i[j - fi];
                for (u, l) in ui.iter().zip(lj) {
                    s -= *u * *l;
                }
                row_i[j - fi] = s;
            }
            let mut d = row_i[i - fi];
            for j in fi..i {
                let u = row_i[j - fi];
                let l = u / done[layout.index(j, j)];
                d -= u * l;
                row_i[j - fi] = l;
            }
            row_i[i - fi] = d;
        }
    }

    #[test]
    fn factorization_gives_the_bits_of_the_reference_loop() {
        // A variable profile (first columns 0, 0, 0, 1, 1, 3, 2, 5, 5, 6, ...), diagonally
        // dominant with pseudo-random off-diagonal entries.
        const N: usize = 40;
        let mut first = [0usize; N];
        let mut diag = [0usize; N];
        let mut next = 0;
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut random = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        for i in 0..N {
            first[i] = i.saturating_sub(1 + (i * 7) % 6);
            next += i - first[i];
            diag[i] = next;
            next += 1;
        }
        let layout = SkylineLayout {
            first: &first,
            diag: &diag,
        };
        let mut a = [0.0f64; 400];
        for i in 0..N {
            for j in first[i]..i {
                a[layout.index(i, j)] = random();
            }
            a[diag[i]] = 8.0 + random();
        }
        let mut reference = a;
        reference_factorize(&layout, &mut reference);
        factorize(&layout, &mut a).unwrap();
        for (k, (x, y)) in a.iter().zip(&reference).enumerate() {
            assert_eq!(x.to_bits(), y.to_bits(), "entry {k}");
        }
    }

    #[test]
    fn semidefinite_factor_skips_dependent_rows_and_solves_the_rest() {
        // A = J Jᵀ with J rows j0 = (1, 0, 0), j1 = (1, 1, 0), j2 = j0 + 2 j1, j3 = (0, 0, 1):
        // row 2 depends on rows 0 and 1. A consistent right-hand side b = J v is solved with a
        // zero unknown in row 2 and exact values in the others (x = A⁺-like particular
        // solution: J_{0,1,3}ᵀ x reproduces v's projection).
        let j = [[1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [3.0, 2.0, 0.0], [0.0, 0.0, 1.0]];
        let dot = |a: &[f64; 3], b: &[f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
        let first = [0, 0, 0, 0];
        let diag = [0, 2, 5, 9];
        let layout = SkylineLayout {
            first: &first,
            diag: &diag,
        };
        let mut a = [0.0; 10];
        for r in 0..4 {
            for c in 0..=r {
                a[layout.index(r, c)] = dot(&j[r], &j[c]);
            }
        }
        let original = a;
        assert_eq!(factorize_semidefinite(&layout, &mut a), Ok(1));
        assert!((0..4).all(|r| is_dependent(&layout, &a, r) == (r == 2)));
        let v = [0.3, -1.2, 2.5];
        let mut x: [f64; 4] = core::array::from_fn(|r| dot(&j[r], &v));
        let b = x;
        solve(&layout, &a, &mut x);
        assert_eq!(x[2], 0.0);
        // Every equation, the dependent one included, holds: A x = b.
        let mut ax = [0.0; 4];
        multiply(&layout, &original, &x, &mut ax);
        for r in 0..4 {
            assert!((ax[r] - b[r]).abs() < 1e-14, "row {r}: {} vs {}", ax[r], b[r]);
        }
        // The positive definite factorization refuses the same matrix at row 2.
        let mut a = original;
        assert_eq!(factorize(&layout, &mut a), Err(2));
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
