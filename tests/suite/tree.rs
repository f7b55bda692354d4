//! Kinematic trees in joint coordinates (`kernel::tree`, articulated-body algorithm) against
//! the Cartesian model of the same system and against closed-form results.

use crate::common::{exact_period, mean_period, upward_crossings};
use ferrodyn::kernel::math::{Mat3, Quat, Vec3};
use ferrodyn::kernel::rigid::{Body, BodyRef, Data, Frame, Joint, JointKind, Model};
use ferrodyn::kernel::samples::{revolute_chain, revolute_chain_tree, ChainSpec, GRAVITY};
use ferrodyn::kernel::tree::{self, Link, TreeJoint};
use ferrodyn::kernel::*;

/// A tree of `N` links in joint coordinates.
type TreeModel<const N: usize> = tree::Model<f64, Fixed<N>>;
/// The data of a [`TreeModel`].
type TreeData<const N: usize> = tree::Data<f64, Fixed<N>>;

const DT: f64 = 1e-3;

/// Steps the Cartesian `model` and the `joint_space` tree side by side with RK4 for `steps`
/// steps of `dt` and returns the largest distance between the CG of body k and of link k and
/// between their velocities. `body_cg[k]` is body k's CG in its body frame.
fn max_cg_difference<St: Storage, const N: usize>(
    cartesian: &Model<f64, St>,
    body_cg: &[Vec3<f64>],
    joint_space: &TreeModel<N>,
    dt: f64,
    steps: usize,
) -> (f64, f64) {
    let mut data = Data::new(cartesian);
    let mut tree_data = TreeData::new(joint_space);
    let (mut position, mut velocity) = (0.0f64, 0.0f64);
    for _ in 0..steps {
        step(cartesian, &mut data, &mut integrators::Rk4, dt).unwrap();
        step(joint_space, &mut tree_data, &mut integrators::Rk4, dt).unwrap();
        let states = tree::link_states(joint_space, &tree_data);
        for (k, (link, state)) in joint_space.links().iter().zip(states.iter()).enumerate() {
            let body = BodyRef::Body(k);
            let cg = data.point_position(body, body_cg[k]);
            let cg_velocity = data.point_velocity(body, body_cg[k]);
            position = position.max((state.point(link.cg) - cg).norm());
            velocity = velocity.max((state.point_velocity(link.cg) - cg_velocity).norm());
        }
    }
    (position, velocity)
}

fn chain_agrees<const N: usize, const C: usize, const S: usize>(bound: f64) {
    // Reference: the Cartesian model (maximal coordinates, constraints, projection) of the same
    // chain. Both represent one ODE exactly, so they differ only by RK4's truncation error,
    // which differs between the two coordinate systems: the gap must shrink as h⁴ (16× per
    // halving; a modelling difference would not shrink).
    let spec = ChainSpec::standard(N);
    let cartesian: Model<f64, Fixed<N, N, 0, C, S>> = revolute_chain(&spec).unwrap();
    let joint_space: TreeModel<N> = revolute_chain_tree(&spec).unwrap();
    let cg = [Vec3::ZERO; N];
    let (position, velocity) = max_cg_difference(&cartesian, &cg, &joint_space, DT, 2000);
    let (half_position, half_velocity) = max_cg_difference(&cartesian, &cg, &joint_space, DT / 2.0, 4000);
    let ratio = position / half_position;
    println!(
        "{N}-link chain, RK4, 2 s: max CG difference {position:.2e} m, {velocity:.2e} m/s at dt = 1 ms; \
         {half_position:.2e} m, {half_velocity:.2e} m/s at 0.5 ms (ratio {ratio:.1})"
    );
    assert!(
        (12.0..=20.0).contains(&ratio),
        "gap shrinks {ratio:.1}× per halving, not 16×"
    );
    assert!(position < bound, "{position:e} m");
}

#[test]
fn chain5_trajectory_matches_the_cartesian_model() {
    chain_agrees::<5, 25, { ChainSpec::<f64>::skyline_entries(5) }>(2.5e-9);
}

#[test]
fn chain20_trajectory_matches_the_cartesian_model() {
    chain_agrees::<20, 100, { ChainSpec::<f64>::skyline_entries(20) }>(1.5e-8);
}

