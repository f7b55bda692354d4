//! Sparse assembly over the free coordinates: the pattern (upper triangle, compressed columns)
//! and each element's scatter positions are computed once; every assembly after that is a
//! numeric scatter of the kernel's element matrices.

use super::ImplicitError;
use crate::storage::FlexModel;
use ferrodyn_kernel::ancf::{ElementError, Material, ELEMENT_COORDS};
use ferrodyn_kernel::flex::{gather, scatter_add, FIXED};

/// Upper-triangular compressed-column pattern of the free–free matrices of a body, with the
/// value positions of every element entry.
#[derive(Clone, Debug)]
pub struct Pattern {
    /// Matrix size (free coordinates).
    pub n: usize,
    /// Column starts (n + 1).
    pub col_ptr: Vec<usize>,
    /// Row of each stored value (sorted within a column, row ≤ column).
    pub row_idx: Vec<usize>,
    /// For each element, (48 a + b, value position) of each entry (a, b) of the element matrix
    /// that lands in the stored triangle: both coordinates free and dof(a) ≤ dof(b).
    scatter: Vec<Vec<(u16, u32)>>,
}

impl Pattern {
    /// Builds the pattern of `body` (which must be finished).
    pub fn new(body: &FlexModel) -> Result<Self, ImplicitError> {
        Self::with_couplings(body, &[])
    }

    /// The pattern of `body` with the coordinates of each node pair in `couplings` coupled too
    /// (contact between nodes of different elements).
    pub fn with_couplings(body: &FlexModel, couplings: &[(usize, usize)]) -> Result<Self, ImplicitError> {
        let dofs: Vec<[usize; ELEMENT_COORDS]> =
            (0..body.element_count()).map(|e| body.element_dofs(e)).collect();
        let node_dofs = |node: usize| body.dof().get(node).map_or(&[][..], |d| &d[..]);
        let mut extra = Vec::new();
        for &(a, b) in couplings {
            let coupled: Vec<usize> = node_dofs(a).iter().chain(node_dofs(b)).copied().collect();
            for &r in &coupled {
                extra.extend(coupled.iter().map(|&c| (r, c)));
            }
        }
        Self::from_element_dofs(body.dof_count(), &dofs, &extra)
    }

    /// The pattern of an n × n symmetric matrix holding, for each element, the entries between
    /// its unknowns `element_dofs[e]` ([`FIXED`]: none), and the `extra` entries (either
    /// triangle; pairs with [`FIXED`] are skipped).
    pub fn from_element_dofs(
        n: usize,
        element_dofs: &[[usize; ELEMENT_COORDS]],
        extra: &[(usize, usize)],
    ) -> Result<Self, ImplicitError> {
        let mut columns: Vec<Vec<usize>> = vec![Vec::new(); n];
        for d in element_dofs {
            for &r in d.iter().filter(|&&r| r != FIXED) {
                for &c in d.iter().filter(|&&c| c != FIXED && r <= c) {
                    columns[c].push(r);
                }
            }
        }
        for &(r, c) in extra.iter().filter(|&&(r, c)| r != FIXED && c != FIXED) {
            columns[r.max(c)].push(r.min(c));
        }
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::new();
        col_ptr.push(0);
        for col in columns.iter_mut() {
            col.sort_unstable();
            col.dedup();
            row_idx.extend_from_slice(col);
            col_ptr.push(row_idx.len());
        }
        if row_idx.len() > u32::MAX as usize {
            return Err(ImplicitError::TooLarge {
                entries: row_idx.len(),
            });
        }
        let position = |r: usize, c: usize| -> u32 {
            let rows = &row_idx[col_ptr[c]..col_ptr[c + 1]];
            // Present by construction.
            (col_ptr[c] + rows.binary_search(&r).unwrap_or(0)) as u32
        };
        let scatter = element_dofs
            .iter()
            .map(|d| {
                let mut s = Vec::new();
                for (a, &r) in d.iter().enumerate() {
                    for (b, &c) in d.iter().enumerate() {
                        if r != FIXED && c != FIXED && r <= c {
                            s.push(((ELEMENT_COORDS * a + b) as u16, position(r, c)));
                        }
                    }
                }
                s
            })
            .collect();
        Ok(Self {
            n,
            col_ptr,
            row_idx,
            scatter,
        })
    }

