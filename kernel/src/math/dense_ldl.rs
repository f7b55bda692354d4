//! LDLᵀ of small dense symmetric matrices in packed lower storage (entry (i, j), j ≤ i, at
//! i(i+1)/2 + j): plain for a positive definite matrix (a tree's joint-space mass matrix), and
//! with diagonal pivoting that reveals the rank of a semidefinite one (the few loop rows of a
//! tree, Φ_q M⁻¹ Φ_qᵀ, whose redundant rows it leaves out).

use crate::Real;

/// Storage index of entry (i, j) of a packed symmetric matrix (either order).
#[inline(always)]
pub(crate) fn packed(i: usize, j: usize) -> usize {
    let (r, c) = if i >= j { (i, j) } else { (j, i) };
    r * (r + 1) / 2 + c
}

/// Number of reals a packed n × n symmetric matrix takes.
pub(crate) const fn packed_len(n: usize) -> usize {
    n * (n + 1) / 2
}

/// Factorizes the positive definite n × n matrix `a` = L D Lᵀ in place (L unit lower below
/// the diagonal, D on it). `Err(row)` at the first pivot that is not positive.
pub(crate) fn factorize<R: Real>(n: usize, a: &mut [R]) -> Result<(), usize> {
    if a.len() < packed_len(n) {
        return Err(0);
    }
    for j in 0..n {
        let mut d = a[packed(j, j)];
        for k in 0..j {
            let l = a[packed(j, k)];
            d -= l * l * a[packed(k, k)];
        }
        // Not positive, or NaN.
        if d.partial_cmp(&R::ZERO) != Some(core::cmp::Ordering::Greater) {
            return Err(j);
        }
        a[packed(j, j)] = d;
        let inverse = R::ONE / d;
        for i in j + 1..n {
            let mut s = a[packed(i, j)];
            for k in 0..j {
                s -= a[packed(i, k)] * a[packed(j, k)] * a[packed(k, k)];
            }
            a[packed(i, j)] = s * inverse;
        }
    }
    Ok(())
}

/// Solves L D Lᵀ x = b in place (`x` holds b) with a factor from [`factorize`].
pub(crate) fn solve<R: Real>(n: usize, a: &[R], x: &mut [R]) {
    if a.len() < packed_len(n) || x.len() < n {
        return;
    }
    for i in 0..n {
        let mut s = x[i];
        for k in 0..i {
            s -= a[packed(i, k)] * x[k];
        }
        x[i] = s;
    }
    for i in 0..n {
        x[i] /= a[packed(i, i)];
    }
    for i in (0..n).rev() {
        let mut s = x[i];
        for k in i + 1..n {
            s -= a[packed(k, i)] * x[k];
        }
        x[i] = s;
    }
}

/// Factorizes the symmetric positive semidefinite n × n matrix `a` with diagonal pivoting
/// (Higham, *Accuracy and Stability of Numerical Algorithms*, 2002, §10.3): one row after
/// another, the row whose remaining pivot is the largest part of its own diagonal entry
/// (pivoting on the matrix scaled to a unit diagonal, so that rows of other units compare),
/// while that part is at least `bound`; rows of equal part (all of them at the first choice)
/// are told apart by the best part a row keeps after them (one step of look-ahead), so that
/// the rows kept stay well conditioned together. The rows left are dependent on those chosen
/// (redundant constraint rows) and get zero unknowns in [`solve_pivoted`]. `order` receives
/// the rows chosen, in order; `scale` (n reals) is workspace. Returns the rank.
///
/// With `kept` > 0, `order[..kept]` is an earlier choice, taken again in its order and not
/// added to, while each of its rows keeps at least `held` (≥ `bound`) of its diagonal entry;
/// from the first that does not, the rows are chosen anew (a row kept with a small pivot makes
/// the solve ill-conditioned although another choice is well conditioned). (Off the manifold where the rows are
/// redundant, an integrator stage or a projection iterate, a redundant row keeps a pivot of the
/// order of its distance; taking it there would make the accelerations jump with the stage.)
pub(crate) fn factorize_pivoted<R: Real>(
    n: usize,
    a: &mut [R],
    order: &mut [usize],
    scale: &mut [R],
    (bound, held): (R, R),
    kept: usize,
) -> usize {
    if a.len() < packed_len(n) || order.len() < n || scale.len() < n {
        return 0;
    }
    let mut follow = kept.min(n);
    let mut choosing = follow == 0;
    for i in 0..n {
        scale[i] = a[packed(i, i)];
    }
    for o in &mut order[follow..n] {
        *o = usize::MAX;
    }
    let chosen = |order: &[usize], rank: usize, i: usize| order[..rank].contains(&i);
    let part = |a: &[R], i: usize| match scale[i] > R::ZERO {
        true => a[packed(i, i)] / scale[i],
        false => R::ZERO,
    };
    let mut rank = 0;
    while rank < n {
        if rank < follow {
            let p = order[rank];
            if p >= n || chosen(order, rank, p) || part(a, p) < held {
                // The earlier choice no longer holds: choose anew from here.
                follow = rank;
                choosing = true;
            }
        }
        let p = if rank < follow {
            order[rank]
        } else if choosing {
            let Some(p) = choose(n, a, order, rank, scale, bound) else {
                break;
            };
            p
        } else {
            break;
        };
        order[rank] = p;
        rank += 1;
        let d = a[packed(p, p)];
        let inverse = R::ONE / d;
        // The Schur complement of the rows left, then their multipliers l_ip = a_ip / d in
        // place of a_ip.
        for i in (0..n).filter(|&i| !chosen(order, rank, i)) {
            let lip = a[packed(i, p)] * inverse;
            for j in (0..=i).filter(|&j| !chosen(order, rank, j)) {
                a[packed(i, j)] -= lip * a[packed(j, p)];
            }
        }
        for i in (0..n).filter(|&i| !chosen(order, rank, i)) {
            a[packed(i, p)] *= inverse;
        }
    }
    rank
}

