//! Multi-DOF joints of trees in joint coordinates (spherical, universal, cylindrical, free)
//! against the Cartesian model of the same system (`rigid::Model` with `JointKind::Spherical`,
//! `Universal`, `Cylindrical`, `Revolute` and a body without a joint for a free base) and
//! against conserved quantities (heavy symmetric top, free body in zero gravity).
//!
//! The tree and the Cartesian model represent the same ODE in different coordinates, so their
//! RK4 trajectories differ by truncation error only; every comparison prints its figures.

use ferrodyn_kernel::integrators::Rk4;
use ferrodyn_kernel::math::{Mat3, Quat, Vec3};
use ferrodyn_kernel::rigid::{self, Body, BodyRef, Frame, Joint, JointKind};
use ferrodyn_kernel::tree::{self, Link, LinkState};
use ferrodyn_kernel::{
    step, step_with, BuildError, Capacity, Dynamics, ExternalForces, ExternalLoads, Fixed, Item, Real,
    Storage,
};

const DT: f64 = 1e-3;
const G: f64 = 9.81;

/// The Cartesian bodies of a tree at its current state: body k is link k (same frame, CG,
/// inertia), at link k's pose and velocity.
fn bodies_of<St: Storage>(model: &tree::Model<f64, St>, data: &tree::Data<f64, St>) -> Vec<Body<f64>> {
    let states = tree::link_states(model, data);
    model
        .links()
        .iter()
        .zip(states.iter())
        .map(|(link, s)| {
            let rotation = s.pose.rotation;
            Body::new(link.mass, link.inertia)
                .with_cg(link.cg)
                .at(s.pose.origin, Quat::from_matrix(&rotation))
                .moving(s.origin_velocity, rotation.tr_mul_vec(s.angular_velocity))
        })
        .collect()
}

/// A rotation whose x axis is `x` and y axis `y` (perpendicular unit vectors).
fn axes_xy(x: Vec3<f64>, y: Vec3<f64>) -> Mat3<f64> {
    Mat3::from_columns(x, y, x.cross(y))
}

/// The Cartesian joint equivalent to link `k`'s joint: frames on the parent (at the joint
/// origin, in the parent's link frame) and on the link (at its origin).
fn joint_of(model_links: &[Link<f64>], k: usize) -> Option<Joint<f64>> {
    let link = &model_links[k];
    let parent = link.parent.map_or(BodyRef::Ground, BodyRef::Body);
    let on_link = BodyRef::Body(k);
    let o = link.origin;
    let joint = match link.multi {
        None => {
            let kind = match link.joint {
                tree::TreeJoint::Revolute => JointKind::Revolute,
                tree::TreeJoint::Prismatic => JointKind::Prismatic,
            };
            Joint::new(
                kind,
                parent,
                Frame::with_z_axis(o, link.axis),
                on_link,
                Frame::with_z_axis(Vec3::ZERO, link.axis),
            )
        }
        Some(tree::MultiJoint::Spherical) => Joint::new(
            JointKind::Spherical,
            parent,
            Frame::at(o),
            on_link,
            Frame::at(Vec3::ZERO),
        ),
        Some(tree::MultiJoint::Cylindrical) => Joint::new(
            JointKind::Cylindrical,
            parent,
            Frame::with_z_axis(o, link.axis),
            on_link,
            Frame::with_z_axis(Vec3::ZERO, link.axis),
        ),
        Some(tree::MultiJoint::Universal) => {
            // The Cartesian universal turns about x of frame i and y of frame j.
            let axes = axes_xy(link.axis, link.second_axis);
            Joint::new(
                JointKind::Universal,
                parent,
                Frame { origin: o, axes },
                on_link,
                Frame {
                    origin: Vec3::ZERO,
                    axes,
                },
            )
        }
        Some(tree::MultiJoint::Free) => return None,
    };
    Some(joint)
}

/// The Cartesian model of `model` at the state of `data`.
fn cartesian<St: Storage, C: Storage>(
    model: &tree::Model<f64, St>,
    data: &tree::Data<f64, St>,
) -> rigid::Model<f64, C> {
    let mut b = rigid::Model::<f64, C>::builder(model.gravity());
    for body in bodies_of(model, data) {
        b.add_body(body).unwrap();
    }
    for k in 0..model.links().len() {
        if let Some(joint) = joint_of(model.links(), k) {
            b.add_joint(joint).unwrap();
        }
    }
    b.build().unwrap()
}