    /// Stored entries.
    pub fn nnz(&self) -> usize {
        self.row_idx.len()
    }

    /// Value position of entry (row, col) of the upper triangle, if stored.
    pub fn position(&self, row: usize, col: usize) -> Option<usize> {
        let (row, col) = (row.min(col), row.max(col));
        let start = *self.col_ptr.get(col)?;
        let rows = &self.row_idx[start..self.col_ptr[col + 1]];
        rows.binary_search(&row).ok().map(|k| start + k)
    }

    /// Adds `scale` × an element matrix into `values`.
    pub fn add_element(
        &self,
        element: usize,
        k: &[[f64; ELEMENT_COORDS]; ELEMENT_COORDS],
        scale: f64,
        values: &mut [f64],
    ) {
        let k = k.as_flattened();
        for &(local, slot) in &self.scatter[element] {
            values[slot as usize] += scale * k[local as usize];
        }
    }

    /// The consistent mass matrix M (constant) in this pattern.
    pub fn mass(&self, body: &FlexModel) -> Vec<f64> {
        self.mass_of(body, |_| true)
    }

    /// The mass matrix of the elements whose material `select` accepts (e.g. those of one
    /// Rayleigh α), in this pattern.
    pub fn mass_of(&self, body: &FlexModel, select: impl Fn(&Material<f64>) -> bool) -> Vec<f64> {
        let mut values = vec![0.0; self.nnz()];
        let mut m = [[0.0; ELEMENT_COORDS]; ELEMENT_COORDS];
        for (index, (element, material)) in body.elements().iter().zip(body.materials()).enumerate() {
            if !select(material) {
                continue;
            }
            // M_e = m ⊗ I₃: shape function k is coordinate 3k + i for component i.
            for (k, row) in element.scalar_mass().iter().enumerate() {
                for (l, &mkl) in row.iter().enumerate() {
                    for i in 0..3 {
                        m[3 * k + i][3 * l + i] = mkl;
                    }
                }
            }
            self.add_element(index, &m, 1.0, &mut values);
        }
        values
    }

    /// The nonzero entries of the symmetric matrix with `values` in this pattern.
    pub fn nonzeros(&self, values: &[f64]) -> Nonzeros {
        let mut entries = Vec::new();
        for c in 0..self.n {
            let range = self.col_ptr[c]..self.col_ptr[c + 1];
            for (&r, &value) in self.row_idx[range.clone()].iter().zip(&values[range]) {
                if value != 0.0 {
                    entries.push((r, c, value));
                }
            }
        }
        Nonzeros { entries }
    }

    /// y = A x for the symmetric matrix stored as its upper triangle.
    pub fn symmetric_times(&self, values: &[f64], x: &[f64], y: &mut [f64]) {
        y.iter_mut().for_each(|v| *v = 0.0);
        for c in 0..self.n {
            let range = self.col_ptr[c]..self.col_ptr[c + 1];
            for (&r, &value) in self.row_idx[range.clone()].iter().zip(&values[range]) {
                y[r] += value * x[c];
                if r != c {
                    y[c] += value * x[r];
                }
            }
        }
    }
}

/// The nonzero entries (row ≤ column) of a symmetric matrix: its products skip the zeros a
/// pattern stores (an ANCF mass m ⊗ I₃ fills a third of its element blocks).
#[derive(Clone, Debug, Default)]
pub struct Nonzeros {
    entries: Vec<(usize, usize, f64)>,
}

impl Nonzeros {
    /// y += A x (x and y at least as long as the largest index).
    pub fn times_add(&self, x: &[f64], y: &mut [f64]) {
        for &(r, c, value) in &self.entries {
            y[r] += value * x[c];
            if r != c {
                y[c] += value * x[r];
            }
        }
    }
}

/// Maps an element failure to an implicit-solver error naming the element.
pub fn element_failure(element: usize, e: ElementError, time: f64) -> ImplicitError {
    ImplicitError::Element {
        element,
        time,
        error: e,
    }
}

