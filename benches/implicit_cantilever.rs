//! Implicit steel cantilever (HHT-α, α = −0.05, dt = 1e-3 s, under gravity): time per
//! implicit step and per Newton iteration (force + analytic tangent assembly, numeric sparse
//! LDLᵀ with the symbolic factorization reused, one solve) for box meshes of about 1k, 5k and
//! 30k DOF (10×2×2, 50×2×2, 280×2×2 hexahedra, 6 tets each), and the same step done the
//! naive way at the 1k size: a dense tangent by forward finite differences of the residual
//! (one full force evaluation per free coordinate, the textbook dense FD Jacobian) and a dense
//! partial-pivoting LU. A second, kinder baseline differences only the elements that touch
//! the perturbed node. Both live only here.
//!
//! Run: `cargo bench -p ferrodyn-benches --bench implicit_cantilever -- --warm-up-time 1 --measurement-time 3 --sample-size 10`
//! Before the criterion groups a summary is printed (CPU time): per-iteration times, the growth
//! exponent in DOF, and the speed-up over the dense FD baselines (sparse and dense timed in
//! alternating rounds on the same state, medians and the range over the rounds).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use ferrodyn::host::implicit::HhtFlex;
use ferrodyn::host::spec::HhtOptions;
use ferrodyn::host::storage::FlexModel;
use ferrodyn::kernel::ancf::{ELEMENT_COORDS, NODE_COORDS};
use std::hint::black_box;

#[path = "../tests/suite/common/cpu_time.rs"]
mod cpu_time;
use cpu_time::cpu_seconds;

#[path = "../tests/suite/common/cantilever.rs"]
mod cantilever;
use cantilever::steel_cantilever;

const DT: f64 = 1e-3;
const SIZES: [[usize; 3]; 3] = [[10, 2, 2], [50, 2, 2], [280, 2, 2]];

fn options() -> HhtOptions {
    HhtOptions::hht(-0.05).unwrap()
}

/// Integrator 2 steps into the fall (a moving state).
fn moving(divisions: [usize; 3]) -> HhtFlex {
    let mut hht = HhtFlex::new(steel_cantilever(divisions), options()).unwrap();
    for _ in 0..2 {
        hht.step(DT).unwrap();
    }
    hht
}

/// The same HHT step with a dense finite-difference tangent and dense LU.
struct DenseFd {
    body: FlexModel,
    mass: Vec<f64>,
    n: usize,
    /// Difference the full residual per column (else only the elements touching the node).
    full: bool,
}

impl DenseFd {
    fn new(body: FlexModel, full: bool) -> Self {
        let n = body.dof_count();
        let mut mass = vec![0.0; n * n];
        for (index, element) in body.elements().iter().enumerate() {
            let d = body.element_dofs(index);
            for (k, row) in element.scalar_mass().iter().enumerate() {
                for (l, &m) in row.iter().enumerate() {
                    for i in 0..3 {
                        let (r, c) = (d[3 * k + i], d[3 * l + i]);
                        if r < n && c < n {
                            mass[r * n + c] += m;
                        }
                    }
                }
            }
        }
        Self { body, mass, n, full }
    }

    /// Total force Q(q) (elastic + external) over the free coordinates.
    fn force(&self, q: &[f64], out: &mut [f64]) {
        let mut full = vec![0.0; q.len()];
        self.body.external_force(0.0, &mut full);
        let mut qe = [0.0; ELEMENT_COORDS];
        let items = self.body.elements().iter().zip(self.body.connectivity());
        for ((element, nodes), material) in items.zip(self.body.materials()) {
            element
                .elastic_force(material, &gather(q, nodes), &mut qe)
                .unwrap();
            scatter(&mut full, nodes, &qe);
        }
        self.body.gather_free(&full, out);
    }

