//! Broad phase of flexible-body surface contact: the boundary triangles of a tetrahedral cube
//! (n×n×n cells, 6 tets each; 12·n² triangles) against the surface nodes of a second such cube
//! resting on it (6·n² + 2 nodes), per step: recompute the triangle boxes from moved vertices,
//! then find every triangle–node box overlap
//! - `bvh`: refit the `AabbTree` built once over the triangles, one `overlapping` query per node;
//! - `sweep`: `SweepAndPrune::pairs` over the triangle and node boxes together (what
//!   `flex_pair` did before it switched to the tree), keeping the triangle–node pairs.
//!
//! Both find the same pairs (checked at setup). Figures of merit, from one run (the machine is
//! shared and noisy: only ratios within a run count): the ratio sweep/bvh per size, and the
//! growth exponent log(t_big/t_small)/log(size ratio).
//!
//! Measured here (2026-12, shared machine, release, one run; criterion point estimates):
//!
//! | triangles | query nodes | bvh      | sweep    | sweep/bvh |
//! |-----------|-------------|----------|----------|-----------|
//! | 108       | 56          | 2.53 µs  | 15.2 µs  | 6.0       |
//! | 972       | 488         | 33.9 µs  | 822 µs   | 24        |
//! | 10,092    | 5,048       | 355 µs   | 29.1 ms  | 82        |
//!
//! Exponent log(t₁₀₀₉₂/t₁₀₈)/log(10092/108): bvh 1.09 (108→972: 1.18, 972→10092: 1.00), sweep
//! 1.67 (1.82, 1.52). The query count grows with the size here, so linear is the best possible
//! for the tree (O(n) refit + n·O(log n + hits) queries). The sweep is superlinear because the
//! cube's flat faces x = 0 and x = 1 give 2·n² triangle boxes of zero x extent, all open at the
//! same time, and it also enumerates every triangle–triangle pair of neighbours, which
//! a contact would throw away.
//!
//! Run: `cargo bench -p ferrodyn-benches --bench flex_surface_broadphase`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferrodyn::host::contact::broad::{Aabb, SweepAndPrune};
use ferrodyn::host::contact::bvh::AabbTree;
use ferrodyn::host::contact::flexible::surface_triangles;
use std::hint::black_box;
use std::time::Duration;

/// Growth of the node boxes: a tenth of a cell, as the contact depth band of `flex_pair`.
const MARGIN_PER_CELL: f64 = 0.1;

/// Nodes and 6-tet (Kuhn) connectivity of a unit cube of n×n×n cells with its lower corner at
/// `origin`; every cell is split along its main diagonal, so neighbouring cells' faces match.
fn tet_cube(n: usize, origin: [f64; 3]) -> (Vec<[f64; 3]>, Vec<[usize; 4]>) {
    let h = 1.0 / n as f64;
    let side = n + 1;
    let id = |i: usize, j: usize, k: usize| i + side * (j + side * k);
    let mut nodes = Vec::with_capacity(side * side * side);
    for k in 0..side {
        for j in 0..side {
            for i in 0..side {
                nodes.push([
                    origin[0] + h * i as f64,
                    origin[1] + h * j as f64,
                    origin[2] + h * k as f64,
                ]);
            }
        }
    }
    // The 6 monotone paths from corner (0,0,0) to (1,1,1), one tet each.
    let axes_orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    let mut tets = Vec::with_capacity(6 * n * n * n);
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                for order in axes_orders {
                    let mut corner = [i, j, k];
                    let mut tet = [id(i, j, k); 4];
                    for (slot, axis) in order.into_iter().enumerate() {
                        corner[axis] += 1;
                        tet[slot + 1] = id(corner[0], corner[1], corner[2]);
                    }
                    tets.push(tet);
                }
            }
        }
    }
    (nodes, tets)
}

/// Nodes of a tet cube on its boundary (any grid index 0 or n).
fn surface_nodes(n: usize, nodes: &[[f64; 3]]) -> Vec<[f64; 3]> {
    let side = n + 1;
    let on_face = |i: usize| i == 0 || i == n;
    (0..nodes.len())
        .filter(|&v| on_face(v % side) || on_face(v / side % side) || on_face(v / (side * side)))
        .map(|v| nodes[v])
        .collect()
}

/// One contact workload: the lower cube's triangles, the upper cube's surface nodes, and the
/// buffers both broad phases write into.
struct Workload {
    reference: Vec<[f64; 3]>,
    /// Fixed small displacement direction of each vertex (≤ 1 % of a cell).
    wobble: Vec<[f64; 3]>,
    positions: Vec<[f64; 3]>,
    triangles: Vec<[usize; 3]>,
    points: Vec<[f64; 3]>,
    margin: f64,
    step: u64,
    triangle_boxes: Vec<Aabb>,
    all_boxes: Vec<Aabb>,
}

