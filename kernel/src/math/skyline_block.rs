//! A joint's rows of the skyline LDLᵀ factorized and solved as dense blocks of fixed size.
//!
//! Along a chain, the rows of a joint (a group: rows g .. g + G sharing their first column
//! f = g − W) meet the factor only in the W rows just before them, and those rows reach back
//! to column f or further: the group's part of the factor is a dense W × W triangle (the rows
//! before), a G × W block and a G × G triangle. With W and G constants the loops are
//! straight-line code over small arrays, without the per-entry index arithmetic of the
//! general profile. Every entry and unknown is formed with the operations of the general loops,
//! in their order (products subtracted in column order): the same bits.

use crate::Real;

/// `kernel::<R, W, G>(args)` for the group shapes (W, G) that have dense code (W = g − f,
/// G = h − g for the rows g .. h with first column f), `None` for the others: the joints of a
/// chain with 5 rows each (revolute, prismatic), the first one included.
macro_rules! dense_group {
    ($kernel:ident::<$r:ty>($shape:expr, $($arg:expr),* $(,)?)) => {
        match $shape {
            (5, 5) => $kernel::<$r, 5, 5>($($arg),*),
            (0, 5) => $kernel::<$r, 0, 5>($($arg),*),
            _ => None,
        }
    };
}
pub(super) use dense_group;

/// Factorizes the group of `G` rows starting at row `g` whose first column is `g − W`, if the
/// W rows before it start at or before that column and the storage is as the layout says;
/// `None` when it does not fit (the general loops take it). `done` holds the rows before the
/// group, `group` the storage from the group's first entry (at `base`) on; `settle` turns a
/// row's index, original diagonal and pivot into its stored inverse pivot. Returns the number of
/// dependent rows (inverse pivot 0), or `Err(row)` at a failed pivot.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // Indices of constant-size arrays, unrolled.
pub(super) fn factorize_group<R: Real, const W: usize, const G: usize>(
    (first, diag): (&[usize], &[usize]),
    (done, group): (&[R], &mut [R]),
    (g, base): (usize, usize),
    settle: &impl Fn(usize, R, R) -> Option<R>,
) -> Option<Result<usize, usize>> {
    let f = g.checked_sub(W)?;
    // The rows before: row f + c contributes its columns f ..= c (its inverse pivot last).
    let mut before = [[R::ZERO; W]; W];
    for (c, row) in before.iter_mut().enumerate() {
        if *first.get(f + c)? > f {
            return None;
        }
        let d = *diag.get(f + c)?;
        for (p, a) in row.iter_mut().zip(done.get(d.checked_sub(c)?..=d)?) {
            *p = *a;
        }
    }
    // The group's rows: columns f .. g in `outside`, g ..= g + i in `inside` (u, then l · D⁻¹
    // on the diagonal), row i stored at `start[i]` in `group`.
    let mut start = [0; G];
    let mut outside = [[R::ZERO; W]; G];
    let mut inside = [[R::ZERO; G]; G];
    for (i, ((s, out), inn)) in start.iter_mut().zip(&mut outside).zip(&mut inside).enumerate() {
        *s = diag.get(g + i)?.checked_sub(W + i + base)?;
        let row = group.get(*s..=*s + W + i)?;
        for (u, a) in out.iter_mut().chain(inn.iter_mut()).zip(row) {
            *u = *a;
        }
    }
    // Indices below run over the arrays' own lengths: no bounds can fail.
    // Outside columns: u_ic = a_ic − Σ_k u_ik l_ck, column after column (the rows' sums are
    // independent of each other).
    for c in 0..W {
        for out in outside.iter_mut() {
            let mut s = out[c];
            for k in 0..W {
                if k < c {
                    s -= out[k] * before[c][k];
                }
            }
            out[c] = s;
        }
    }
    // Their l = u · D⁻¹ (the pivots of the rows before are known).
    let mut scaled = [[R::ZERO; W]; G];
    for i in 0..G {
        for k in 0..W {
            scaled[i][k] = outside[i][k] * before[k][k];
        }
    }
    // The outside columns' terms of the group's own entries (i, m ≤ i), the first terms of
    // each sum in column order: none waits on the group's pivots, unlike the rest.
    let original: [R; G] = core::array::from_fn(|i| inside[i][i]);
    for i in 0..G {
        for m in 0..G {
            if m <= i {
                let mut s = inside[i][m];
                for k in 0..W {
                    s -= outside[i][k] * scaled[m][k];
                }
                inside[i][m] = s;
            }
        }
    }
    // The group's own columns, row by row: the columns of its earlier rows m (finished:
    // l · D⁻¹), then l_ik = u_ik / d_k and d_i = a_ii − Σ_k u_ik l_ik. The loops run over whole
    // arrays, cut short by conditions: once unrolled, the conditions are constants.
    let mut dependent = 0;
    for i in 0..G {
        for m in 0..G {
            if m < i {
                let mut s = inside[i][m];
                for k in 0..G {
                    if k < m {
                        s -= inside[i][k] * inside[m][k];
                    }
                }
                inside[i][m] = s;
            }
        }
        let mut d = inside[i][i];
        for k in 0..G {
            if k < i {
                let u = inside[i][k];
                let l = u * inside[k][k];
                d -= u * l;
                inside[i][k] = l;
            }
        }
        let Some(inverse) = settle(g + i, original[i], d) else {
            return Some(Err(g + i));
        };
        inside[i][i] = inverse;
        if inverse == R::ZERO {
            dependent += 1;
        }
    }
    for (i, ((s, out), inn)) in start.iter().zip(&scaled).zip(&inside).enumerate() {
        for (a, l) in group
            .get_mut(*s..=*s + W + i)?
            .iter_mut()
            .zip(out.iter().chain(inn))
        {
            *a = *l;
        }
    }
    Some(Ok(dependent))
}