/// A branching 3-D tree: skew axes, off-diagonal inertias, CGs off the joint lines, a prismatic
/// joint carrying a revolute one.
fn branching_tree() -> TreeModel<4> {
    let v = Vec3::new;
    let mut b = TreeModel::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let links = [
        Link::revolute(None, Vec3::ZERO, v(0.3, 1.0, 0.2)).with_mass(
            2.0,
            v(0.4, 0.1, -0.05),
            Mat3::symmetric(v(0.05, 0.08, 0.06), 0.005, -0.003, 0.002),
        ),
        Link::revolute(Some(0), v(0.8, 0.1, 0.0), v(1.0, 0.2, 0.5)).with_mass(
            1.0,
            v(0.2, 0.3, 0.1),
            Mat3::symmetric(v(0.03, 0.02, 0.04), 0.001, 0.002, -0.001),
        ),
        Link::prismatic(Some(0), v(0.5, -0.2, 0.1), v(1.0, 0.3, -0.2)).with_mass(
            0.5,
            v(0.05, 0.0, 0.1),
            Mat3::diagonal(v(0.01, 0.012, 0.015)),
        ),
        Link::revolute(Some(2), v(0.0, 0.3, 0.0), v(0.2, 0.0, 1.0)).with_mass(
            0.7,
            v(0.3, 0.0, 0.0),
            Mat3::diagonal(v(0.001, 0.02, 0.02)),
        ),
    ];
    for link in links {
        b.add_link(link).unwrap();
    }
    b.build().unwrap()
}

#[test]
fn branching_3d_tree_matches_the_cartesian_model() {
    // Reference: the same tree as Cartesian bodies and revolute/prismatic joints. At zero joint
    // coordinates every link frame has the world axes, so body k sits at the sum of the joint
    // origins along its path with the identity orientation.
    let tree = branching_tree();
    let mut b = Model::<f64, Fixed<4, 4, 0, 20, 210>>::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let mut origins = [Vec3::ZERO; 4];
    let mut body_cg = [Vec3::ZERO; 4];
    for (k, link) in tree.links().iter().enumerate() {
        let parent_origin = link.parent.map_or(Vec3::ZERO, |p| origins[p]);
        origins[k] = parent_origin + link.origin;
        body_cg[k] = link.cg;
        let body = Body::new(link.mass, link.inertia)
            .with_cg(link.cg)
            .at(origins[k], Quat::IDENTITY);
        let child = b.add_body(body).unwrap();
        let parent = link.parent.map_or(BodyRef::Ground, BodyRef::Body);
        let kind = match link.joint {
            TreeJoint::Revolute => JointKind::Revolute,
            TreeJoint::Prismatic => JointKind::Prismatic,
        };
        b.add_joint(Joint::new(
            kind,
            parent,
            Frame::with_z_axis(link.origin, link.axis),
            child,
            Frame::with_z_axis(Vec3::ZERO, link.axis),
        ))
        .unwrap();
    }
    let cartesian = b.build().unwrap();
    let (position, velocity) = max_cg_difference(&cartesian, &body_cg, &tree, DT, 2000);
    println!("branching 3-D tree, RK4 dt = 1e-3, 2 s: max CG difference {position:.2e} m, velocity {velocity:.2e} m/s");
    assert!(
        position < 1e-9 && velocity < 1e-8,
        "{position:e} m, {velocity:e} m/s"
    );
}

/// A single link hinged at the origin about `axis`, CG at `cg`, inertia `inertia` about the CG.
fn single_link(axis: Vec3<f64>, mass: f64, cg: Vec3<f64>, inertia: Mat3<f64>, damping: f64) -> TreeModel<1> {
    let mut b = TreeModel::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    b.add_link(
        Link::revolute(None, Vec3::ZERO, axis)
            .with_mass(mass, cg, inertia)
            .with_damping(damping),
    )
    .unwrap();
    b.build().unwrap()
}

#[test]
fn compound_pendulum_period_matches_the_elliptic_integral() {
    // Reference: a rod hinged at one end is a simple pendulum of length I_p/(m d);
    // T = 4 √(ℓ/g) K(sin(θ0/2)) with θ0 = 90° (released horizontally).
    let (m, l, r) = (1.0, 1.0, 0.01);
    let rod = Body::rod(m, l, r);
    let model = single_link(Vec3::Y, m, Vec3::new(l / 2.0, 0.0, 0.0), rod.inertia, 0.0);
    let i_pivot = rod.inertia.m[1][1] + m * (l / 2.0) * (l / 2.0);
    let reference = exact_period(i_pivot / (m * l / 2.0), std::f64::consts::FRAC_PI_2);
    let mut data = TreeData::new(&model);
    let mut samples = Vec::new();
    for _ in 0..10_000 {
        // Angle from the downward vertical (q = π/2 hangs the rod along −z).
        samples.push((
            data.time(),
            data.positions()[0] - std::f64::consts::FRAC_PI_2,
            data.velocities()[0],
        ));
        step(&model, &mut data, &mut integrators::Rk4, DT).unwrap();
    }
    let period = mean_period(&upward_crossings(&samples));
    let rel = (period - reference).abs() / reference;
    println!("tree compound pendulum RK4 dt = 1e-3: T = {period:.10} s, exact {reference:.10} s, rel. error {rel:.2e}");
    assert!(rel < 1e-11, "period {period} vs {reference}: rel {rel:.3e}");
}

