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
    // Recorded when the velocity products moved into a⁰ (the arithmetic changed on purpose;
    // before it, the digests of f3b9f9a, the symmetric-storage rewrite).
    // Trajectory digest over every step, final-state digest.
    let recorded = [
        (0xb41968dbc5b22769, 0x00d63a471afc03b4),
        (0x9a77c6e6fdd1c56f, 0xeb523113d7a0e470),
        (0xba5423de13d82a8a, 0xfde289c38b276e16),
        (0x3bab801e3cf382f3, 0xbeebbd68efbc39c4),
        (0xe6312489e0a0ab6b, 0xb0af9b1fa74cfea3),
        (0xe1f24cdcec7c2d1a, 0x37149e84cc80a3b9),
    ];
    assert_eq!(got, recorded);
}
