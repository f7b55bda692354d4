//! The bits of revolute and prismatic trees: digests of recorded trajectories, pinned so that a
//! change of the arithmetic is deliberate (the firmware and the host compare the same bits).

use ferrodyn_kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::samples::{revolute_chain_tree, ChainSpec};
use ferrodyn_kernel::tree::{self, Link};
use ferrodyn_kernel::{Digest, Dynamics, Fixed, Integrator, Real};

/// A skew 3-D tree of revolute and prismatic joints with a branch (the firmware's
/// `spatial_tree`).
fn skew_tree<R: Real>() -> tree::Model<R, Fixed<4>> {
    let v = |x: f64, y: f64, z: f64| Vec3::new(R::from_f64(x), R::from_f64(y), R::from_f64(z));
    let s = R::from_f64;
    let mut b = tree::Model::builder(v(1.3, -2.1, -9.6));
    let links = [
        Link::revolute(None, v(0.1, -0.05, 0.2), v(0.3, 0.2, 0.93)).with_mass(
            s(1.2),
            v(0.3, 0.05, -0.02),
            Mat3::diagonal(v(0.004, 0.03, 0.031)),
        ),
        Link::revolute(Some(0), v(0.5, 0.08, -0.04), v(0.9, -0.35, 0.26))
            .with_mass(
                s(0.8),
                v(0.2, -0.03, 0.04),
                Mat3::diagonal(v(0.002, 0.011, 0.012)),
            )
            .with_damping(s(0.02)),
        Link::prismatic(Some(1), v(0.4, 0.0, 0.1), v(0.2, 0.7, -0.68)).with_mass(
            s(0.5),
            v(0.05, 0.01, 0.0),
            Mat3::diagonal(v(0.001, 0.001, 0.0015)),
        ),
        Link::revolute(Some(1), v(0.35, -0.12, -0.07), v(-0.4, 0.1, 0.9)).with_mass(
            s(0.6),
            v(0.15, 0.02, 0.01),
            Mat3::diagonal(v(0.001, 0.005, 0.0052)),
        ),
    ];
    for link in links {
        b.add_link(link).unwrap();
    }
    b.build().unwrap()
}

/// The digest of every step's state of `model` from `data`, `steps` steps of 1 ms.
fn run<R: Real, M: Dynamics<R>, I: Integrator<R>>(
    model: &M,
    data: &mut M::Data,
    mut integrator: I,
    steps: usize,
) -> (u64, u64) {
    let mut trajectory = Digest::default();
    for _ in 0..steps {
        model.step(data, &mut integrator, R::from_f64(1e-3)).unwrap();
        trajectory.add(model.state(data));
    }
    (trajectory.0, model.digest(data).0)
}

fn skew<R: Real, I: Integrator<R>>(integrator: I) -> (u64, u64) {
    let model = skew_tree::<R>();
    let mut data = tree::Data::new(&model);
    for (k, (q, rate)) in [(0.4, 0.3), (-0.7, -0.2), (0.05, 0.1), (1.1, 0.5)]
        .into_iter()
        .enumerate()
    {
        data.set_position(k, R::from_f64(q)).unwrap();
        data.set_velocity(k, R::from_f64(rate)).unwrap();
        data.set_input(k, R::from_f64(0.01 * k as f64)).unwrap();
    }
    run(&model, &mut data, integrator, 1000)
}

fn chain<R: Real, I: Integrator<R>>(integrator: I) -> (u64, u64) {
    let model: tree::Model<R, Fixed<5>> = revolute_chain_tree(&ChainSpec::standard(5)).unwrap();
    let mut data = tree::Data::new(&model);
    run(&model, &mut data, integrator, 1000)
}

#[test]
fn revolute_and_prismatic_trees_keep_their_bits() {
    let got = [
        skew::<f64, _>(Rk4),
        skew::<f32, _>(Rk4),
        skew::<f64, _>(SemiImplicitEuler),
        chain::<f64, _>(Rk4),
        chain::<f32, _>(Rk4),
        chain::<f32, _>(SemiImplicitEuler),
    ];
    // Recorded when the bias force became Newton–Euler about the CG, the per-link shape (axis,
    // origin and CG along a frame axis, two equal principal moments) was found at build and
    // pass 3 split Uᵀ ã_parent below a 1-DOF parent (the arithmetic changed on purpose; before
    // it, the digests of 5fe8309, a⁰ carrying the velocity products). The chain's (a planar
    // tree) again when planar trees took the planar algorithm (tree/planar.rs).
    // Trajectory digest over every step, final-state digest.
    let recorded = [
        (0x0dcdeeda1cc8fa35, 0xddb5aa1992c1fd95),
        (0x762693a131c68e7f, 0xd3c24caaf73bc767),
        (0x2ae12f0dc8c26a77, 0x822857cad973be91),
        (0xcbd29f99f1ec5478, 0xf122d9f1e966b23c),
        (0xd6601e6fef837de8, 0x6962cdd8aaabc84f),
        (0x18671c6c5e69ae28, 0xf4423b185ca260c1),
    ];
    assert_eq!(got, recorded);
}