/// Largest differences between the tree and the Cartesian model over a run.
#[derive(Clone, Copy, Debug, Default)]
struct Gap {
    /// CG position (m).
    position: f64,
    /// Rotation matrix entries.
    orientation: f64,
    /// CG velocity (m/s).
    velocity: f64,
    /// Angular velocity (rad/s).
    angular_velocity: f64,
}

impl Gap {
    fn max(&self) -> f64 {
        self.position
            .max(self.orientation)
            .max(self.velocity)
            .max(self.angular_velocity)
    }
}

fn max_entry(a: &Mat3<f64>, b: &Mat3<f64>) -> f64 {
    (0..3)
        .flat_map(|i| (0..3).map(move |j| (i, j)))
        .map(|(i, j)| (a.m[i][j] - b.m[i][j]).abs())
        .fold(0.0, f64::max)
}

/// Linear drag on every link's CG and a rotary drag on its angular velocity, the same on tree
/// links and Cartesian bodies: exercises `step_with` on every joint type.
struct Drag;

impl ExternalForces<f64> for Drag {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        for b in 0..loads.body_count() {
            let (Some(x), Some(r), Some(v), Some(w)) = (
                loads.position(b),
                loads.rotation(b),
                loads.velocity(b),
                loads.angular_velocity(b),
            ) else {
                continue;
            };
            // A point 0.1 m off the origin along the body's x axis, dragged by its velocity.
            let offset = r.mul_vec(Vec3::new(0.1, 0.0, 0.0));
            loads.add_force_at(b, x + offset, (v + w.cross(offset)) * -0.3);
            loads.add_torque(b, w * -0.02);
        }
    }
}

/// Steps `model` from `data` and its Cartesian model side by side for `steps` RK4 steps of
/// `dt` (with [`Drag`] if `drag`) and returns the largest gaps.
fn compare<St: Storage, C: Storage>(
    model: &tree::Model<f64, St>,
    data: &tree::Data<f64, St>,
    dt: f64,
    steps: usize,
    drag: bool,
) -> Gap {
    let rigid_model: rigid::Model<f64, C> = cartesian(model, data);
    let mut rigid_data = rigid::Data::new(&rigid_model);
    let mut data = data.clone();
    let mut gap = Gap::default();
    for _ in 0..steps {
        if drag {
            step_with(model, &mut data, &mut Rk4, dt, &mut Drag).unwrap();
            step_with(&rigid_model, &mut rigid_data, &mut Rk4, dt, &mut Drag).unwrap();
        } else {
            step(model, &mut data, &mut Rk4, dt).unwrap();
            step(&rigid_model, &mut rigid_data, &mut Rk4, dt).unwrap();
        }
        let states = tree::link_states(model, &data);
        for (k, (link, s)) in model.links().iter().zip(states.iter()).enumerate() {
            let body = BodyRef::Body(k);
            let rotation = rigid_data.orientation(k).to_matrix();
            let omega = rotation.mul_vec(rigid_data.angular_velocity(k));
            gap.position = gap
                .position
                .max((s.point(link.cg) - rigid_data.point_position(body, link.cg)).norm());
            gap.velocity = gap
                .velocity
                .max((s.point_velocity(link.cg) - rigid_data.point_velocity(body, link.cg)).norm());
            gap.orientation = gap.orientation.max(max_entry(&s.pose.rotation, &rotation));
            gap.angular_velocity = gap.angular_velocity.max((s.angular_velocity - omega).norm());
        }
    }
    gap
}