    /// S = M/(βh²) − (1 + α) ∂Q/∂q by element-local forward differences, dense row-major.
    fn fd_matrix(&self, q: &[f64], o: &HhtOptions, h: f64) -> Vec<f64> {
        let n = self.n;
        let mut s: Vec<f64> = self.mass.iter().map(|m| m / (o.beta * h * h)).collect();
        let mut qp = q.to_vec();
        if self.full {
            let (mut base, mut pert) = (vec![0.0; n], vec![0.0; n]);
            self.force(q, &mut base);
            for (node, dofs) in self.body.dof().iter().enumerate() {
                for (c, &j) in dofs.iter().enumerate() {
                    if j >= n {
                        continue;
                    }
                    let x = NODE_COORDS * node + c;
                    let eps = 1e-7 * q[x].abs().max(1.0);
                    qp[x] = q[x] + eps;
                    self.force(&qp, &mut pert);
                    qp[x] = q[x];
                    for r in 0..n {
                        s[r * n + j] -= (1.0 + o.alpha) * (pert[r] - base[r]) / eps;
                    }
                }
            }
            return s;
        }
        let (mut base, mut pert) = ([0.0; ELEMENT_COORDS], [0.0; ELEMENT_COORDS]);
        for (node, dofs) in self.body.dof().iter().enumerate() {
            let touching: Vec<usize> = (0..self.body.element_count())
                .filter(|&e| self.body.connectivity()[e].contains(&node))
                .collect();
            for (c, &j) in dofs.iter().enumerate() {
                if j >= n {
                    continue;
                }
                let x = NODE_COORDS * node + c;
                let eps = 1e-7 * q[x].abs().max(1.0);
                for &e in &touching {
                    let nodes = &self.body.connectivity()[e];
                    let (element, material) = (&self.body.elements()[e], &self.body.materials()[e]);
                    element
                        .elastic_force(material, &gather(q, nodes), &mut base)
                        .unwrap();
                    qp[x] = q[x] + eps;
                    element
                        .elastic_force(material, &gather(&qp, nodes), &mut pert)
                        .unwrap();
                    qp[x] = q[x];
                    for (a, &r) in self.body.element_dofs(e).iter().enumerate() {
                        if r < n {
                            s[r * n + j] -= (1.0 + o.alpha) * (pert[a] - base[a]) / eps;
                        }
                    }
                }
            }
        }
        s
    }

    /// One HHT step from (q, v, a, Q_n) like HhtFlex::step; returns the Newton iterations.
    fn step(&self, q: &mut [f64], v: &mut [f64], a: &mut Vec<f64>, force_n: &mut [f64], h: f64) -> u32 {
        let o = options();
        let n = self.n;
        let mut af = vec![0.0; q.len()];
        self.body.scatter_free(a, &mut af);
        let qpred: Vec<f64> = (0..q.len())
            .map(|i| q[i] + h * v[i] + h * h * (0.5 - o.beta) * af[i])
            .collect();
        let vpred: Vec<f64> = (0..q.len()).map(|i| v[i] + h * (1.0 - o.gamma) * af[i]).collect();
        let mut vf = vec![0.0; n];
        self.body.gather_free(v, &mut vf);
        let mut a1: Vec<f64> = (0..n)
            .map(|i| -vf[i] / (o.beta * h) - (0.5 - o.beta) / o.beta * a[i])
            .collect();
        let mut force = vec![0.0; n];
        let mut qn = qpred.clone();
        for iteration in 0..20 {
            let mut a1f = vec![0.0; q.len()];
            self.body.scatter_free(&a1, &mut a1f);
            for i in 0..q.len() {
                qn[i] = qpred[i] + h * h * o.beta * a1f[i];
            }
            self.force(&qn, &mut force);
            let mut r: Vec<f64> = (0..n)
                .map(|i| {
                    let ma: f64 = self.mass[i * n..(i + 1) * n]
                        .iter()
                        .zip(&a1)
                        .map(|(m, x)| m * x)
                        .sum();
                    -(ma - (1.0 + o.alpha) * force[i] + o.alpha * force_n[i])
                })
                .collect();
            let mut s = self.fd_matrix(&qn, &o, h);
            lu_solve(&mut s, &mut r, n);
            let inc = r.iter().fold(0.0f64, |m, d| m.max(d.abs()));
            for (x, d) in a1.iter_mut().zip(&r) {
                *x += d / (o.beta * h * h);
            }
            if inc <= 1e-10 {
                let mut a1f = vec![0.0; q.len()];
                self.body.scatter_free(&a1, &mut a1f);
                for i in 0..q.len() {
                    q[i] = qpred[i] + h * h * o.beta * a1f[i];
                    v[i] = vpred[i] + h * o.gamma * a1f[i];
                }
                self.force(q, force_n);
                *a = a1;
                return iteration + 1;
            }
        }
        panic!("dense FD Newton did not converge");
    }
}