/// A group's rows of the factor, each up to its diagonal, and the unknowns they meet: the W
/// before the group and its own G.
type GroupView<'a, 'x, R, const W: usize, const G: usize> = ([&'a [R]; G], &'x mut [R; W], &'x mut [R; G]);

/// The [`GroupView`] of rows g .. g + G, first column g − W, in `a` and `x`; `None` when a row
/// starts elsewhere or the storage is not as the layout says.
#[inline(always)]
fn group_view<'a, 'x, R, const W: usize, const G: usize>(
    (first, diag): (&[usize], &[usize]),
    a: &'a [R],
    g: usize,
    x: &'x mut [R],
) -> Option<GroupView<'a, 'x, R, W, G>> {
    let f = g.checked_sub(W)?;
    let mut rows: [&[R]; G] = [&[]; G];
    for (i, row) in rows.iter_mut().enumerate() {
        if *first.get(g + i)? != f {
            return None;
        }
        let d = *diag.get(g + i)?;
        *row = a.get(d.checked_sub(W + i)?..=d)?;
    }
    let (before, own) = x.get_mut(f..g + G)?.split_at_mut_checked(W)?;
    Some((rows, before.try_into().ok()?, own.try_into().ok()?))
}

/// The forward solve L y = b over the group of G rows at g, first column g − W (y_i = b_i −
/// Σ_k l_ik y_k in column order, as row by row); `None` (nothing done) when it does not fit.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // Indices of constant-size arrays, unrolled.
pub(super) fn forward_group<R: Real, const W: usize, const G: usize>(
    layout: (&[usize], &[usize]),
    a: &[R],
    g: usize,
    x: &mut [R],
) -> Option<()> {
    let (rows, before, own) = group_view::<R, W, G>(layout, a, g, x)?;
    for i in 0..G {
        let row = rows[i];
        let mut s = own[i];
        for k in 0..W {
            s -= row.get(k).copied().unwrap_or(R::ZERO) * before[k];
        }
        for m in 0..G {
            if m < i {
                s -= row.get(W + m).copied().unwrap_or(R::ZERO) * own[m];
            }
        }
        own[i] = s;
    }
    Some(())
}

/// The backward solve Lᵀ x = y over the same group, its rows last to first, each subtracting
/// l_ik x_i from the x_k of its columns (as row by row); x holds y · D⁻¹ on entry. `None`
/// (nothing done) when it does not fit.
#[inline(always)]
#[allow(clippy::needless_range_loop)] // Indices of constant-size arrays, unrolled.
pub(super) fn backward_group<R: Real, const W: usize, const G: usize>(
    layout: (&[usize], &[usize]),
    a: &[R],
    g: usize,
    x: &mut [R],
) -> Option<()> {
    let (rows, before, own) = group_view::<R, W, G>(layout, a, g, x)?;
    for i in (0..G).rev() {
        let row = rows[i];
        let xi = own[i];
        for k in 0..W {
            before[k] -= row.get(k).copied().unwrap_or(R::ZERO) * xi;
        }
        for m in 0..G {
            if m < i {
                own[m] -= row.get(W + m).copied().unwrap_or(R::ZERO) * xi;
            }
        }
    }
    Some(())
}