/// Compares at `DT` and `2 DT` and checks that the gap is the integrators' truncation error:
/// below `bound` at `DT` and, unless it is at round-off level (the two models then integrate
/// the same coordinates: a body on a spherical joint to the ground is the Cartesian body's
/// quaternion), growing about 16× per doubling of the step (RK4, order 4; the doubled step
/// keeps the gap clear of the Cartesian projection's tolerance); a modelling difference would
/// not scale so.
fn agrees<St: Storage, C: Storage>(
    name: &str,
    model: &tree::Model<f64, St>,
    data: &tree::Data<f64, St>,
    seconds: f64,
    drag: bool,
    bound: f64,
) {
    let steps = (seconds / DT).round() as usize;
    let gap = compare::<St, C>(model, data, DT, steps, drag);
    let double = compare::<St, C>(model, data, 2.0 * DT, steps / 2, drag);
    let ratio = double.max() / gap.max();
    println!(
        "{name}: tree vs Cartesian over {seconds} s, RK4 at 1 ms: CG {:.1e} m, R {:.1e}, v_cg {:.1e} m/s, ω {:.1e} rad/s; \
         at 2 ms max {:.1e} (ratio {ratio:.1})",
        gap.position,
        gap.orientation,
        gap.velocity,
        gap.angular_velocity,
        double.max()
    );
    assert!(gap.max() < bound, "{name}: gap {gap:?} over {bound:e}");
    if gap.max() > 1e-12 {
        assert!(
            (10.0..=24.0).contains(&ratio),
            "{name}: gap grows {ratio:.1}× per doubling, not 16×"
        );
    }
}

/// A full inertia about the CG (positive definite).
fn inertia(d: [f64; 3], off: [f64; 3]) -> Mat3<f64> {
    Mat3::symmetric(Vec3::new(d[0], d[1], d[2]), off[0], off[1], off[2])
}

fn unit(x: f64, y: f64, z: f64) -> Vec3<f64> {
    Vec3::new(x, y, z).normalized().unwrap()
}

#[test]
fn spherical_pendulum_matches_the_cartesian_spherical_joint() {
    let mut b = tree::Model::<f64, Fixed<4>>::builder(Vec3::new(0.0, 0.0, -G));
    let cg = Vec3::new(0.15, -0.05, -0.6);
    b.add_link(Link::spherical(None, Vec3::new(0.1, 0.2, 1.0)).with_mass(
        1.5,
        cg,
        inertia([0.05, 0.06, 0.02], [0.004, -0.002, 0.003]),
    ))
    .unwrap();
    let model = b.build().unwrap();
    let mut data = tree::Data::new(&model);
    let q = Quat::from_roll_pitch_yaw(0.5, -0.3, 0.2);
    data.set_joint_position(&model, 0, &q.to_array()).unwrap();
    data.set_joint_velocity(&model, 0, &[0.8, -1.1, 2.5]).unwrap();
    agrees::<_, Fixed<1, 1, 0, 3, 6>>("spherical pendulum", &model, &data, 2.0, false, 1e-9);
}

#[test]
fn universal_joint_matches_the_cartesian_universal_joint() {
    let mut b = tree::Model::<f64, Fixed<3>>::builder(Vec3::new(0.0, 0.0, -G));
    let a1 = unit(1.0, 0.2, -0.1);
    let a2 = a1.cross(Vec3::Z).normalized().unwrap();
    let cg = Vec3::new(0.1, 0.05, -0.5);
    let link = Link::universal(None, Vec3::new(0.0, 0.3, 0.5), a1, a2).with_mass(
        2.0,
        cg,
        inertia([0.04, 0.05, 0.03], [0.002, 0.001, -0.003]),
    );
    // A second link on a revolute joint below, so that the universal joint carries a subtree.
    let arm = Link::revolute(Some(0), Vec3::new(0.0, 0.0, -0.7), unit(0.3, 1.0, 0.1)).with_mass(
        0.8,
        Vec3::new(0.2, 0.0, -0.1),
        inertia([0.01, 0.02, 0.015], [0.0, 0.001, 0.0]),
    );
    b.add_link(link).unwrap();
    b.add_link(arm).unwrap();
    let model = b.build().unwrap();
    let mut data = tree::Data::new(&model);
    data.set_joint_position(&model, 0, &[0.4, -0.3]).unwrap();
    data.set_joint_velocity(&model, 0, &[1.2, -0.7]).unwrap();
    data.set_joint_position(&model, 1, &[0.6]).unwrap();
    data.set_joint_velocity(&model, 1, &[-0.5]).unwrap();
    agrees::<_, Fixed<2, 2, 0, 9, 45>>("universal + revolute", &model, &data, 2.0, false, 1e-9);
}

