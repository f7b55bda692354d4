//! Symmetric positive-definite solve in skyline (profile) storage: LDLᵀ without fill outside
//! the profile.
//!
//! The constraint matrix A = Φ_q M⁻¹ Φ_qᵀ couples two joint rows only when the joints share a
//! body, so along a chain the profile is a narrow band: factorization and solve cost
//! O(rows × band²), linear in the number of links, instead of O(rows³) for a dense matrix.

use super::skyline_block::{backward_group, dense_group, factorize_group, forward_group};
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

/// Factorizes A = L D Lᵀ in place (L unit lower, stored below the diagonal; D⁻¹ on it: every
/// use of a pivot is a product with its inverse, one division per row instead of one per
/// entry). Returns `Err(row)` at the first pivot that is not clearly positive (singular or
/// indefinite).
pub(crate) fn factorize<R: Real>(layout: &SkylineLayout<'_>, a: &mut [R]) -> Result<(), usize> {
    factorize_rows(layout, a, false, &[]).map(|_| ())
}

/// Factorizes a symmetric positive semidefinite A = L D Lᵀ in place, revealing its rank: a row
/// that depends on the rows before it (pivot at round-off level) gets D⁻¹ = 0, so its column of
/// L (u·0) and its unknown in [`solve`] (x·0) come out zero with no extra work per entry: the
/// other rows are solved exactly, as the system with the dependent rows removed. The rows
/// `forced` are taken as dependent whatever their pivots: another choice of the rows a
/// rank-deficient matrix leaves out, for when the rows kept in order are nearly dependent (the
/// rows after them are then tested against a basis without them). Returns the number of
/// dependent rows (the forced ones included); `Err(row)` at a pivot that is not finite (a
/// broken matrix). The matrix must be semidefinite by construction: a negative pivot is taken
/// as round-off of zero.
pub(crate) fn factorize_semidefinite<R: Real>(
    layout: &SkylineLayout<'_>,
    a: &mut [R],
    forced: &[usize],
) -> Result<usize, usize> {
    factorize_rows(layout, a, true, forced)
}

/// Whether row `row` of a factor from [`factorize_semidefinite`] was found dependent.
pub(crate) fn is_dependent<R: Real>(layout: &SkylineLayout<'_>, a: &[R], row: usize) -> bool {
    layout
        .diag
        .get(row)
        .is_some_and(|&d| a.get(d).is_some_and(|p| *p == R::ZERO))
}

fn factorize_rows<R: Real>(
    layout: &SkylineLayout<'_>,
    a: &mut [R],
    dependent_allowed: bool,
    forced: &[usize],
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
    // The inverse pivot 1/d_i of row i whose diagonal entry was `original`, or 0 for a
    // dependent row; None for a failure. Written so that a NaN pivot also fails.
    let settle = |row: usize, original: R, d: R| {
        if forced.contains(&row) {
            return Some(R::ZERO);
        }
        let terms = original + (original - d);
        let independent = match dependent_allowed {
            true => d > dependent_bound * terms,
            false => d > threshold * original.abs(),
        };
        if independent && d.is_finite() {
            Some(R::ONE / d)
        } else if dependent_allowed && d <= dependent_bound * terms && terms.is_finite() {
            // A semidefinite matrix has no negative pivot: one is round-off of a zero one.
            Some(R::ZERO)
        } else {
            None
        }
    };
    let mut dependent = 0;
    let (first, diag) = (layout.first, layout.diag);
    let n = first.len().min(diag.len());
    // Rows in groups that start at the same column (a joint's rows): u_rj = a_rj − Σ_k u_rk l_jk
    // (u = L·D of row r so far) is formed column by column for all rows of the group at once,
    // so the inner products in flight belong to different rows and do not wait on each other
    // (row by row, each entry waited on the one before it). Each entry subtracts its products
    // in column order, as row by row: the same bits.
    let mut g = 0;
    while g < n {
        let f = first[g];
        let h = group_end(first, g, f).min(n);
        // Rows before the group lie before its first entry in storage; entry (r, k) of the
        // group lies at `at(r, k)` in `group`.
        let base = diag[g] + f - g;
        let (done, group) = a.split_at_mut(base.min(a.len()));
        // A joint of a chain: dense blocks of fixed size (the same bits).
        let blocks = dense_group!(factorize_group::<R>(
            (g.wrapping_sub(f), h - g),
            (first, diag),
            (done, group),
            (g, base),
            &settle,
        ));
        if let Some(found) = blocks {
            dependent += found?;
            g = h;
            continue;
        }
        let at = |r: usize, k: usize| diag[r] + k - r - base;
        // The columns before the group: rows j < g, already factored.
        for j in f..g {
            let (start, l) = profile_row(done, first, diag, j, f);
            for r in g..h {
                if let Some((e, u)) = group
                    .get_mut(at(r, start)..=at(r, j))
                    .and_then(|x| x.split_last_mut())
                {
                    *e = subtract_products(*e, u, l);
                }
            }
        }
        // The group's own columns: row j's l_jk = u_jk / d_k and d_j = a_jj − Σ_k u_jk l_jk,
        // then column j of the rows below it in the group.
        for j in g..h {
            let (before, row_j) = group.split_at_mut(at(j, f).min(group.len()));
            let (row_j, rest) = row_j.split_at_mut((j - f).min(row_j.len()));
            let Some((diagonal, below)) = rest.split_first_mut() else {
                return Err(j);
            };
            let original = *diagonal;
            let mut d = original;
            for (k, u) in (f..).zip(row_j.iter_mut()) {
                let pivot = match k < g {
                    true => done.get(diag[k]),
                    false => before.get(at(k, k)),
                };
                // A dependent row k (1/d_k = 0) gives l = 0: it takes no part in the later rows.
                let l = *u * pivot.copied().unwrap_or(R::ZERO);
                d -= *u * l;
                *u = l;
            }
            *diagonal = settle(j, original, d).ok_or(j)?;
            if *diagonal == R::ZERO {
                dependent += 1;
            }
            // `below` starts right after row j's diagonal (at row j + 1's first entry).
            let below_base = at(j, j) + 1;
            for r in j + 1..h {
                let from = at(r, f) - below_base;
                if let Some((e, u)) = below
                    .get_mut(from..=from + j - f)
                    .and_then(|x| x.split_last_mut())
                {
                    *e = subtract_products(*e, u, row_j);
                }
            }
        }
        g = h;
    }
    Ok(dependent)
}

