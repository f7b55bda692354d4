//! Tests of massless links (frames between joints composed in one place): a chain of 1-DOF
//! joints through massless links against the kernel's own 2-DOF joints of the same kinematics,
//! a planar floating body on slide x, slide z, hinge y against the closed form of free motion,
//! the builder's refusal of a massless link that carries no mass, and point-mass links (a
//! singular inertia about the CG) against the simple pendulum.

use super::*;
use crate::math::Mat3;
use crate::tree::{accelerations, Data};
use crate::{BuildError, Dynamics, Fixed, Item};

type Tree = Model<f64, Fixed<4>>;

fn inertia() -> Mat3<f64> {
    Mat3::symmetric(Vec3::new(0.031, 0.027, 0.019), 0.002, -0.003, 0.001)
}

/// The accelerations of `links` at state `[q | v]` with inputs `input`, gravity `g`.
fn accelerations_of(links: &[Link<f64>], g: Vec3<f64>, state: &[f64], input: &[f64]) -> [f64; 3] {
    let mut b = Tree::builder(g);
    for link in links {
        b.add_link(*link).unwrap();
    }
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    model.set_state(&mut data, state).unwrap();
    for (k, &u) in input.iter().enumerate() {
        data.set_input(k, u).unwrap();
    }
    // Unused trailing entries stay 0 (fewer than 3 velocities).
    let mut accel = [0.0; 3];
    let used = accel.get_mut(..model.velocity_count()).unwrap();
    accelerations(&model, &mut data, used).unwrap();
    accel
}

fn assert_close(a: &[f64], b: &[f64]) {
    let scale = b.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-12 * scale, "{a:?} vs {b:?}");
    }
}

#[test]
fn two_hinges_through_a_massless_link_move_as_the_universal_joint() {
    // Reference: the kernel's universal joint (rotation about `axis`, then about `second`
    // in the turned frame) is by definition these two hinges in a row; a massive link hangs
    // below so that both carry an articulated body.
    let (origin, axis, second) = (Vec3::new(0.1, -0.2, 0.3), Vec3::new(0.0, 0.6, 0.8), Vec3::X);
    let cg = Vec3::new(0.05, 0.2, -0.4);
    let child =
        Link::revolute(Some(0), Vec3::new(0.0, 0.1, -0.8), Vec3::Y).with_mass(0.7, cg * 0.5, inertia());
    let universal = [
        Link::universal(None, origin, axis, second).with_mass(1.3, cg, inertia()),
        child,
    ];
    let mut chained_child = child;
    chained_child.parent = Some(1);
    let chain = [
        Link::revolute(None, origin, axis),
        Link::revolute(Some(0), Vec3::ZERO, second).with_mass(1.3, cg, inertia()),
        chained_child,
    ];
    let g = Vec3::new(0.3, -0.5, -9.81);
    let (q, v, u) = ([0.4, -0.7, 0.25], [1.1, -0.6, 2.0], [0.3, -0.2, 0.1]);
    let state = [q[0], q[1], q[2], v[0], v[1], v[2]];
    assert_close(
        &accelerations_of(&chain, g, &state, &u),
        &accelerations_of(&universal, g, &state, &u),
    );
}

#[test]
fn a_hinge_and_a_slide_on_one_axis_through_a_massless_link_move_as_the_cylindrical_joint() {
    // Reference: the kernel's cylindrical joint (turn about and slide along one axis).
    let (origin, axis) = (Vec3::new(0.0, 0.3, 0.0), Vec3::new(1.0, 0.0, 1.0));
    let cg = Vec3::new(0.2, -0.1, 0.3);
    let cylindrical = [Link::cylindrical(None, origin, axis).with_mass(2.1, cg, inertia())];
    let chain = [
        Link::revolute(None, origin, axis),
        Link::prismatic(Some(0), Vec3::ZERO, axis).with_mass(2.1, cg, inertia()),
    ];
    let g = Vec3::new(0.0, 0.0, -9.81);
    let state = [0.9, 0.15, -1.4, 0.8];
    let u = [0.4, -3.0];
    assert_close(
        &accelerations_of(&chain, g, &state, &u),
        &accelerations_of(&cylindrical, g, &state, &u),
    );
}

#[test]
fn a_planar_body_on_slide_x_slide_z_hinge_y_moves_freely() {
    // Reference: a free rigid body. Its CG keeps its velocity (zero gravity) and its angular
    // rate ω stays constant, so the joint origin p = p_cg − R(θ) c accelerates as
    // p̈ = ω² R(θ) c (R about y) and θ̈ = 0; under gravity from rest it falls at g, unturned.
    let (m, c) = (3.0, Vec3::new(0.4, 0.0, -0.1));
    let chain = [
        Link::prismatic(None, Vec3::new(0.0, 0.0, 1.0), Vec3::X),
        Link::prismatic(Some(0), Vec3::ZERO, Vec3::Z),
        Link::revolute(Some(1), Vec3::ZERO, Vec3::Y).with_mass(m, c, inertia()),
    ];
    let (theta, omega) = (0.6f64, 1.7);
    let state = [0.2, -0.3, theta, 0.5, -0.25, omega];
    let (s, co) = theta.sin_cos();
    // R_y(θ) c = (c_x cos θ + c_z sin θ, ·, −c_x sin θ + c_z cos θ).
    let turned = [c.x * co + c.z * s, -c.x * s + c.z * co];
    // The origin's velocity must be that of a free body: v_o = v_cg − ω × R c. Any v_o is one
    // (v_cg follows), so the closed form holds for the rates given.
    let expected = [omega * omega * turned[0], omega * omega * turned[1], 0.0];
    assert_close(
        &accelerations_of(&chain, Vec3::ZERO, &state, &[0.0; 3]),
        &expected,
    );
    let g = Vec3::new(0.0, 0.0, -9.81);
    let at_rest = [0.2, -0.3, theta, 0.0, 0.0, 0.0];
    assert_close(
        &accelerations_of(&chain, g, &at_rest, &[0.0; 3]),
        &[0.0, -9.81, 0.0],
    );
}