#[test]
fn cylindrical_joint_matches_the_cartesian_cylindrical_joint() {
    let mut b = tree::Model::<f64, Fixed<3>>::builder(Vec3::new(0.4, -0.3, -G));
    let axis = unit(0.2, 0.3, 1.0);
    b.add_link(Link::cylindrical(None, Vec3::new(0.1, 0.0, 0.2), axis).with_mass(
        1.0,
        Vec3::new(0.3, 0.1, 0.0),
        inertia([0.02, 0.03, 0.025], [0.001, 0.0, -0.002]),
    ))
    .unwrap();
    b.add_link(
        Link::revolute(Some(0), Vec3::new(0.4, 0.0, 0.0), unit(0.0, 1.0, 0.2)).with_mass(
            0.5,
            Vec3::new(0.2, 0.0, 0.0),
            inertia([0.002, 0.01, 0.01], [0.0; 3]),
        ),
    )
    .unwrap();
    let model = b.build().unwrap();
    let mut data = tree::Data::new(&model);
    data.set_joint_position(&model, 0, &[0.3, 0.05]).unwrap();
    data.set_joint_velocity(&model, 0, &[1.5, 0.2]).unwrap();
    data.set_joint_velocity(&model, 1, &[-1.0]).unwrap();
    agrees::<_, Fixed<2, 2, 0, 9, 45>>("cylindrical + revolute", &model, &data, 2.0, false, 1e-9);
}

/// A floating base (free joint) carrying a revolute arm with a universal wrist and a spherical
/// pendulum: every joint type in one tree.
fn floating_robot<R: Real>() -> tree::Model<R, Fixed<16>> {
    let v = |x: f64, y: f64, z: f64| Vec3::new(R::from_f64(x), R::from_f64(y), R::from_f64(z));
    let j = |d: [f64; 3], o: [f64; 3]| {
        Mat3::symmetric(
            v(d[0], d[1], d[2]),
            R::from_f64(o[0]),
            R::from_f64(o[1]),
            R::from_f64(o[2]),
        )
    };
    let s = R::from_f64;
    let mut b = tree::Model::builder(v(0.0, 0.0, -G));
    let a1 = v(1.0, 0.0, 0.0);
    let a2 = v(0.0, 0.6, 0.8);
    let links = [
        Link::free(None, Vec3::ZERO).with_mass(
            s(5.0),
            v(0.05, -0.02, 0.1),
            j([0.3, 0.4, 0.5], [0.01, -0.02, 0.015]),
        ),
        Link::revolute(Some(0), v(0.3, 0.0, 0.1), v(0.0, 1.0, 0.0)).with_mass(
            s(1.0),
            v(0.25, 0.0, 0.0),
            j([0.002, 0.02, 0.02], [0.0, 0.001, 0.0]),
        ),
        Link::universal(Some(1), v(0.5, 0.0, 0.0), a1, a2).with_mass(
            s(0.4),
            v(0.1, 0.02, 0.0),
            j([0.002, 0.003, 0.0025], [0.0001, 0.0, 0.0002]),
        ),
        Link::spherical(Some(0), v(-0.2, 0.1, -0.2)).with_mass(
            s(0.7),
            v(0.0, 0.05, -0.3),
            j([0.01, 0.012, 0.004], [0.0, 0.001, -0.0005]),
        ),
    ];
    for link in links {
        b.add_link(link).unwrap();
    }
    b.build().unwrap()
}

/// The robot's initial state: the base tilted, moving and turning, every joint moving.
fn robot_state<R: Real>(model: &tree::Model<R, Fixed<16>>) -> tree::Data<R, Fixed<16>> {
    let s = |x: &[f64]| x.iter().map(|&x| R::from_f64(x)).collect::<Vec<_>>();
    let mut data = tree::Data::new(model);
    let base = Quat::<f64>::from_roll_pitch_yaw(0.2, -0.1, 0.4).to_array();
    let pendulum = Quat::<f64>::from_roll_pitch_yaw(-0.3, 0.25, 0.0).to_array();
    let base_q = [0.1, -0.2, 1.0, base[0], base[1], base[2], base[3]];
    data.set_joint_position(model, 0, &s(&base_q)).unwrap();
    data.set_joint_velocity(model, 0, &s(&[0.3, 0.1, 0.5, 0.4, -0.6, 0.9]))
        .unwrap();
    data.set_joint_position(model, 1, &s(&[0.5])).unwrap();
    data.set_joint_velocity(model, 1, &s(&[-0.8])).unwrap();
    data.set_joint_position(model, 2, &s(&[0.3, -0.4])).unwrap();
    data.set_joint_velocity(model, 2, &s(&[1.0, 0.6])).unwrap();
    data.set_joint_position(model, 3, &s(&pendulum)).unwrap();
    data.set_joint_velocity(model, 3, &s(&[0.5, -0.2, 1.5])).unwrap();
    data
}

