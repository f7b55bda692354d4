//! The Cartesian model keeps the factor of Φ_q M⁻¹ Φ_qᵀ made by the projection after a step for
//! the first evaluation of the next step (same poses, same time). Reference: the same run with
//! the factor thrown away before every step (`set_state` with the state it already has) must
//! give the same bits at every step: reusing is exact, never an approximation.

use ferrodyn_kernel::integrators::{Rk4, SemiImplicitEuler};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::rigid::{self, assemble, BodyRef, DrivenCoordinate, Frame, Joint, JointKind};
use ferrodyn_kernel::samples::{add_revolute_chain, four_bar, revolute_chain, ChainSpec};
use ferrodyn_kernel::{Dynamics, Fixed, Integrator, Real, Storage, TimeFunction};

/// The state after every step of `steps` steps of 1 ms, with (`fresh`) or without a
/// factorization from scratch at the start of every step.
fn trajectory<R: Real, St: Storage, I: Integrator<R>>(
    model: &rigid::Model<R, St>,
    mut integrator: I,
    steps: usize,
    fresh: bool,
) -> Vec<Vec<R>> {
    let mut data = rigid::Data::new(model);
    assemble(model, &mut data).unwrap();
    (0..steps)
        .map(|_| {
            if fresh {
                let state = model.state(&data).to_vec();
                model.set_state(&mut data, &state).unwrap();
            }
            model.step(&mut data, &mut integrator, R::from_f64(1e-3)).unwrap();
            model.state(&data).to_vec()
        })
        .collect()
}

fn same_bits<R: Real, St: Storage, I: Integrator<R> + Copy>(model: &rigid::Model<R, St>, integrator: I) {
    let kept = trajectory(model, integrator, 300, false);
    let fresh = trajectory(model, integrator, 300, true);
    for (step, (a, b)) in kept.iter().zip(&fresh).enumerate() {
        let bits = |s: &[R]| s.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(a), bits(b), "step {step}");
    }
}

#[test]
fn chain_steps_are_the_bits_of_a_fresh_factorization() {
    type Chain = Fixed<5, 5, 0, 25, { ChainSpec::<f64>::skyline_entries(5) }>;
    let f64_chain: rigid::Model<f64, Chain> = revolute_chain(&ChainSpec::standard(5)).unwrap();
    let f32_chain: rigid::Model<f32, Chain> = revolute_chain(&ChainSpec::standard(5)).unwrap();
    same_bits(&f64_chain, Rk4);
    same_bits(&f32_chain, Rk4);
    same_bits(&f32_chain, SemiImplicitEuler);
}

#[test]
fn closed_loop_steps_are_the_bits_of_a_fresh_factorization() {
    // Redundant rows (the four-bar's out-of-plane ones) come from the kept factor as well.
    let model: rigid::Model<f64, Fixed<3, 4, 0, 20, 200>> = four_bar::model(0.7).unwrap();
    same_bits(&model, Rk4);
}

#[test]
fn driven_chain_steps_are_the_bits_of_a_fresh_factorization() {
    // A rotation drive makes Φ_q depend on time: the factor is kept only at the same time.
    let mut b = rigid::Model::<f64, Fixed<3, 4, 0, 16, 200>>::builder(Vec3::new(0.0, 0.0, -9.81));
    add_revolute_chain(&mut b, &ChainSpec::standard(3)).unwrap();
    let sine = b.add_function(TimeFunction::Sine {
        offset: 0.0,
        amplitude: 0.3,
        omega: 5.0,
        phase: 0.0,
    });
    let drive = JointKind::Driving {
        coordinate: DrivenCoordinate::Rotation,
        function: sine.unwrap(),
    };
    b.add_joint(Joint::new(
        drive,
        BodyRef::Ground,
        Frame::with_z_axis(Vec3::ZERO, Vec3::Y),
        BodyRef::Body(0),
        Frame::with_z_axis(Vec3::new(-0.5, 0.0, 0.0), Vec3::Y),
    ))
    .unwrap();
    let model = b.build().unwrap();
    same_bits(&model, Rk4);
    same_bits(&model, SemiImplicitEuler);
    // The same poses at another time: a new factor (host integrators set their trial times).
    let mut data = rigid::Data::new(&model);
    assemble(&model, &mut data).unwrap();
    model.step(&mut data, &mut Rk4, 1e-3).unwrap();
    let mut fresh = data.clone();
    let state = model.state(&fresh).to_vec();
    model.set_state(&mut fresh, &state).unwrap();
    for d in [&mut data, &mut fresh] {
        d.set_time(0.25);
        rigid::forward(&model, d).unwrap();
    }
    assert_eq!(rigid::accelerations(&data), rigid::accelerations(&fresh));
}
