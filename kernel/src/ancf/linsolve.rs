//! Gaussian elimination with partial pivoting on fixed-size arrays (build time only).

use crate::Real;

/// Solves `a · x = b` for `M` right-hand sides in place: on success `b` holds `x`.
///
/// Returns `Err(column)` when no pivot of magnitude above `tol` is left in that column
/// (singular to working precision). `a` is destroyed.
pub(crate) fn solve_in_place<R: Real, const N: usize, const M: usize>(
    a: &mut [[R; N]; N],
    b: &mut [[R; M]; N],
    tol: R,
) -> Result<(), usize> {
    for col in 0..N {
        // Partial pivoting: the largest magnitude in this column keeps the multipliers ≤ 1.
        let mut piv = col;
        for row in col + 1..N {
            if a[row][col].abs() > a[piv][col].abs() {
                piv = row;
            }
        }
        let p = a[piv][col];
        let usable = p.abs() > tol; // false for NaN too
        if !usable {
            return Err(col);
        }
        a.swap(col, piv);
        b.swap(col, piv);
        let inv = R::ONE / p;
        let (a_top, a_below) = a.split_at_mut(col + 1);
        let (b_top, b_below) = b.split_at_mut(col + 1);
        let (a_piv, b_piv) = (&a_top[col], &b_top[col]);
        for (a_row, b_row) in a_below.iter_mut().zip(b_below.iter_mut()) {
            let f = a_row[col] * inv;
            if f == R::ZERO {
                continue;
            }
            for (x, y) in a_row[col..].iter_mut().zip(a_piv[col..].iter()) {
                *x -= f * *y;
            }
            for (x, y) in b_row.iter_mut().zip(b_piv.iter()) {
                *x -= f * *y;
            }
        }
    }
    // Back substitution, row by row from the bottom.
    for col in (0..N).rev() {
        let (b_top, b_below) = b.split_at_mut(col + 1);
        let b_col = &mut b_top[col];
        for (a_cj, b_j) in a[col][col + 1..].iter().zip(b_below.iter()) {
            for (x, y) in b_col.iter_mut().zip(b_j.iter()) {
                *x -= *a_cj * *y;
            }
        }
        let d = a[col][col];
        for x in b_col.iter_mut() {
            *x /= d;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_system_needing_pivoting() {
        // Reference: A x = b with x = (1, 2, 3) chosen; A has a zero leading entry.
        let mut a = [[0.0, 2.0, 1.0], [1.0, 1.0, 1.0], [4.0, -1.0, 2.0]];
        let mut b = [[7.0], [6.0], [8.0]];
        solve_in_place::<f64, 3, 1>(&mut a, &mut b, 1e-300).unwrap();
        for (i, x) in [1.0, 2.0, 3.0].iter().enumerate() {
            assert!((b[i][0] - x).abs() < 1e-14);
        }
        let mut s = [[1.0, 2.0], [2.0, 4.0]];
        let mut r = [[1.0], [2.0]];
        assert_eq!(solve_in_place::<f64, 2, 1>(&mut s, &mut r, 1e-12), Err(1));
    }
}