#[test]
fn floating_base_robot_matches_the_cartesian_model() {
    let model = floating_robot::<f64>();
    let data = robot_state(&model);
    // Rows: revolute 5, universal 4, spherical 3.
    type Cartesian = Fixed<4, 3, 0, 12, 78>;
    agrees::<_, Cartesian>("floating base robot", &model, &data, 1.0, false, 1e-9);
    agrees::<_, Cartesian>(
        "floating base robot, external drag",
        &model,
        &data,
        1.0,
        true,
        1e-9,
    );
}

/// Angular momentum about the world origin and the CG of `links` at `states`.
fn momentum(links: &[Link<f64>], states: &[LinkState<f64>]) -> (Vec3<f64>, Vec3<f64>, Vec3<f64>, f64) {
    let (mut linear, mut angular, mut moment, mut mass) = (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO, 0.0);
    for (link, s) in links.iter().zip(states) {
        let r = s.pose.rotation;
        let (x, v) = (s.point(link.cg), s.point_velocity(link.cg));
        let spin = r
            .mul_mat(&link.inertia)
            .mul_mat(&r.transpose())
            .mul_vec(s.angular_velocity);
        linear += v * link.mass;
        angular = angular + spin + x.cross(v * link.mass);
        moment += x * link.mass;
        mass += link.mass;
    }
    (linear, angular, moment * (1.0 / mass), mass)
}

/// The largest drifts of a tumbling free body in zero gravity over 2 s of RK4 at `dt`:
/// relative linear momentum, relative angular momentum (about the world origin), distance of
/// the CG from its straight line, relative energy, and | |q| − 1 | of the quaternion.
fn free_drift(dt: f64) -> [f64; 5] {
    let mut b = tree::Model::<f64, Fixed<7>>::builder(Vec3::ZERO);
    let mass = 3.0;
    b.add_link(Link::free(None, Vec3::ZERO).with_mass(
        mass,
        Vec3::new(0.2, -0.1, 0.3),
        inertia([0.4, 0.5, 0.8], [0.03, -0.02, 0.05]),
    ))
    .unwrap();
    let model = b.build().unwrap();
    let mut data = tree::Data::new(&model);
    let q = Quat::from_roll_pitch_yaw(0.3, 0.2, -0.5).to_array();
    data.set_joint_position(&model, 0, &[1.0, 2.0, -0.5, q[0], q[1], q[2], q[3]])
        .unwrap();
    data.set_joint_velocity(&model, 0, &[0.4, -0.3, 0.2, 2.0, -3.0, 4.0])
        .unwrap();
    let (p0, l0, x0, _) = momentum(model.links(), &tree::link_states(&model, &data));
    let e0 = model.energy(&data).unwrap().total();
    let v_cg = p0 * (1.0 / mass);
    let mut drift = [0.0f64; 5];
    for k in 1..=(2.0 / dt).round() as usize {
        step(&model, &mut data, &mut Rk4, dt).unwrap();
        let (p, l, x, _) = momentum(model.links(), &tree::link_states(&model, &data));
        let quaternion = &data.positions()[3..7];
        let now = [
            (p - p0).norm() / p0.norm(),
            (l - l0).norm() / l0.norm(),
            (x - (x0 + v_cg * (k as f64 * dt))).norm(),
            (model.energy(&data).unwrap().total() - e0).abs() / e0,
            (quaternion.iter().map(|x| x * x).sum::<f64>().sqrt() - 1.0).abs(),
        ];
        for (d, n) in drift.iter_mut().zip(now) {
            *d = d.max(n);
        }
    }
    drift
}