/// Internal elastic force Q_e per body coordinate into `force` and, when `tangent` is given,
/// K = −∂Q_e/∂e (the kernel's analytic element tangent) scaled by `scale` added into it.
/// Every element with its own material.
pub fn elastic_force_and_tangent(
    body: &FlexModel,
    pattern: &Pattern,
    time: f64,
    q: &[f64],
    force: &mut [f64],
    tangent: Option<(&mut [f64], f64)>,
) -> Result<(), ImplicitError> {
    match tangent {
        Some((values, scale)) => {
            elastic_force_and_scaled_tangent(body, pattern, time, q, force, Some((values, &|_| scale)))
        }
        None => elastic_force_and_scaled_tangent(body, pattern, time, q, force, None),
    }
}

/// The factor of an element's tangent in a Newton matrix, from the element's material.
pub type ElementScale<'a> = &'a (dyn Fn(&Material<f64>) -> f64 + Sync);

/// Bodies of at least this many elements are assembled in [`CHUNKS`] parts on their own threads.
const PARALLEL_ELEMENTS: usize = 128;
/// Element chunks of a parallel assembly: fixed, not the machine's core count, and their sums
/// added in chunk order, so the result has the same bits on every machine.
const CHUNKS: usize = 2;

/// [`elastic_force_and_tangent`] with each element's K scaled by `scale(its material)`: for
/// Newton matrices whose stiffness term carries the element's own Rayleigh β, e.g.
/// (1 + α)(1 + γβ_R/(βh)) K_e in HHT. Large bodies are assembled in contiguous element chunks
/// on `CHUNKS` threads; an error names the first failing element as a sequential pass would.
pub fn elastic_force_and_scaled_tangent(
    body: &FlexModel,
    pattern: &Pattern,
    time: f64,
    q: &[f64],
    force: &mut [f64],
    tangent: Option<(&mut [f64], ElementScale<'_>)>,
) -> Result<(), ImplicitError> {
    force.iter_mut().for_each(|v| *v = 0.0);
    let count = body.element_count();
    if count < PARALLEL_ELEMENTS {
        return assemble_elements(body, pattern, time, q, 0..count, force, tangent);
    }
    let split = count.div_ceil(CHUNKS);
    let (mut target, scale) = match tangent {
        Some((values, scale)) => (Some(values), Some(scale)),
        None => (None, None),
    };
    let (first, rest) = std::thread::scope(|s| {
        let others: Vec<_> = (1..CHUNKS)
            .map(|k| {
                let range = k * split..((k + 1) * split).min(count);
                s.spawn(move || {
                    let mut part = vec![0.0; force_len(body)];
                    let mut values = scale.map(|_| vec![0.0; pattern.nnz()]);
                    let tangent = values.as_deref_mut().zip(scale);
                    assemble_elements(body, pattern, time, q, range, &mut part, tangent)
                        .map(|()| (part, values))
                })
            })
            .collect();
        let tangent = target.as_deref_mut().zip(scale);
        let first = assemble_elements(body, pattern, time, q, 0..split, force, tangent);
        let rest: Vec<_> = others.into_iter().map(|h| h.join()).collect();
        (first, rest)
    });
    first?;
    for part in rest {
        let (part, values) = part.map_err(|_| ImplicitError::Factorization {
            reason: "an element assembly thread panicked".into(),
        })??;
        force.iter_mut().zip(&part).for_each(|(f, p)| *f += p);
        if let (Some(target), Some(values)) = (target.as_deref_mut(), values) {
            target.iter_mut().zip(&values).for_each(|(t, v)| *t += v);
        }
    }
    Ok(())
}

/// Length of a generalized force vector of `body` (12 per node).
fn force_len(body: &FlexModel) -> usize {
    ferrodyn_kernel::ancf::NODE_COORDS * body.node_count()
}

/// The elastic forces of elements `range` added into `force` and, with `tangent`, their
/// scaled tangents into its values; the first failing element is the error.
fn assemble_elements(
    body: &FlexModel,
    pattern: &Pattern,
    time: f64,
    q: &[f64],
    range: std::ops::Range<usize>,
    force: &mut [f64],
    mut tangent: Option<(&mut [f64], ElementScale<'_>)>,
) -> Result<(), ImplicitError> {
    let mut qe = [0.0; ELEMENT_COORDS];
    let mut k = Box::new([[0.0; ELEMENT_COORDS]; ELEMENT_COORDS]);
    let items = body
        .element_items()
        .enumerate()
        .skip(range.start)
        .take(range.len());
    for (index, (element, nodes, material)) in items {
        let ee = gather(q, nodes);
        match tangent.as_mut() {
            Some((values, scale)) => {
                element
                    .elastic_force_and_tangent(material, &ee, &mut qe, &mut k)
                    .map_err(|e| element_failure(index, e, time))?;
                pattern.add_element(index, &k, scale(material), values);
            }
            None => element
                .elastic_force(material, &ee, &mut qe)
                .map_err(|e| element_failure(index, e, time))?,
        }
        scatter_add(force, nodes, &qe);
    }
    Ok(())
}

/// Rayleigh damping force −(α M + β K(e)) ė per body coordinate (the kernel's element
/// damping routine and mass product, α and β of each element's material), added into `force`.
pub fn add_damping_force(
    body: &FlexModel,
    time: f64,
    q: &[f64],
    v: &[f64],
    force: &mut [f64],
) -> Result<(), ImplicitError> {
    let (mut qe, mut mv) = ([0.0; ELEMENT_COORDS], [0.0; ELEMENT_COORDS]);
    for (index, (element, nodes, material)) in body.element_items().enumerate() {
        let alpha = material.rayleigh_mass;
        if alpha == 0.0 && material.rayleigh_stiffness == 0.0 {
            continue;
        }
        let (ee, ve) = (gather(q, nodes), gather(v, nodes));
        element
            .damping_force(material, &ee, &ve, &mut qe)
            .map_err(|e| element_failure(index, e, time))?;
        element.mass_times(&ve, &mut mv);
        for (a, b) in qe.iter_mut().zip(&mv) {
            *a -= alpha * b;
        }
        scatter_add(force, nodes, &qe);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrodyn_kernel::math::Vec3;
    use ferrodyn_kernel::samples::add_box_mesh;
    use ferrodyn_kernel::Dynamics;

    /// A 384-tet block (above [`PARALLEL_ELEMENTS`]) and its coordinates, sheared and wrinkled.
    fn deformed_block() -> (FlexModel, Vec<f64>) {
        let material = Material::neo_hookean(1e7, 0.3, 1000.0).unwrap();
        let mut b = FlexModel::builder(material, Vec3::ZERO);
        add_box_mesh(&mut b, Vec3::ZERO, Vec3::new(0.8, 0.4, 0.2), [8, 4, 2]).unwrap();
        let body = b.build().unwrap();
        let data = body.new_data();
        let state = body.state(&data);
        let mut q = state[..state.len() / 2].to_vec();
        for (i, v) in q.iter_mut().enumerate() {
            *v += 0.01 * (i as f64 * 0.37).sin();
        }
        (body, q)
    }

    #[test]
    fn parallel_assembly_matches_one_pass_and_repeats_its_bits() {
        let (body, q) = deformed_block();
        assert!(body.element_count() >= PARALLEL_ELEMENTS);
        let pattern = Pattern::new(&body).unwrap();
        let scale: ElementScale<'_> = &|_| 2.0;
        let run = || {
            let mut force = vec![0.0; q.len()];
            let mut values = vec![0.0; pattern.nnz()];
            elastic_force_and_scaled_tangent(
                &body,
                &pattern,
                0.0,
                &q,
                &mut force,
                Some((&mut values, scale)),
            )
            .unwrap();
            (force, values)
        };
        let (force, values) = run();
        let (mut one_force, mut one_values) = (vec![0.0; q.len()], vec![0.0; pattern.nnz()]);
        let all = 0..body.element_count();
        assemble_elements(
            &body,
            &pattern,
            0.0,
            &q,
            all,
            &mut one_force,
            Some((&mut one_values, scale)),
        )
        .unwrap();
        let close = |a: &[f64], b: &[f64]| {
            let largest = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
            a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-13 * largest)
        };
        assert!(close(&force, &one_force) && close(&values, &one_values));
        assert!(force.iter().any(|f| f.abs() > 1.0), "the block is loaded");
        let (again_force, again_values) = run();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&force), bits(&again_force));
        assert_eq!(bits(&values), bits(&again_values));
    }
}