#[test]
fn chain20_conserves_energy_with_rk4() {
    // Reference: a conservative system, E(t) = E(0); scale m_total g L_total / 2 as in
    // tests/suite/chain.rs (the Cartesian model reaches 2.9e-9 there over 5 s).
    const N: usize = 20;
    let model: TreeModel<N> = revolute_chain_tree(&ChainSpec::standard(N)).unwrap();
    let mut data = TreeData::new(&model);
    let scale = N as f64 * GRAVITY * N as f64 / 2.0;
    let e0 = tree::energy(&model, &data).total();
    let (mut max_de, mut max_kinetic) = (0.0f64, 0.0f64);
    for _ in 0..5000 {
        step(&model, &mut data, &mut integrators::Rk4, DT).unwrap();
        let e = tree::energy(&model, &data);
        max_de = max_de.max((e.total() - e0).abs());
        max_kinetic = max_kinetic.max(e.kinetic);
    }
    println!(
        "tree chain20 RK4 dt = 1e-3, 5 s: max |ΔE|/E = {:.3e} (max KE {max_kinetic:.1} J)",
        max_de / scale
    );
    assert!(
        max_kinetic > 0.5 * scale,
        "the chain must fall (KE {max_kinetic})"
    );
    assert!(max_de / scale < 1e-8, "energy drift {:.3e}", max_de / scale);
}

#[test]
fn slider_on_an_incline_covers_half_g_sin_alpha_t_squared() {
    // Reference: a block sliding without friction down an incline of angle α from rest,
    // s = ½ g sin α t². RK4 integrates a constant acceleration exactly: rounding only.
    let alpha: f64 = 0.5;
    let down_slope = Vec3::new(alpha.cos(), 0.0, -alpha.sin());
    let mut b = TreeModel::<1>::builder(Vec3::new(0.0, 0.0, -GRAVITY));
    let block = Body::sphere(2.0, 0.1);
    b.add_link(
        Link::prismatic(None, Vec3::new(0.0, 0.0, 1.0), down_slope).with_mass(2.0, Vec3::ZERO, block.inertia),
    )
    .unwrap();
    let model = b.build().unwrap();
    let mut data = TreeData::new(&model);
    let mut accel = [0.0];
    tree::accelerations(&model, &mut data, &mut accel).unwrap();
    assert!((accel[0] - GRAVITY * alpha.sin()).abs() < 1e-15);
    for _ in 0..1000 {
        step(&model, &mut data, &mut integrators::Rk4, DT).unwrap();
    }
    let t = data.time();
    let exact = 0.5 * GRAVITY * alpha.sin() * t * t;
    assert!(
        (data.positions()[0] - exact).abs() < 1e-13,
        "{} vs {exact}",
        data.positions()[0]
    );
    let origin = tree::link_states(&model, &data)[0].pose.origin;
    assert!((origin - (Vec3::new(0.0, 0.0, 1.0) + down_slope * exact)).norm() < 1e-13);
}

/// A link turning about the vertical: gravity has no moment about the axis.
fn turntable(damping: f64) -> (TreeModel<1>, f64) {
    let (m, cg) = (1.5, Vec3::new(0.3, 0.1, 0.05));
    let inertia = Mat3::symmetric(Vec3::new(0.02, 0.03, 0.04), 0.002, -0.001, 0.003);
    // Moment of inertia about the pivot axis z: I_zz + m (c_x² + c_y²) (parallel axes).
    let i_pivot = inertia.m[2][2] + m * (cg.x * cg.x + cg.y * cg.y);
    (single_link(Vec3::Z, m, cg, inertia, damping), i_pivot)
}

#[test]
fn joint_torque_from_rest_gives_alpha_tau_over_i_pivot() {
    // Reference: rotation about a fixed axis, I_p θ̈ = τ; from rest θ = ½ (τ/I_p) t² (RK4 is
    // exact for it).
    let (model, i_pivot) = turntable(0.0);
    let mut data = TreeData::new(&model);
    let torque = 2.5;
    data.set_input(0, torque).unwrap();
    let mut accel = [0.0];
    tree::accelerations(&model, &mut data, &mut accel).unwrap();
    let alpha = torque / i_pivot;
    assert!(
        (accel[0] - alpha).abs() < 1e-14 * alpha,
        "{} vs {alpha}",
        accel[0]
    );
    for _ in 0..1000 {
        step(&model, &mut data, &mut integrators::Rk4, DT).unwrap();
    }
    let t = data.time();
    assert!((data.positions()[0] - 0.5 * alpha * t * t).abs() < 1e-12);
    assert!((data.velocities()[0] - alpha * t).abs() < 1e-12);
}

