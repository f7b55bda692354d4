//! Revolute chains released horizontally: energy conservation and constraint drift.

use ferrodyn::kernel::rigid::{self, Data, Model};
use ferrodyn::kernel::samples::{revolute_chain, ChainSpec, GRAVITY};
use ferrodyn::kernel::*;

const DT: f64 = 1e-3;

#[test]
fn chain20_conserves_energy_and_constraints_with_rk4() {
    // Reference: a conservative system, so E(t) = E(0). Energy scale: the potential energy the
    // chain can release, m_total g L_total / 2 (= 1962 J here): the order of its kinetic energy.
    const N: usize = 20;
    let spec = ChainSpec::standard(N);
    let model: Model<f64, Fixed<N, N, 0, { 5 * N }, { ChainSpec::<f64>::skyline_entries(N) }>> =
        revolute_chain(&spec).unwrap();
    let mut data = Data::new(&model);
    let scale = N as f64 * GRAVITY * N as f64 / 2.0;
    let e0 = rigid::energy(&model, &data).total();
    let (mut max_de, mut max_violation, mut max_kinetic) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..10_000 {
        step(&model, &mut data, &mut integrators::Rk4, DT).unwrap();
        let e = rigid::energy(&model, &data);
        max_de = max_de.max((e.total() - e0).abs());
        max_kinetic = max_kinetic.max(e.kinetic);
        max_violation = max_violation.max(rigid::violation(&model, &data).position);
    }
    let stats = data.total_stats();
    println!(
        "chain20 RK4 dt=1e-3, 10 s: max |ΔE|/E = {:.3e} (E = {scale:.3} J, max KE {max_kinetic:.3} J), \
         max |Φ| = {max_violation:.2e} m, projection iterations {} over {} steps",
        max_de / scale,
        stats.projection_iterations,
        data.steps()
    );
    assert!(
        max_kinetic > 0.5 * scale,
        "the chain must actually fall (KE {max_kinetic})"
    );
    assert!(max_de / scale <= 1e-5, "energy drift {:.3e}", max_de / scale);
    assert!(
        max_violation <= 1e-9,
        "constraint violation {max_violation:.3e} m"
    );
}

#[test]
fn chain100_runs_and_stays_assembled() {
    const N: usize = 100;
    let spec = ChainSpec::standard(N);
    let model: Box<Model<f64, Fixed<N, N, 0, { 5 * N }, { ChainSpec::<f64>::skyline_entries(N) }>>> =
        Box::new(revolute_chain(&spec).unwrap());
    let mut data = Box::new(Data::new(&*model));
    let e0 = rigid::energy(&*model, &data).total();
    for _ in 0..1000 {
        step(&*model, &mut data, &mut integrators::Rk4, DT).unwrap();
    }
    let v = rigid::violation(&*model, &data);
    let de = (rigid::energy(&*model, &data).total() - e0).abs();
    let scale = N as f64 * GRAVITY * N as f64 / 2.0;
    println!(
        "chain100 RK4, 1 s: |ΔE|/E = {:.3e}, |Φ| = {:.2e} m",
        de / scale,
        v.position
    );
    assert!(v.position <= 1e-9);
    assert!(de / scale <= 1e-5);
    // The tip has fallen: every link moved below the hinge line.
    assert!(data.position(N - 1).z < -0.1);
}