#[test]
fn free_body_in_zero_gravity_keeps_its_momentum_and_its_cg_moves_on_a_line() {
    // Reference: no external force or moment, so the linear and angular momentum are constant
    // and the CG moves uniformly: x_cg(t) = x_cg(0) + v_cg(0) t. The body tumbles (ω off the
    // principal axes, |ω| 5.4 rad/s) with its CG off the link origin, so the state (origin
    // velocity, body angular velocity) evolves nonlinearly and RK4 keeps these only to its
    // truncation error: the drifts must be small and grow as h⁴ (16× per doubled step).
    let [dp, dl, dx, de, unit] = free_drift(DT);
    let [dp2, dl2, dx2, de2, _] = free_drift(2.0 * DT);
    println!(
        "free body, 2 s at 1 ms (2 ms): |Δp|/|p| {dp:.1e} ({dp2:.1e}), |ΔL|/|L| {dl:.1e} ({dl2:.1e}), \
         CG off its line {dx:.1e} m ({dx2:.1e}), |ΔE|/E {de:.1e} ({de2:.1e}), | |q| − 1 | {unit:.1e}"
    );
    assert!(
        dp < 1e-10 && dl < 1e-10 && dx < 1e-10 && de < 1e-11,
        "{:?}",
        [dp, dl, dx, de]
    );
    assert!(
        dp2 / dp > 10.0 && dl2 / dl > 10.0 && dx2 / dx > 10.0,
        "drifts do not grow as h⁴"
    );
    assert!(unit < 1e-15, "quaternion norm off by {unit:e}");
}

/// The largest drifts of energy, vertical angular momentum and spin of the heavy symmetric top
/// (spin 60 rad/s, tilted 0.5 rad) over 2 s of RK4 at `dt`, and the lowest CG height.
fn top_drift(dt: f64) -> (f64, f64, f64, f64) {
    let (m, l, a, c) = (1.0, 0.1, 0.004, 0.006);
    let mut b = tree::Model::<f64, Fixed<4>>::builder(Vec3::new(0.0, 0.0, -G));
    let symmetric = Mat3::diagonal(Vec3::new(a, a, c));
    b.add_link(Link::spherical(None, Vec3::ZERO).with_mass(m, Vec3::new(0.0, 0.0, l), symmetric))
        .unwrap();
    let model = b.build().unwrap();
    let mut data = tree::Data::new(&model);
    let tilt = Quat::from_axis_angle(Vec3::X, 0.5).to_array();
    data.set_joint_position(&model, 0, &tilt).unwrap();
    data.set_joint_velocity(&model, 0, &[0.3, -0.2, 60.0]).unwrap();
    let vertical =
        |data: &tree::Data<f64, Fixed<4>>| momentum(model.links(), &tree::link_states(&model, data)).1.z;
    let spin = |data: &tree::Data<f64, Fixed<4>>| data.velocities()[2];
    let (e0, lz0, spin0) = (model.energy(&data).unwrap().total(), vertical(&data), spin(&data));
    let (mut de, mut dlz, mut dspin, mut lowest) = (0.0f64, 0.0f64, 0.0f64, f64::MAX);
    for _ in 0..(2.0 / dt).round() as usize {
        step(&model, &mut data, &mut Rk4, dt).unwrap();
        de = de.max((model.energy(&data).unwrap().total() - e0).abs() / e0.abs());
        dlz = dlz.max((vertical(&data) - lz0).abs() / lz0.abs());
        dspin = dspin.max((spin(&data) - spin0).abs());
        lowest = lowest.min(
            tree::link_states(&model, &data)[0]
                .point(Vec3::new(0.0, 0.0, l))
                .z,
        );
    }
    (de, dlz, dspin, lowest)
}