impl Workload {
    fn new(n: usize) -> Self {
        let h = 1.0 / n as f64;
        let (reference, tets) = tet_cube(n, [0.0; 3]);
        let triangles = surface_triangles(&tets, |v| reference[v]);
        // The upper cube sits on the lower one, shifted off the grid lines, its bottom nodes
        // 5 % of a cell into the lower cube's top face.
        let (upper, _) = tet_cube(n, [0.3 * h, 0.2 * h, 1.0 - 0.05 * h]);
        let points = surface_nodes(n, &upper);
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut unit = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let wobble = (0..reference.len())
            .map(|_| [0.02 * h * unit(), 0.02 * h * unit(), 0.02 * h * unit()])
            .collect();
        Self {
            positions: reference.clone(),
            reference,
            wobble,
            triangles,
            points,
            margin: MARGIN_PER_CELL * h,
            step: 0,
            triangle_boxes: Vec::new(),
            all_boxes: Vec::new(),
        }
    }

    /// Moves the vertices (alternating sign, so every step has new positions) and recomputes
    /// the triangle boxes: the per-step work both broad phases share.
    fn move_and_box_triangles(&mut self) {
        self.step += 1;
        let s = if self.step % 2 == 0 { 1.0 } else { -1.0 };
        for ((p, r), w) in self.positions.iter_mut().zip(&self.reference).zip(&self.wobble) {
            *p = std::array::from_fn(|k| r[k] + s * w[k]);
        }
        self.triangle_boxes.clear();
        for t in &self.triangles {
            let [a, b, c] = t.map(|v| self.positions[v]);
            self.triangle_boxes.push(Aabb {
                min: std::array::from_fn(|k| a[k].min(b[k]).min(c[k])),
                max: std::array::from_fn(|k| a[k].max(b[k]).max(c[k])),
            });
        }
    }

    /// The box of query point `p`: zero size grown by the margin.
    fn point_box(&self, p: &[f64; 3]) -> Aabb {
        Aabb {
            min: p.map(|c| c - self.margin),
            max: p.map(|c| c + self.margin),
        }
    }

    /// One step with the tree: refit, then one query per point; the number of pairs.
    fn step_bvh(&mut self, tree: &mut AabbTree, hits: &mut Vec<usize>) -> usize {
        self.move_and_box_triangles();
        if tree.refit(&self.triangle_boxes).is_err() {
            return 0;
        }
        let mut pairs = 0;
        for p in &self.points {
            tree.overlapping(&self.point_box(p), hits);
            pairs += hits.len();
        }
        pairs
    }

    /// One step with sweep and prune over triangle and point boxes together; the number of
    /// triangle–point pairs.
    fn step_sweep(&mut self, sweep: &mut SweepAndPrune, pairs: &mut Vec<(usize, usize)>) -> usize {
        self.move_and_box_triangles();
        self.all_boxes.clear();
        self.all_boxes.extend_from_slice(&self.triangle_boxes);
        for p in &self.points {
            let b = self.point_box(p);
            self.all_boxes.push(b);
        }
        sweep.pairs(&self.all_boxes, pairs);
        let faces = self.triangles.len();
        // Triangles come first: a triangle–point pair has i < faces ≤ j.
        pairs.iter().filter(|&&(i, j)| i < faces && j >= faces).count()
    }
}

fn flex_surface_broadphase(c: &mut Criterion) {
    let mut group = c.benchmark_group("flex_surface_broadphase");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for n in [3, 9, 29] {
        let mut work = Workload::new(n);
        let size = work.triangles.len();
        work.move_and_box_triangles();
        let mut tree = AabbTree::build(&work.triangle_boxes);
        let (mut hits, mut sweep, mut pairs) = (Vec::new(), SweepAndPrune::default(), Vec::new());
        let found_bvh = work.step_bvh(&mut tree, &mut hits);
        // Same step parity, so the same positions.
        work.step += 1;
        let found_sweep = work.step_sweep(&mut sweep, &mut pairs);
        assert_eq!(found_bvh, found_sweep, "both broad phases find the same pairs");
        assert!(found_bvh >= work.points.len() / 10, "the cubes touch");
        eprintln!(
            "n = {n}: {size} triangles, {} query points, {found_bvh} triangle–point pairs",
            work.points.len()
        );
        group.bench_function(BenchmarkId::new("bvh", size), |b| {
            b.iter(|| black_box(work.step_bvh(&mut tree, &mut hits)))
        });
        group.bench_function(BenchmarkId::new("sweep", size), |b| {
            b.iter(|| black_box(work.step_sweep(&mut sweep, &mut pairs)))
        });
    }
    group.finish();
}

criterion_group!(benches, flex_surface_broadphase);
criterion_main!(benches);