#[test]
fn a_massless_link_that_carries_no_mass_is_refused_by_index() {
    let massive = |parent| Link::revolute(parent, Vec3::ZERO, Vec3::Y).with_mass(1.0, Vec3::X, inertia());
    let refused = |links: &[Link<f64>]| {
        let mut b = Tree::builder(Vec3::ZERO);
        for link in links {
            b.add_link(*link).unwrap();
        }
        match b.build() {
            Err(BuildError::InvalidParameter { item, .. }) => item,
            other => panic!("expected a refusal, got {:?}", other.map(|_| ())),
        }
    };
    // A massless leaf, and a massless chain that ends massless (its first link is named),
    // beside a massive branch that does not hang from it.
    let leaf = Link::revolute(Some(0), Vec3::X, Vec3::Z);
    assert_eq!(refused(&[massive(None), leaf]), Item::Body(1));
    let chain = [
        massive(None),
        Link::prismatic(None, Vec3::ZERO, Vec3::X),
        Link::revolute(Some(1), Vec3::ZERO, Vec3::Y),
    ];
    assert_eq!(refused(&chain), Item::Body(1));
    // Only a link with mass, CG and inertia all zero is massless: a zero mass with an inertia
    // stays an invalid mass.
    let mut b = Tree::builder(Vec3::ZERO);
    let half = Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(0.0, Vec3::ZERO, inertia());
    assert!(matches!(
        b.add_link(half),
        Err(BuildError::InvalidMass { body: 0, .. })
    ));
}

#[test]
fn a_singular_massless_chain_fails_the_step_naming_the_joint() {
    // Two hinges through a massless link on the same axis: the first joint's articulated
    // inertia along its axis is zero once the second is free. The pivot must not be divided by.
    let chain = [
        Link::revolute(None, Vec3::ZERO, Vec3::Z),
        Link::revolute(Some(0), Vec3::ZERO, Vec3::Z).with_mass(1.0, Vec3::X, inertia()),
    ];
    let mut b = Tree::builder(Vec3::ZERO);
    for link in &chain {
        b.add_link(*link).unwrap();
    }
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let mut accel = [0.0; 2];
    let result = accelerations(&model, &mut data, &mut accel);
    assert!(
        matches!(result, Err(crate::KernelError::SingularMatrix { joint: 0, .. })),
        "{result:?}"
    );
}

#[test]
fn a_point_mass_link_swings_as_the_simple_pendulum() {
    // Reference: the simple pendulum, a point mass m at L on a hinge: θ̈ = −(g/L) sin θ. Its
    // inertia about the CG is zero (singular), which a tree link may carry.
    let (m, l, g, theta) = (0.7, 0.9, 9.81, 0.4f64);
    let bob = Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(m, Vec3::new(0.0, 0.0, -l), Mat3::ZERO);
    let accel = accelerations_of(&[bob], Vec3::new(0.0, 0.0, -g), &[theta, 0.0], &[0.0]);
    let expected = -(g / l) * theta.sin();
    assert!(
        (accel[0] / expected - 1.0).abs() < 1e-14,
        "{accel:?} vs {expected}"
    );
    // On its own axis a point mass has no inertia: the step fails naming the joint.
    let on_axis = Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(m, Vec3::ZERO, Mat3::ZERO);
    let mut b = Tree::builder(Vec3::ZERO);
    b.add_link(on_axis).unwrap();
    let model = b.build().unwrap();
    let mut data = Data::new(&model);
    let result = accelerations(&model, &mut data, &mut [0.0]);
    assert!(
        matches!(result, Err(crate::KernelError::SingularMatrix { joint: 0, .. })),
        "{result:?}"
    );
    // A tree link takes any positive semi-definite inertia, as Pinocchio does, physical or not:
    // a rank-one tensor J = j·(1,1,1)(1,1,1)ᵀ breaks I1 + I2 ≥ I3 (principal moments 0, 0, 3j)
    // and moves as written: about the hinge's y axis through the origin the link's inertia is
    // m·|CG ⊥ y|² + J_yy, so a unit torque gives θ̈ = 1 / (m + j).
    let j = 1e-6;
    let rank_one = Mat3::symmetric(Vec3::new(j, j, j), j, j, j);
    let thin = Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(m, Vec3::X, rank_one);
    let accel = accelerations_of(&[thin], Vec3::ZERO, &[0.3, 0.0], &[1.0]);
    assert!((accel[0] * (m + j) - 1.0).abs() < 1e-14, "{accel:?}");
    assert!(!crate::rigid::Body::new(m, rank_one).inertia_is_physical());
    // An indefinite tensor is no inertia at all: refused.
    let indefinite = Mat3::diagonal(Vec3::new(1e-3, -1e-3, 1e-3));
    let mut b = Tree::builder(Vec3::ZERO);
    let bad = Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(m, Vec3::X, indefinite);
    assert!(matches!(
        b.add_link(bad),
        Err(BuildError::InertiaNotPositiveDefinite { body: 0 })
    ));
}