#[test]
fn heavy_symmetric_top_keeps_energy_vertical_momentum_and_spin() {
    // Reference (Goldstein, Classical Mechanics, §5.7): a symmetric top on a fixed point in
    // gravity, its CG on the symmetry axis, conserves its energy, the vertical component of its
    // angular momentum about the fixed point (gravity's moment is horizontal) and its spin, the
    // angular velocity about the symmetry axis (Euler: C ω̇₃ = (A − B) ω₁ ω₂ = 0). RK4 does not
    // conserve them exactly: the drifts are truncation errors and shrink as h⁴ (a wrong
    // velocity-product term would make them O(1) and not shrink).
    let (de, dlz, dspin, lowest) = top_drift(DT);
    let (de_half, dlz_half, _, _) = top_drift(DT / 2.0);
    let start = 0.1 * 0.5f64.cos();
    println!(
        "heavy top (spin 60 rad/s), 2 s: |ΔE|/E {de:.1e} at 1 ms, {de_half:.1e} at 0.5 ms; |ΔL_z|/L_z {dlz:.1e},          {dlz_half:.1e}; |Δω₃| {dspin:.1e} rad/s; CG height min {lowest:.4} m (starts at {start:.4}: it nutates)"
    );
    assert!(
        de < 2e-9 && dlz < 2e-8 && dspin < 1e-12,
        "ΔE {de:e}, ΔL_z {dlz:e}, Δω₃ {dspin:e}"
    );
    assert!(
        de / de_half > 10.0 && dlz / dlz_half > 10.0,
        "drifts do not shrink as h⁴"
    );
    assert!(lowest < start - 1e-3, "the top does not nutate: {lowest}");
}

#[test]
fn f32_follows_f64_on_the_floating_robot() {
    // Sanity: the f32 kernel runs the same tree; over 0.5 s its link positions stay within
    // f32 rounding accumulated over 500 steps of f64's (no precision-specific path).
    let (m64, m32) = (floating_robot::<f64>(), floating_robot::<f32>());
    let (mut d64, mut d32) = (robot_state(&m64), robot_state(&m32));
    let mut gap = 0.0f64;
    for _ in 0..500 {
        step(&m64, &mut d64, &mut Rk4, DT).unwrap();
        step(&m32, &mut d32, &mut Rk4, DT as f32).unwrap();
        let (s64, s32) = (tree::link_states(&m64, &d64), tree::link_states(&m32, &d32));
        for (a, b) in s64.iter().zip(s32.iter()) {
            let b = Vec3::new(
                b.pose.origin.x as f64,
                b.pose.origin.y as f64,
                b.pose.origin.z as f64,
            );
            gap = gap.max((a.pose.origin - b).norm());
        }
    }
    println!("floating robot, f32 vs f64 over 0.5 s: link origins within {gap:.1e} m");
    assert!(gap < 1e-4, "{gap:e}");
}