/// The next pivot of [`factorize_pivoted`] after the `rank` rows of `order`: the row keeping
/// the largest part of its diagonal entry, with one step of look-ahead; `None` when no row
/// keeps `bound`.
fn choose<R: Real>(n: usize, a: &[R], order: &[usize], rank: usize, scale: &[R], bound: R) -> Option<usize> {
    let free = |i: usize| !order[..rank].contains(&i) && scale[i] > R::ZERO;
    let part = |i: usize| a[packed(i, i)] / scale[i];
    // The best part a row keeps after pivot p.
    let next = |p: usize| {
        let mut best = R::ZERO;
        for i in (0..n).filter(|&i| i != p && free(i)) {
            let aip = a[packed(i, p)];
            best = best.max((a[packed(i, i)] - aip * aip / a[packed(p, p)]) / scale[i]);
        }
        best
    };
    let candidates = || (0..n).filter(|&i| free(i) && part(i) >= bound);
    let goes_on = candidates().any(|p| next(p) >= bound);
    let mut best: Option<(usize, R)> = None;
    for p in candidates() {
        let score = match goes_on {
            true => part(p).min(next(p)),
            false => part(p),
        };
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((p, score));
        }
    }
    best.map(|(p, _)| p)
}

/// Solves with a factor from [`factorize_pivoted`] of rank `rank` (rows `order[..rank]`
/// chosen): the chosen rows exactly, the unknowns of the others zero. `x` holds b.
pub(crate) fn solve_pivoted<R: Real>(n: usize, a: &[R], order: &[usize], rank: usize, x: &mut [R]) {
    let (Some(order), true) = (order.get(..rank), a.len() >= packed_len(n) && x.len() >= n) else {
        return;
    };
    for (s, &p) in order.iter().enumerate() {
        let mut v = x[p];
        for &e in &order[..s] {
            v -= a[packed(p, e)] * x[e];
        }
        x[p] = v;
    }
    for i in (0..n).filter(|i| !order.contains(i)) {
        x[i] = R::ZERO;
    }
    for &p in order {
        x[p] /= a[packed(p, p)];
    }
    for (s, &p) in order.iter().enumerate().rev() {
        let mut v = x[p];
        for &e in &order[s + 1..] {
            v -= a[packed(e, p)] * x[e];
        }
        x[p] = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packs the lower triangle of a dense matrix.
    fn pack(m: &[[f64; 3]; 3]) -> [f64; 6] {
        let mut a = [0.0; 6];
        for i in 0..3 {
            for j in 0..=i {
                a[packed(i, j)] = m[i][j];
            }
        }
        a
    }

    #[test]
    fn plain_factor_solves_a_positive_definite_system() {
        let m = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]];
        let mut a = pack(&m);
        factorize(3, &mut a).unwrap();
        let mut x = [1.0, 2.0, 3.0];
        solve(3, &a, &mut x);
        for (row, b) in m.iter().zip([1.0, 2.0, 3.0]) {
            let ax: f64 = row.iter().zip(&x).map(|(m, x)| m * x).sum();
            assert!((ax - b).abs() < 1e-14);
        }
        let mut singular = pack(&[[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
        assert_eq!(factorize(3, &mut singular), Err(1));
    }

    #[test]
    fn pivoted_factor_reveals_the_rank_and_solves_the_consistent_system() {
        // Row 2 = row 0 + row 1 (a redundant constraint row): rank 2, and a consistent right
        // side (b₂ = b₀ + b₁) is solved exactly by the rows kept.
        let g = [[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [1.0, 1.0, 3.0]];
        let mut m = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] = (0..3).map(|k| g[i][k] * g[j][k]).sum();
            }
        }
        let mut a = pack(&m);
        let (mut order, mut scale) = ([0; 3], [0.0; 3]);
        let rank = factorize_pivoted(
            3,
            &mut a,
            &mut order,
            &mut scale,
            (f64::EPSILON_TWO_THIRDS.sqrt(), 1e-4),
            0,
        );
        assert_eq!(rank, 2);
        let b = [1.0, 2.0, 3.0];
        let mut x = b;
        solve_pivoted(3, &a, &order, rank, &mut x);
        for (row, b) in m.iter().zip(b) {
            let ax: f64 = row.iter().zip(&x).map(|(m, x)| m * x).sum();
            assert!((ax - b).abs() < 1e-12, "{ax} vs {b}");
        }
    }
}