fn gather(values: &[f64], nodes: &[usize; 4]) -> [f64; ELEMENT_COORDS] {
    let mut out = [0.0; ELEMENT_COORDS];
    for (chunk, &n) in out.chunks_exact_mut(NODE_COORDS).zip(nodes) {
        chunk.copy_from_slice(&values[NODE_COORDS * n..NODE_COORDS * (n + 1)]);
    }
    out
}

fn scatter(values: &mut [f64], nodes: &[usize; 4], v: &[f64; ELEMENT_COORDS]) {
    for (chunk, &n) in v.chunks_exact(NODE_COORDS).zip(nodes) {
        for (d, s) in values[NODE_COORDS * n..NODE_COORDS * (n + 1)]
            .iter_mut()
            .zip(chunk)
        {
            *d += s;
        }
    }
}

/// Dense LU with partial pivoting (row-major), solving in place.
fn lu_solve(a: &mut [f64], b: &mut [f64], n: usize) {
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| a[i * n + k].abs().total_cmp(&a[j * n + k].abs()))
            .unwrap();
        if p != k {
            for c in 0..n {
                a.swap(k * n + c, p * n + c);
            }
            b.swap(k, p);
        }
        let pivot = a[k * n + k];
        let (top, bottom) = a.split_at_mut((k + 1) * n);
        let row_k = &top[k * n..];
        for i in 0..n - k - 1 {
            let row = &mut bottom[i * n..(i + 1) * n];
            let f = row[k] / pivot;
            if f != 0.0 {
                row[k] = f;
                for (x, y) in row[k + 1..].iter_mut().zip(&row_k[k + 1..]) {
                    *x -= f * y;
                }
                b[k + 1 + i] -= f * b[k];
            }
        }
    }
    for k in (0..n).rev() {
        let s: f64 = (k + 1..n).map(|c| a[k * n + c] * b[c]).sum();
        b[k] = (b[k] - s) / a[k * n + k];
    }
}

/// Mean CPU seconds of `f` over `reps` runs: the machine is shared, and CPU time does not
/// count the time other processes hold the cores (as examples/peer_models.rs measures).
fn time(reps: u32, mut f: impl FnMut()) -> f64 {
    let start = cpu_seconds();
    for _ in 0..reps {
        f();
    }
    (cpu_seconds() - start) / reps as f64
}

fn summary() {
    println!("implicit steel cantilever, HHT-α (α = −0.05), dt = {DT} s");
    let mut rows = Vec::new();
    for divisions in SIZES {
        let mut hht = moving(divisions);
        let dof = hht.body().dof_count();
        let reps = if dof > 20_000 { 2 } else { 5 };
        let per_iteration = time(reps, || {
            black_box(hht.newton_iteration_work(DT).unwrap());
        });
        let mut iterations = 0;
        let per_step = time(reps, || iterations += hht.step(DT).unwrap().newton_iterations);
        let (nnz, factor) = hht.sparsity();
        println!(
            "  {divisions:?}: {dof} DOF, {nnz} matrix / {factor} factor entries: {:.1} ms per Newton iteration, \
             {:.1} ms per step ({:.1} iterations per step)",
            per_iteration * 1e3,
            per_step * 1e3,
            iterations as f64 / reps as f64
        );
        rows.push((dof as f64, per_iteration));
    }
    let (first, last) = (rows[0], rows[rows.len() - 1]);
    println!(
        "  growth exponent (per Newton iteration, {:.0} → {:.0} DOF): {:.2}",
        first.0,
        last.0,
        (last.1 / first.1).ln() / (last.0 / first.0).ln()
    );
    // Dense FD baselines at the 1k size, from the same state.
    for (full, label) in [(true, "full-residual"), (false, "element-local")] {
        dense_baseline(full, label);
    }
}