#[test]
fn builder_and_setters_reject_bad_joints_naming_them() {
    let mut b = tree::Model::<f64, Fixed<8>>::builder(Vec3::new(0.0, 0.0, -G));
    let mass = |l: Link<f64>| l.with_mass(1.0, Vec3::ZERO, Mat3::diagonal(Vec3::new(0.1, 0.1, 0.1)));
    b.add_link(mass(Link::revolute(None, Vec3::ZERO, Vec3::Z)))
        .unwrap();
    let skew = Link::universal(Some(0), Vec3::ZERO, Vec3::X, Vec3::new(0.1, 1.0, 0.0));
    assert_eq!(
        b.add_link(mass(skew)),
        Err(BuildError::InvalidParameter {
            item: Item::Joint(1),
            reason: "universal joint axes must be perpendicular"
        })
    );
    let zero = Link::universal(Some(0), Vec3::ZERO, Vec3::X, Vec3::ZERO);
    assert_eq!(
        b.add_link(mass(zero)),
        Err(BuildError::ZeroLengthAxis { item: Item::Joint(1) })
    );
    let zero = Link::cylindrical(Some(0), Vec3::ZERO, Vec3::ZERO);
    assert_eq!(
        b.add_link(mass(zero)),
        Err(BuildError::ZeroLengthAxis { item: Item::Joint(1) })
    );
    // 1 + 7 positions, 1 + 6 velocities: 8 slots fit, a second free joint does not.
    let free = b.add_link(mass(Link::free(Some(0), Vec3::ZERO))).unwrap();
    assert_eq!(
        b.add_link(mass(Link::free(None, Vec3::ZERO))),
        Err(BuildError::CapacityExceeded {
            capacity: Capacity::Bodies,
            needed: 14,
            available: 8
        })
    );
    let model = b.build().unwrap();
    assert_eq!(
        (model.position_count(), model.velocity_count(), model.slots()),
        (8, 7, 8)
    );
    let mut data = tree::Data::new(&model);
    // Identity quaternion at zero coordinates.
    assert_eq!(
        data.joint_position(&model, free),
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    );
    let not_unit = [0.0, 0.0, 0.0, 1.0, 0.1, 0.0, 0.0];
    let unit_error = BuildError::InvalidParameter {
        item: Item::Joint(1),
        reason: "the joint's quaternion must have unit length",
    };
    assert_eq!(data.set_joint_position(&model, free, &not_unit), Err(unit_error));
    let wrong_length = data.set_joint_velocity(&model, free, &[0.0; 3]);
    assert!(matches!(
        wrong_length,
        Err(BuildError::InvalidParameter {
            item: Item::Joint(1),
            ..
        })
    ));
    let nan = data.set_joint_input(&model, free, &[f64::NAN; 6]);
    assert_eq!(nan, Err(BuildError::NonFinite { item: Item::Joint(1) }));
    assert!(data.set_joint_position(&model, 2, &[0.0]).is_err());
    // Inputs per velocity coordinate: the free joint's follow the revolute joint's one.
    data.set_joint_input(&model, free, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        .unwrap();
    data.set_input(0, 0.5).unwrap();
    assert_eq!(data.inputs(), &[0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    // A quaternion set to zero by hand is a step error naming the joint, state unchanged.
    data.set_position(4, 0.0).unwrap();
    let before = data.state().to_vec();
    let error = step(&model, &mut data, &mut Rk4, DT).unwrap_err();
    assert_eq!(error.item(), Some(Item::Joint(1)), "{error:?}");
    assert_eq!(data.state(), &before[..]);
}

/// Largest distance of the floating robot's link origins over 0.5 s stepped by `integrator` at
/// `dt` from RK4 at 0.1 ms (the reference).
fn robot_error<I: ferrodyn_kernel::Integrator<f64>>(mut integrator: I, dt: f64) -> f64 {
    let model = floating_robot::<f64>();
    let (mut data, mut reference) = (robot_state(&model), robot_state(&model));
    let fine = (dt / 1e-4).round() as usize;
    let mut error = 0.0f64;
    for _ in 0..(0.5 / dt).round() as usize {
        step(&model, &mut data, &mut integrator, dt).unwrap();
        for _ in 0..fine {
            step(&model, &mut reference, &mut Rk4, 1e-4).unwrap();
        }
        let (a, b) = (
            tree::link_states(&model, &data),
            tree::link_states(&model, &reference),
        );
        for (a, b) in a.iter().zip(b.iter()) {
            error = error.max((a.pose.origin - b.pose.origin).norm());
        }
    }
    error
}

#[test]
fn split_integrators_advance_quaternions_at_their_order() {
    // Reference: RK4 at 0.1 ms. Semi-implicit Euler and velocity Verlet move positions with
    // `advance_positions` (quaternions turned exactly by ω h): halving the step must halve
    // semi-implicit Euler's error and quarter velocity Verlet's, whose second evaluation sees
    // the predicted v₁* and so stays second order with the robot's gyroscopic terms (measured
    // 4.00; at v½ it was first order, 2.01 on the 5-link chain: tests/verlet_order.rs).
    use ferrodyn_kernel::integrators::{SemiImplicitEuler, VelocityVerlet};
    let (euler, euler_half) = (
        robot_error(SemiImplicitEuler, 2e-3),
        robot_error(SemiImplicitEuler, 1e-3),
    );
    let (verlet, verlet_half) = (
        robot_error(VelocityVerlet, 2e-3),
        robot_error(VelocityVerlet, 1e-3),
    );
    println!(
        "floating robot, 0.5 s: semi-implicit Euler {euler:.2e} m at 2 ms, {euler_half:.2e} at 1 ms (ratio {:.2}); \
         velocity Verlet {verlet:.2e}, {verlet_half:.2e} (ratio {:.2})",
        euler / euler_half,
        verlet / verlet_half
    );
    assert!(
        (1.7..2.3).contains(&(euler / euler_half)),
        "semi-implicit Euler is not first order"
    );
    assert!(
        (3.6..4.4).contains(&(verlet / verlet_half)),
        "velocity Verlet is not second order"
    );
    assert!(
        verlet_half < 1e-6 && euler_half < 1e-2,
        "errors {verlet_half:e}, {euler_half:e}"
    );
}