/// The end of the group of rows from row g on that start at column f (a joint's rows).
fn group_end(first: &[usize], g: usize, f: usize) -> usize {
    let rest = first.get(g..).unwrap_or(&[]);
    g + rest.iter().position(|&fr| fr != f).unwrap_or(rest.len())
}

/// The first row of the group of rows up to row h that start at column f.
fn group_start(first: &[usize], h: usize, f: usize) -> usize {
    let before = first.get(..h).unwrap_or(&[]);
    before.iter().rposition(|&fr| fr != f).map_or(0, |r| r + 1)
}

/// Row j's stored columns from max(fi, f_j) up to j − 1 (the part of its L that meets a row
/// starting at column fi), with that first column; rows j < i lie in `done`.
#[inline(always)]
fn profile_row<'a, R>(
    done: &'a [R],
    first: &[usize],
    diag: &[usize],
    j: usize,
    fi: usize,
) -> (usize, &'a [R]) {
    let (Some(&fj), Some(&dj)) = (first.get(j), diag.get(j)) else {
        return (j, &[]);
    };
    let start = fi.max(fj).min(j);
    (start, done.get(dj - (j - start)..dj).unwrap_or(&[]))
}

/// The entries (s_a, s_b) of columns j and j + 1 of a row starting at column `fi` with its
/// final u over columns fi .. j − 1 (`u`): s_a − Σ_k u_k l_jk and s_b − Σ_k u_k l_{j+1,k},
/// where `a_row` and `b_row` are rows j and j + 1 ([`profile_row`]). Each sum runs in column
/// order: first the columns only one of them reaches, then the shared ones side by side, then
/// s_b's last term with the finished s_a (u_ij).
#[inline(always)]
fn subtract_pair<R: Real>(
    (mut sa, mut sb): (R, R),
    u: &[R],
    fi: usize,
    (start_a, la): (usize, &[R]),
    (start_b, lb): (usize, &[R]),
) -> (R, R) {
    let j = start_a + la.len();
    let shared = start_a.max(start_b).min(j);
    let columns = |from: usize, to: usize| u.get(from - fi..to - fi).unwrap_or(&[]);
    sa = subtract_products(
        sa,
        columns(start_a, shared),
        la.get(..shared - start_a).unwrap_or(&[]),
    );
    if start_b < shared {
        sb = subtract_products(
            sb,
            columns(start_b, shared),
            lb.get(..shared - start_b).unwrap_or(&[]),
        );
    }
    let la = la.get(shared - start_a..).unwrap_or(&[]);
    if start_b > j {
        // Row j + 1 starts past column j: no shared column, no term in u_ij.
        return (subtract_products(sa, columns(shared, j), la), sb);
    }
    let lb = lb.get(shared - start_b..).unwrap_or(&[]);
    for ((u, a), b) in columns(shared, j).iter().zip(la).zip(lb) {
        sa -= *u * *a;
        sb -= *u * *b;
    }
    if let Some(b) = lb.get(j - shared) {
        sb -= sa * *b;
    }
    (sa, sb)
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
    let n = first.len();
    // Forward, L y = b: y_i = b_i − Σ_k l_ik y_k, group by group (rows with the same first
    // column): a chain joint's rows in dense blocks, others two rows at a time (as the
    // factorization's entries: the second row's sum waits only for its last term).
    let mut g = 0;
    while let Some(&f) = first.get(g) {
        let h = group_end(first, g, f);
        let dense = dense_group!(forward_group::<R>(
            (g.wrapping_sub(f), h - g),
            (first, diag),
            a,
            g,
            x
        ));
        let mut i = match dense {
            Some(()) => h,
            None => g,
        };
        while i < h {
            let (done, rest) = x.split_at_mut(i.min(x.len()));
            let a_row = profile_row(a, first, diag, i, 0);
            match rest {
                [xa, xb, ..] if i + 1 < h => {
                    let b_row = profile_row(a, first, diag, i + 1, 0);
                    (*xa, *xb) = subtract_pair((*xa, *xb), done, 0, a_row, b_row);
                    i += 2;
                }
                [xa, ..] => {
                    let (start, l) = a_row;
                    *xa = subtract_products(*xa, l, done.get(start..).unwrap_or(&[]));
                    i += 1;
                }
                [] => break,
            }
        }
        g = h;
    }
    // Row i of L: the entries left of its diagonal, columns first[i] .. i − 1.
    let row = |i: usize, fi: usize, di: usize| a.get(di + fi - i..di).unwrap_or(&[]);
    for (xi, &di) in x.iter_mut().zip(diag) {
        // A dependent row of a semidefinite factor (1/d = 0) gets a zero unknown.
        if let Some(inverse) = a.get(di) {
            *xi *= *inverse;
        }
    }
    // Backward, Lᵀ x = y: group by group from the last, each row subtracting l_ik x_i from
    // the x_k of its columns.
    let mut h = n;
    while let Some(&f) = h.checked_sub(1).and_then(|r| first.get(r)) {
        let g = group_start(first, h - 1, f);
        let dense = dense_group!(backward_group::<R>(
            (g.wrapping_sub(f), h - g),
            (first, diag),
            a,
            g,
            x
        ));
        if dense.is_none() {
            for (i, (&fi, &di)) in first.iter().zip(diag).enumerate().take(h).skip(g).rev() {
                let Some((xi, done)) = x.get_mut(..=i).and_then(|x| x.split_last_mut()) else {
                    continue;
                };
                for (l, xk) in row(i, fi, di).iter().zip(done.get_mut(fi..).unwrap_or(&mut [])) {
                    *xk -= *l * *xi;
                }
            }
        }
        h = g;
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

    /// Reproducible numbers in [−0.5, 0.5) (xorshift64 from `seed`).
    fn xorshift(mut seed: u64) -> impl FnMut() -> f64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        }
    }

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

    /// The factorization as first written (index arithmetic per entry, one row after another;
    /// inverse pivots): the faster loops above must give the same bits (the determinism
    /// contract fixes the order of operations).
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
                let l = u * done[layout.index(j, j)];
                d -= u * l;
                row_i[j - fi] = l;
            }
            row_i[i - fi] = 1.0 / d;
        }
    }

    /// The forward, diagonal and backward solves as first written (one inner product per row).
    fn reference_solve(layout: &SkylineLayout<'_>, a: &[f64], x: &mut [f64]) {
        for i in 0..layout.rows() {
            let fi = layout.first[i];
            let mut s = x[i];
            for k in fi..i {
                s -= a[layout.index(i, k)] * x[k];
            }
            x[i] = s;
        }
        for i in 0..layout.rows() {
            x[i] *= a[layout.diag[i]];
        }
        for i in (0..layout.rows()).rev() {
            for k in layout.first[i]..i {
                x[k] -= a[layout.index(i, k)] * x[i];
            }
        }
    }

    /// Factorizes and solves on the profile `first` (diagonally dominant, pseudo-random
    /// entries) and checks every bit against the reference loops.
    fn same_bits_as_the_reference_loops(first: &[usize]) {
        let n = first.len();
        let mut diag = [0; 64];
        let mut next = 0;
        for i in 0..n {
            next += i - first[i];
            diag[i] = next;
            next += 1;
        }
        let mut random = xorshift(0x2545_f491_4f6c_dd1d);
        let layout = SkylineLayout {
            first,
            diag: &diag[..n],
        };
        let mut a = [0.0f64; 1024];
        for i in 0..n {
            for j in first[i]..i {
                a[layout.index(i, j)] = random();
            }
            a[diag[i]] = (i - first[i]) as f64 + 1.0 + random();
        }
        let mut reference = a;
        reference_factorize(&layout, &mut reference);
        factorize(&layout, &mut a).unwrap();
        for (k, (x, y)) in a.iter().zip(&reference).enumerate() {
            assert_eq!(x.to_bits(), y.to_bits(), "factor entry {k}");
        }
        let mut x = [0.0; 64];
        x.iter_mut().for_each(|x| *x = random());
        let mut expected = x;
        solve(&layout, &a, &mut x[..n]);
        reference_solve(&layout, &reference, &mut expected[..n]);
        for (k, (x, y)) in x.iter().zip(&expected).enumerate() {
            assert_eq!(x.to_bits(), y.to_bits(), "solution entry {k}");
        }
    }

    #[test]
    fn factorization_and_solve_give_the_bits_of_the_reference_loops() {
        // A variable profile: first columns 0, 0, 0, 1, 1, 3, 2, 5, 5, 6, ... (rows alone).
        let varied: [usize; 40] = core::array::from_fn(|i| i.saturating_sub(1 + (i * 7) % 6));
        same_bits_as_the_reference_loops(&varied);
        // Joint blocks as along a chain (each joint's rows start at the previous joint's first
        // row), with a 12-row joint and a last joint that closes a loop back to row 0.
        let mut blocks = [0; 42];
        let (mut previous, mut start) = (0, 0);
        for rows in [5, 5, 3, 12, 1, 6, 5, 2] {
            blocks[start..start + rows].fill(previous);
            (previous, start) = (start, start + rows);
        }
        // blocks[39..42] stay 0: the closing joint.
        same_bits_as_the_reference_loops(&blocks);
        // A chain of 5-row joints (the dense blocks of `skyline_block`), then a 3-row joint.
        let mut chain = [0; 33];
        for (r, f) in chain.iter_mut().enumerate().take(30) {
            *f = (r / 5).saturating_sub(1) * 5;
        }
        chain[30..].fill(25);
        same_bits_as_the_reference_loops(&chain);
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
        assert_eq!(factorize_semidefinite(&layout, &mut a, &[]), Ok(1));
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
    fn dense_chain_blocks_skip_a_dependent_row_and_solve_the_rest() {
        // A = J Jᵀ for a chain of three 5-row joints between four 6-dof "bodies" (joint k's rows
        // on bodies k and k + 1: the profile of `skyline_block`), row 7 = row 5 + 2 row 6.
        const N: usize = 15;
        let mut random = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut j = [[0.0; 24]; N];
        for (r, row) in j.iter_mut().enumerate() {
            let body = 6 * (r / 5);
            row[body..body + 12].iter_mut().for_each(|x| *x = random());
        }
        j[7] = core::array::from_fn(|c| j[5][c] + 2.0 * j[6][c]);
        let dot = |a: &[f64; 24], b: &[f64; 24]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        let first: [usize; N] = core::array::from_fn(|r| (r / 5).saturating_sub(1) * 5);
        let mut diag = [0; N];
        let mut next = 0;
        for r in 0..N {
            next += r - first[r];
            diag[r] = next;
            next += 1;
        }
        let layout = SkylineLayout {
            first: &first,
            diag: &diag,
        };
        let mut a = [0.0; 128];
        for r in 0..N {
            for c in first[r]..=r {
                a[layout.index(r, c)] = dot(&j[r], &j[c]);
            }
        }
        let original = a;
        assert_eq!(factorize_semidefinite(&layout, &mut a, &[]), Ok(1));
        assert!((0..N).all(|r| is_dependent(&layout, &a, r) == (r == 7)));
        // A consistent right-hand side b = J v: every equation holds, the dependent one too.
        let v: [f64; 24] = core::array::from_fn(|_| random());
        let mut x: [f64; N] = core::array::from_fn(|r| dot(&j[r], &v));
        let b = x;
        solve(&layout, &a, &mut x);
        assert_eq!(x[7], 0.0);
        let mut ax = [0.0; N];
        multiply(&layout, &original, &x, &mut ax);
        for r in 0..N {
            assert!((ax[r] - b[r]).abs() < 1e-12, "row {r}: {} vs {}", ax[r], b[r]);
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
