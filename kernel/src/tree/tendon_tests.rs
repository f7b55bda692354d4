//! Tests of fixed tendons: the generalized force of a tendon spring by its exact formula, the
//! same force as joint inputs giving the same accelerations to the bit, energy conserved by a
//! tendon spring, the rest band and end stops, and the builder's checks.

use super::super::*;
use crate::integrators::Rk4;
use crate::math::{Mat3, Vec3};
use crate::{step, BuildError, Dynamics, Fixed, Item, JointLimit};

type Pair = Fixed<2, 0, 1>;

/// Two 1 kg rods on hinges, about y and about a tilted axis at the first's tip (not planar:
/// the general algorithm, which tendons take): L = q₁ − q₂.
fn pair(tendon: Option<Tendon<f64>>) -> Model<f64, Pair> {
    let mut b = Model::<f64, Pair>::builder(Vec3::new(0.0, 0.0, -9.81));
    let inertia = Mat3::diagonal(Vec3::new(1e-4, 1.0 / 12.0, 1.0 / 12.0));
    let rod = |parent, origin, axis| {
        Link::revolute(parent, origin, axis).with_mass(1.0, Vec3::new(0.5, 0.0, 0.0), inertia)
    };
    b.add_link(rod(None, Vec3::ZERO, Vec3::Y)).unwrap();
    b.add_link(rod(Some(0), Vec3::X, Vec3::new(0.0, 0.6, 0.8)))
        .unwrap();
    if let Some(tendon) = tendon {
        b.add_tendon(tendon).unwrap();
    }
    b.build().unwrap()
}

fn difference(offset: f64) -> Tendon<f64> {
    Tendon::new(offset)
        .with_term(0, 1.0)
        .and_then(|t| t.with_term(1, -1.0))
        .unwrap()
}

#[test]
fn a_tendon_spring_on_two_hinges_is_minus_and_plus_k_times_the_stretch() {
    // L = 0.1 + q₁ − q₂, rest length L₀ = 0.3, k = 40: τ = (−k(L − L₀), +k(L − L₀)).
    let (k, rest) = (40.0, 0.3);
    let tendon = difference(0.1).with_spring(k, rest, rest);
    let model = pair(Some(tendon));
    let (q, rate) = ([0.7, -0.25], [0.0, 0.0]);
    let mut tau = [0.0; 2];
    super::load(model.tendons(), &q, &rate, |link, f| tau[link] += f);
    let stretch = 0.1 + q[0] - q[1] - rest;
    assert_eq!(tau, [-k * stretch, k * stretch]);
    assert_eq!(model.tendons()[0].energy(rest + 0.5), 0.5 * k * 0.25);
}

#[test]
fn the_tendon_force_enters_the_dynamics_as_the_same_joint_inputs_would() {
    // Spring, damper and a stop reached: the accelerations equal those of the tree without the
    // tendon loaded by τ = c f as inputs, to the bit.
    let limit = JointLimit::new(-0.5, 0.5, 1e3, 5.0);
    let tendon = difference(0.0)
        .with_spring(25.0, -0.1, 0.2)
        .with_damping(0.7)
        .with_limit(limit);
    let with = pair(Some(tendon));
    let without = pair(None);
    let (q, v) = ([0.9, 0.2], [0.3, -1.1]);
    let (length, rate) = (q[0] - q[1], v[0] - v[1]);
    let f = 25.0 * (0.2 - length) - 0.7 * rate + limit.force(length, rate);
    assert!(limit.force(length, rate) < 0.0, "the upper stop is reached");
    let mut a = [[0.0; 2]; 2];
    for (k, (model, inputs)) in [(&with, [0.0, 0.0]), (&without, [f, -f])].into_iter().enumerate() {
        let mut data = Data::new(model);
        for i in 0..2 {
            data.set_position(i, q[i]).unwrap();
            data.set_velocity(i, v[i]).unwrap();
            data.set_input(i, inputs[i]).unwrap();
        }
        accelerations(model, &mut data, &mut a[k]).unwrap();
    }
    assert_eq!(a[0], a[1]);
}

#[test]
fn a_tendon_spring_conserves_energy_and_is_slack_inside_its_rest_band() {
    let band = difference(0.0).with_spring(50.0, -0.05, 0.05);
    assert_eq!(band.force(0.04, 0.0), 0.0);
    assert_eq!(band.force(0.25, 0.0), 50.0 * (0.05 - 0.25));
    assert_eq!(band.force(-0.25, 0.0), 50.0 * (-0.05 + 0.25));
    // Energy: a plain rest length (a band's kink costs RK4 its order where it is crossed).
    let model = pair(Some(difference(0.0).with_spring(50.0, 0.05, 0.05)));
    let tendon = model.tendons()[0];
    let mut data = Data::new(&model);
    data.set_position(0, 0.8).unwrap();
    data.set_position(1, -0.6).unwrap();
    let start = model.energy(&data).unwrap();
    assert!(tendon.energy(1.4) > 40.0, "the spring holds most of the energy");
    for _ in 0..1000 {
        step(&model, &mut data, &mut Rk4, 1e-3).unwrap();
    }
    let end = model.energy(&data).unwrap();
    let drift = (end.kinetic + end.potential - start.kinetic - start.potential).abs();
    assert!(drift < 1e-6, "energy drift {drift:e} J over 1 s");
}

#[test]
fn bad_tendons_are_errors_naming_the_tendon() {
    let mut b = Model::<f64, Fixed<5, 0, 1>>::builder(Vec3::ZERO);
    let inertia = Mat3::diagonal(Vec3::new(0.1, 0.1, 0.1));
    b.add_link(Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(1.0, Vec3::X, inertia))
        .unwrap();
    b.add_link(Link::spherical(Some(0), Vec3::X).with_mass(1.0, Vec3::X, inertia))
        .unwrap();
    let item = Item::Tendon(0);
    let invalid = |reason| Err(BuildError::InvalidParameter { item, reason });
    let one = |link| Tendon::new(0.0).with_term(link, 1.0).unwrap();
    assert_eq!(
        b.add_tendon(one(1)),
        invalid("a fixed tendon spans revolute or prismatic joints (one coordinate)")
    );
    assert_eq!(
        b.add_tendon(one(5)),
        invalid("a tendon term names no link of the tree")
    );
    assert_eq!(
        b.add_tendon(Tendon::new(0.0)),
        invalid("a tendon spans at least one joint")
    );
    assert_eq!(
        b.add_tendon(one(0).with_spring(-1.0, 0.0, 0.0)),
        invalid("tendon stiffness and damping must be ≥ 0")
    );
    assert_eq!(
        b.add_tendon(one(0).with_spring(1.0, 0.2, 0.1)),
        invalid("tendon rest band: lower must be ≤ upper")
    );
    assert_eq!(
        b.add_tendon(one(0).with_term(0, 2.0).unwrap()),
        invalid("a tendon names a joint twice")
    );
    assert_eq!(
        b.add_tendon(one(0).with_damping(f64::NAN)),
        Err(BuildError::NonFinite { item })
    );
    let full = (0..TENDON_TERMS).try_fold(Tendon::new(0.0), |t, k| t.with_term(k, 1.0));
    assert!(full.is_some_and(|t| t.with_term(0, 1.0).is_none()));
    assert_eq!(b.add_tendon(one(0)), Ok(0));
    assert!(matches!(
        b.add_tendon(one(0)),
        Err(BuildError::CapacityExceeded { .. })
    ));
    assert!(b.add_link(Link::revolute(Some(0), Vec3::X, Vec3::Y)).is_err());
}