#[test]
fn joint_damping_decays_the_rate_exponentially() {
    // Reference: I_p ω̇ = −c ω ⇒ ω = ω0 exp(−c t / I_p).
    let damping = 0.05;
    let (model, i_pivot) = turntable(damping);
    let mut data = TreeData::new(&model);
    data.set_velocity(0, 3.0).unwrap();
    for _ in 0..2000 {
        step(&model, &mut data, &mut integrators::Rk4, DT).unwrap();
    }
    let exact = 3.0 * (-damping * data.time() / i_pivot).exp();
    let rel = (data.velocities()[0] - exact).abs() / exact;
    assert!(
        exact < 2.0 && rel < 1e-11,
        "{} vs {exact}: {rel:e}",
        data.velocities()[0]
    );
}

#[test]
fn builder_and_input_errors_name_the_link_and_the_reason() {
    let rod = Body::rod(1.0, 1.0, 0.01);
    let good =
        Link::revolute(None, Vec3::ZERO, Vec3::Y).with_mass(1.0, Vec3::new(0.5, 0.0, 0.0), rod.inertia);
    let error = |links: &[Link<f64>]| -> String {
        let mut b = TreeModel::<2>::builder(Vec3::new(0.0, 0.0, -GRAVITY));
        for link in links {
            if let Err(e) = b.add_link(*link) {
                return e.to_string();
            }
        }
        b.build()
            .map(|_| "built".into())
            .unwrap_or_else(|e| e.to_string())
    };
    let massless = Link::revolute(None, Vec3::ZERO, Vec3::Y);
    // A massless link is a frame between joints: refused when it carries no mass.
    assert_eq!(
        error(&[massless]),
        "body 0: a massless link must carry a link with mass (its joint would move no inertia: M singular)"
    );
    let negative = Link {
        parent: Some(0),
        mass: -1.0,
        ..good
    };
    assert_eq!(error(&[good, negative]), "body 1: mass -1 must be finite and > 0");
    let not_pd = good.with_mass(1.0, Vec3::ZERO, Mat3::diagonal(Vec3::new(1.0, -1.0, 1.0)));
    assert_eq!(
        error(&[not_pd]),
        "body 0: inertia about the CG is not symmetric positive definite"
    );
    // Principal moments 1, 1, 3 are no rigid body's, but positive definite: a tree link takes
    // them as Pinocchio does (the Cartesian model refuses them).
    let unphysical = good.with_mass(1.0, Vec3::ZERO, Mat3::diagonal(Vec3::new(1.0, 1.0, 3.0)));
    assert_eq!(error(&[unphysical]), "built");
    assert_eq!(
        error(&[Link {
            axis: Vec3::ZERO,
            ..good
        }]),
        "joint 0: axis has zero length"
    );
    assert_eq!(
        error(&[Link {
            parent: Some(0),
            ..good
        }]),
        "body 0: parent must be a link added earlier"
    );
    assert_eq!(
        error(&[
            good,
            Link {
                parent: Some(1),
                ..good
            }
        ]),
        "body 1: parent must be a link added earlier"
    );
    assert_eq!(error(&[good.with_damping(-0.1)]), "joint 0: damping must be ≥ 0");
    assert_eq!(
        error(&[Link {
            origin: Vec3::new(f64::NAN, 0.0, 0.0),
            ..good
        }]),
        "joint 0: a parameter is NaN or infinite"
    );
    assert_eq!(
        error(&[good, good, good]),
        "capacity exceeded: Bodies needs 3, capacity is 2"
    );
    assert_eq!(error(&[good, good]), "built");

    let model = single_link(Vec3::Y, 1.0, Vec3::new(0.5, 0.0, 0.0), rod.inertia, 0.0);
    let mut data = TreeData::new(&model);
    assert_eq!(
        data.set_input(3, 1.0).unwrap_err().to_string(),
        "joint 3: no such joint in the tree"
    );
    assert_eq!(
        data.set_input(0, f64::NAN).unwrap_err().to_string(),
        "joint 0: a parameter is NaN or infinite"
    );
    assert_eq!(
        data.set_position(1, 0.0).unwrap_err().to_string(),
        "joint 1: no such joint in the tree"
    );
    // A step that overflows to infinity is an error naming the joint, and the state stays put.
    data.set_velocity(0, 1e300).unwrap();
    let before = data.state().to_vec();
    let e = step(&model, &mut data, &mut integrators::Rk4, 1e10).unwrap_err();
    assert_eq!(
        e.to_string(),
        // The overflow shows at RK4's midpoint stage, t + h/2.
        "NaN or infinity in the state of joint 0 at t = 5000000000 s"
    );
    assert_eq!(data.state(), &before[..]);
}