/// Rounds of the 1k-DOF comparison: the sparse and the dense step are timed alternately, so
/// that a change of the shared machine's load hits both; medians are reported.
const ROUNDS: usize = 5;

fn dense_baseline(full: bool, label: &str) {
    let mut hht = moving(SIZES[0]);
    let dense = DenseFd::new(steel_cantilever(SIZES[0]), full);
    let (mut q, mut v) = (hht.coordinates().to_vec(), hht.rates().to_vec());
    let mut a = hht.accelerations().to_vec();
    let mut force_n = vec![0.0; dense.n];
    dense.force(&q, &mut force_n);
    let o = options();
    let mut rhs = force_n.clone();
    let mut iterations = 0;
    // Per round: sparse iteration, dense iteration, sparse step, dense step (seconds).
    let mut rounds = Vec::new();
    for _ in 0..ROUNDS {
        let sparse_iteration = time(5, || {
            black_box(hht.newton_iteration_work(DT).unwrap());
        });
        let dense_iteration = time(1, || {
            let mut s = dense.fd_matrix(&q, &o, DT);
            lu_solve(&mut s, &mut rhs, dense.n);
        });
        let sparse_step = time(5, || {
            black_box(hht.step(DT).unwrap());
        });
        let dense_step = time(1, || {
            iterations = dense.step(&mut q, &mut v, &mut a, &mut force_n, DT)
        });
        rounds.push([sparse_iteration, dense_iteration, sparse_step, dense_step]);
    }
    let median = |f: &dyn Fn(&[f64; 4]) -> f64| {
        let mut x: Vec<f64> = rounds.iter().map(f).collect();
        x.sort_by(f64::total_cmp);
        x[x.len() / 2]
    };
    let range = |f: &dyn Fn(&[f64; 4]) -> f64| {
        let x: Vec<f64> = rounds.iter().map(f).collect();
        (
            x.iter().copied().fold(f64::INFINITY, f64::min),
            x.iter().copied().fold(0.0, f64::max),
        )
    };
    let (ratio_iteration, ratio_step) = (|r: &[f64; 4]| r[1] / r[0], |r: &[f64; 4]| r[3] / r[2]);
    let (ri, rs) = (range(&ratio_iteration), range(&ratio_step));
    println!(
        "  dense {label} FD tangent + dense LU at {} DOF, {ROUNDS} rounds timed alternately with the sparse \
         analytic step (medians): {:.0} ms vs {:.1} ms per Newton iteration, {:.1}× (rounds {:.1}–{:.1}×); \
         {:.0} ms with {iterations} iterations vs {:.1} ms per step, {:.1}× (rounds {:.1}–{:.1}×)",
        dense.n,
        median(&|r| r[1]) * 1e3,
        median(&|r| r[0]) * 1e3,
        median(&ratio_iteration),
        ri.0,
        ri.1,
        median(&|r| r[3]) * 1e3,
        median(&|r| r[2]) * 1e3,
        median(&ratio_step),
        rs.0,
        rs.1,
    );
}

fn benches(c: &mut Criterion) {
    summary();
    for divisions in SIZES {
        let mut hht = moving(divisions);
        let dof = hht.body().dof_count();
        let mut group = c.benchmark_group("implicit_cantilever");
        if dof > 20_000 {
            group.sample_size(10);
        }
        group.bench_function(BenchmarkId::new("newton_iteration", dof), |b| {
            b.iter(|| black_box(hht.newton_iteration_work(DT).unwrap()))
        });
        group.bench_function(BenchmarkId::new("step", dof), |b| {
            b.iter(|| black_box(hht.step(DT).unwrap()))
        });
        group.finish();
    }
}

criterion_group!(implicit, benches);
criterion_main!(implicit);
