//! Planar trees: every revolute joint turns about one world direction a and every prismatic
//! joint slides across it, so every link moves in a plane normal to a. The articulated-body
//! algorithm then runs on planar vectors (Featherstone, *Rigid Body Dynamics Algorithms*,
//! 2008, §2.16): motions (ω, v₁, v₂) and forces (n, f₁, f₂), 3 × 3 symmetric inertias — six
//! entries to fold per link instead of 21, three-term axes instead of six. A pendulum, a cart
//! and pole, a planar arm: the common plants of a hardware-in-the-loop rig.
//!
//! The accelerations are the 3-D algorithm's, not an approximation: the Lagrangian of planar
//! motion holds only each link's mass, the in-plane position of its CG and its moment of
//! inertia about a (the moments about the other axes are taken by the hinges). Only the bits
//! differ. Whether a model is planar is decided once, from its constant data, with exact
//! comparisons: an axis off by round-off takes the 3-D path.
//!
//! Vectors are in world axes about the world origin, as in [`super::spatial`], by their
//! coordinates along the plane's axes e₁, e₂ (e₁ × e₂ = a). a has the same coordinates in
//! every link frame (each frame is the world's turned about a), so a link-frame vector's
//! in-plane coordinates are its dot products with the same e₁, e₂, turned by the link's angle.

use super::servo::joint_force;
use super::spatial::{Spatial, Sym3};
use super::{Link, TreeJoint};
use crate::math::Vec3;
use crate::{Item, KernelError, Real};

/// The plane of a planar tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Plane<R> {
    /// The common joint axis a (unit, world and every link frame).
    pub normal: Vec3<R>,
    /// In-plane axes, e₁ × e₂ = a.
    pub axes: [Vec3<R>; 2],
    /// The base acceleration that stands for gravity: (0, −g₁, −g₂) (the component along a is
    /// taken by the hinges).
    pub base: Vec3<R>,
}

/// A link's constant data in the plane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct PlanarLink<R> {
    /// ±1: a revolute joint turns about ±a; 0 for a prismatic joint.
    pub turn: R,
    /// Joint origin, parent frame.
    pub origin: [R; 2],
    /// Unit slide direction of a prismatic joint, parent frame (zero for a revolute joint).
    pub slide: [R; 2],
    /// CG, link frame.
    pub cg: [R; 2],
    /// Moment of inertia about a through the CG, aᵀ J a.
    pub inertia: R,
}

/// The plane of `links` under `gravity`, `None` unless every joint is revolute about ±a (the
/// first revolute joint's axis, exactly) or prismatic exactly across it, with at least one
/// revolute joint.
pub(crate) fn plane_of<R: Real>(links: &[Link<R>], gravity: Vec3<R>) -> Option<Plane<R>> {
    let normal = links
        .iter()
        .find(|l| l.multi.is_none() && l.joint == TreeJoint::Revolute)?
        .axis;
    let planar = links.iter().all(|l| match (l.multi, l.joint) {
        (Some(_), _) => false,
        (None, TreeJoint::Revolute) => l.axis == normal || l.axis == -normal,
        (None, TreeJoint::Prismatic) => l.axis.dot(normal) == R::ZERO,
    });
    if !planar {
        return None;
    }
    let e1 = normal.any_perpendicular();
    let axes = [e1, normal.cross(e1)];
    Some(Plane {
        normal,
        axes,
        base: Vec3::new(R::ZERO, -gravity.dot(axes[0]), -gravity.dot(axes[1])),
    })
}

impl<R: Real> Plane<R> {
    /// The in-plane coordinates of `v`.
    fn coordinates(&self, v: Vec3<R>) -> [R; 2] {
        [v.dot(self.axes[0]), v.dot(self.axes[1])]
    }

    /// The planar constants of `link` (which [`plane_of`] accepted).
    pub fn link(&self, link: &Link<R>) -> PlanarLink<R> {
        let (turn, slide) = match link.joint {
            TreeJoint::Revolute if link.axis == self.normal => (R::ONE, [R::ZERO; 2]),
            TreeJoint::Revolute => (-R::ONE, [R::ZERO; 2]),
            TreeJoint::Prismatic => (R::ZERO, self.coordinates(link.axis)),
        };
        let a = self.normal;
        PlanarLink {
            turn,
            origin: self.coordinates(link.origin),
            slide,
            cg: self.coordinates(link.cg),
            inertia: a.dot(link.inertia.mul_vec(a)),
        }
    }
}

/// Workspace of the planar articulated-body algorithm for one link. Planar vectors are
/// [`Vec3`]s (x the angular part), inertias [`Sym3`]s. All zero bits is the default workspace.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Zeroable)]
pub(crate) struct PlanarWork<R> {
    /// The link's angle about a, its sine and cosine.
    angle: R,
    turn: (R, R),
    /// Joint origin (world).
    origin: [R; 2],
    /// Motion subspace S.
    axis: Vec3<R>,
    velocity: Vec3<R>,
    /// a⁰: the acceleration were every q̈ zero (as in the 3-D algorithm).
    bias_acceleration: Vec3<R>,
    /// Articulated inertia and bias force.
    inertia: Sym3<R>,
    bias_force: Vec3<R>,
    /// U = I^A S, 1 / (Sᵀ U), u = τ − Sᵀ p^A.
    inertia_axis: Vec3<R>,
    inverse_pivot: R,
    drive: R,
    /// ã = a − a⁰.
    acceleration: Vec3<R>,
}

impl<R: Real> PlanarWork<R> {
    /// Adds the 3-D spatial force `f` (world, about the world origin) to the bias force: its
    /// moment about a and its in-plane force.
    pub fn add_force(&mut self, plane: &Plane<R>, f: Spatial<R>) {
        let [x, y] = plane.coordinates(f.linear);
        self.bias_force += Vec3::new(f.angular.dot(plane.normal), x, y);
    }
}

/// `v` turned by the angle of `(sin, cos)`.
#[inline(always)]
fn rotated<R: Real>([x, y]: [R; 2], (sin, cos): (R, R)) -> [R; 2] {
    [cos * x - sin * y, sin * x + cos * y]
}

/// `a × v` for an in-plane `v`: v turned a quarter.
#[inline(always)]
fn quarter<R: Real>([x, y]: [R; 2]) -> [R; 2] {
    [-y, x]
}

/// `m ×ₘ s` for planar motions (the angular parts are parallel).
#[inline(always)]
fn cross_motion<R: Real>(m: Vec3<R>, s: Vec3<R>) -> Vec3<R> {
    Vec3::new(R::ZERO, m.z * s.x - m.x * s.z, m.x * s.y - m.y * s.x)
}

/// Passes 0 and 1, base to tips: each link's angle, pose, velocity, a⁰, rigid inertia and
/// bias force (Newton–Euler about the CG moved to the world origin: f = m a_c,
/// n = J α⁰ + c × f; no gyroscopic term about a).
pub(crate) fn rigid_pass<R: Real>(
    plane: &Plane<R>,
    (links, constants): (&[Link<R>], &[PlanarLink<R>]),
    (q, rate): (&[R], &[R]),
    work: &mut [PlanarWork<R>],
) -> Result<(), KernelError> {
    // The angles and their sines and cosines first: the calls do not depend on each other.
    for (k, ((link, c), &q)) in links.iter().zip(constants).zip(q).enumerate() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let parent = link.parent.and_then(|p| done.get(p)).map_or(R::ZERO, |p| p.angle);
        w.angle = parent + c.turn * q;
        w.turn = w.angle.sin_cos();
    }
    let one_coordinate = links.iter().zip(constants).zip(q).zip(rate).enumerate();
    for (k, (((link, c), &q), &rate)) in one_coordinate {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let parent = link.parent.and_then(|p| done.get(p));
        let (origin, slide) = match parent {
            None => (c.origin, c.slide),
            Some(p) => {
                let o = rotated(c.origin, p.turn);
                ([p.origin[0] + o[0], p.origin[1] + o[1]], rotated(c.slide, p.turn))
            }
        };
        w.axis = match link.joint {
            // Turning about the line through `origin` moves the point at the world origin
            // with origin × a.
            TreeJoint::Revolute => Vec3::new(c.turn, c.turn * origin[1], -(c.turn * origin[0])),
            TreeJoint::Prismatic => Vec3::new(R::ZERO, slide[0], slide[1]),
        };
        w.origin = match link.joint {
            TreeJoint::Revolute => origin,
            TreeJoint::Prismatic => [origin[0] + slide[0] * q, origin[1] + slide[1] * q],
        };
        let relative = w.axis * rate;
        (w.velocity, w.bias_acceleration) = match parent {
            None => (relative, plane.base),
            Some(p) => {
                let velocity = p.velocity + relative;
                (velocity, p.bias_acceleration + cross_motion(velocity, relative))
            }
        };
        rigid_terms(link, c, w);
    }
    Ok(())
}

/// The rigid inertia and bias force of one link at its motion and a⁰ in `w`.
#[inline(always)]
fn rigid_terms<R: Real>(link: &Link<R>, c: &PlanarLink<R>, w: &mut PlanarWork<R>) {
    let m = link.mass;
    let offset = rotated(c.cg, w.turn);
    let cg = [w.origin[0] + offset[0], w.origin[1] + offset[1]];
    let (omega, a) = (w.velocity.x, w.bias_acceleration);
    let lever = quarter(cg);
    let cg_velocity = [w.velocity.y + omega * lever[0], w.velocity.z + omega * lever[1]];
    let turning = quarter(cg_velocity);
    let cg_acceleration = [
        a.y + a.x * lever[0] + omega * turning[0],
        a.z + a.x * lever[1] + omega * turning[1],
    ];
    let force = [cg_acceleration[0] * m, cg_acceleration[1] * m];
    let moment = c.inertia * a.x + (cg[0] * force[1] - cg[1] * force[0]);
    w.bias_force = Vec3::new(moment, force[0], force[1]);
    let h = [cg[0] * m, cg[1] * m];
    w.inertia = Sym3 {
        e: [
            c.inertia + (h[0] * cg[0] + h[1] * cg[1]),
            m,
            m,
            -h[1],
            h[0],
            R::ZERO,
        ],
    };
}

/// Passes 2 and 3: folds the articulated bodies tips to base, then the accelerations base to
/// tips into `accel`, with the joint inputs `input` at coordinates `q` and rates `rate`.
pub(crate) fn articulated_passes<R: Real>(
    t: R,
    links: &[Link<R>],
    (q, rate, input): (&[R], &[R], &[R]),
    work: &mut [PlanarWork<R>],
    accel: &mut [R],
) -> Result<(), KernelError> {
    let inputs = links.iter().zip(q).zip(rate).zip(input).enumerate().rev();
    for (k, (((link, &q), &rate), &input)) in inputs {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let u = w.inertia.mul_vec(w.axis);
        // As the 3-D algorithm's pivot: the rotor inertia adds to it alone.
        let pivot = w.axis.dot(u) + link.armature;
        if !pivot.is_finite() {
            return Err(KernelError::NonFinite {
                item: Item::Joint(k),
                time: t.to_f64(),
            });
        }
        if pivot <= R::ZERO {
            // Unreachable for a built model: a valid link has inertia about its axis.
            return Err(KernelError::SingularMatrix { row: k, joint: k });
        }
        w.inertia_axis = u;
        w.inverse_pivot = R::ONE / pivot;
        w.drive = joint_force(link, q, rate, input) - w.axis.dot(w.bias_force);
        if let Some(p) = link.parent.and_then(|p| done.get_mut(p)) {
            let folded = w.inertia.add_outer(u * -w.inverse_pivot, u);
            p.inertia.add_assign(&folded);
            p.bias_force = p.bias_force + w.bias_force + u * (w.drive * w.inverse_pivot);
        }
    }
    for (k, (link, qdd)) in links.iter().zip(accel.iter_mut()).enumerate() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let parent = link
            .parent
            .and_then(|p| done.get(p))
            .map_or(Vec3::ZERO, |p| p.acceleration);
        *qdd = (w.drive - w.inertia_axis.dot(parent)) * w.inverse_pivot;
        w.acceleration = parent + w.axis * *qdd;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{accelerations, Data, Link, Model, Servo};
    use super::*;
    use crate::integrators::Rk4;
    use crate::math::Mat3;
    use crate::{Dynamics, ExternalForces, ExternalLoads, Fixed};

    type Tree = Model<f64, Fixed<6>>;

    /// A branched tree in the plane normal to `a`: hinges about ±a, slides along `slide` (⊥ a),
    /// joint origins and CGs off the plane, inertias not principal about a, a servo and
    /// damping, gravity with a component along a.
    fn planar_tree(a: Vec3<f64>, slide: Vec3<f64>) -> Tree {
        let j = |x: f64, y: f64, z: f64| Mat3::symmetric(Vec3::new(x, y, z), 0.003, -0.002, 0.004);
        let mut b = Model::builder(Vec3::new(1.3, -2.1, -9.6));
        let links = [
            Link::revolute(None, Vec3::new(0.1, -0.05, 0.2), a).with_mass(
                1.2,
                Vec3::new(0.3, 0.05, -0.02),
                j(0.02, 0.03, 0.031),
            ),
            Link::revolute(Some(0), Vec3::new(0.5, 0.08, -0.04), -a)
                .with_mass(0.8, Vec3::new(0.2, -0.03, 0.04), j(0.012, 0.011, 0.012))
                .with_damping(0.02),
            Link::prismatic(Some(1), Vec3::new(0.4, 0.0, 0.1), slide).with_mass(
                0.5,
                Vec3::new(0.05, 0.01, 0.0),
                j(0.01, 0.01, 0.015),
            ),
            Link::revolute(Some(1), Vec3::new(0.35, -0.12, -0.07), a)
                .with_mass(0.6, Vec3::new(0.15, 0.02, 0.01), j(0.01, 0.015, 0.012))
                .with_servo(Servo::Position { kp: 3.0, kd: 0.1 }),
            Link::revolute(Some(0), Vec3::new(-0.2, 0.3, 0.1), a).with_mass(
                0.7,
                Vec3::new(-0.1, 0.2, 0.0),
                j(0.02, 0.01, 0.02),
            ),
        ];
        for link in links {
            b.add_link(link).unwrap();
        }
        b.build().unwrap()
    }

    /// `model` with its plane forgotten: the 3-D algorithm runs.
    fn spatial(model: &Tree) -> Tree {
        let mut m = model.clone();
        m.plane = None;
        m.planar.clear();
        m
    }

    fn data_at(model: &Tree) -> Data<f64, Fixed<6>> {
        let mut data = Data::new(model);
        for k in 0..model.links().len() {
            let k64 = k as f64;
            data.set_position(k, 0.4 - 0.3 * k64).unwrap();
            data.set_velocity(k, 0.6 - 0.25 * k64).unwrap();
            data.set_input(k, 0.05 * k64).unwrap();
        }
        data
    }

    /// The in-plane axes of the trees tested: a world axis, and a skew one (a slide exactly
    /// across each).
    fn planes() -> [(Vec3<f64>, Vec3<f64>); 3] {
        [
            (Vec3::Y, Vec3::X),
            (-Vec3::Z, Vec3::new(0.6, 0.8, 0.0)),
            (Vec3::new(0.6, 0.8, 0.0), Vec3::new(0.8, -0.6, 0.0)),
        ]
    }

    #[test]
    fn planar_and_spatial_algorithms_give_the_same_accelerations() {
        // Reference: the 3-D articulated-body algorithm on the same tree (Featherstone 2008,
        // table 7.1); the planar one must agree to round-off.
        for (a, slide) in planes() {
            let model = planar_tree(a, slide);
            assert!(model.plane.is_some(), "{a:?}");
            let reference = spatial(&model);
            let (mut planar, mut full) = ([0.0; 5], [0.0; 5]);
            accelerations(&model, &mut data_at(&model), &mut planar).unwrap();
            accelerations(&reference, &mut data_at(&reference), &mut full).unwrap();
            let scale = full.iter().fold(0.0f64, |m, x| m.max(x.abs()));
            for (p, f) in planar.iter().zip(full) {
                assert!((p - f).abs() < 1e-12 * scale, "{a:?}: {planar:?} vs {full:?}");
            }
        }
    }

    /// A spring and damper from a fixed anchor to a point off each link's origin, and a
    /// constant torque off the plane: loads that depend on every part of the link states.
    struct Tether;

    impl ExternalForces<f64> for Tether {
        fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
            let anchor = Vec3::new(0.3, -0.4, 0.5);
            for b in 0..loads.body_count() {
                let (Some(x), Some(r)) = (loads.position(b), loads.rotation(b)) else {
                    continue;
                };
                let point = x + r.mul_vec(Vec3::new(0.1, 0.05, -0.02));
                let spin = loads.angular_velocity(b).unwrap_or(Vec3::ZERO);
                let velocity = loads.velocity(b).unwrap_or(Vec3::ZERO) + spin.cross(point - x);
                loads.add_force_at(b, point, (anchor - point) * 2.0 - velocity * 0.3);
                loads.add_torque(b, Vec3::new(0.01, -0.02, 0.03));
            }
        }
    }

    #[test]
    fn planar_steps_with_external_forces_follow_the_spatial_ones() {
        // Reference: 200 RK4 steps of the 3-D algorithm with the same loads.
        for (a, slide) in planes() {
            let model = planar_tree(a, slide);
            let reference = spatial(&model);
            let (mut planar, mut full) = (data_at(&model), data_at(&reference));
            for _ in 0..200 {
                model.step_with(&mut planar, &mut Rk4, 1e-3, &mut Tether).unwrap();
                reference
                    .step_with(&mut full, &mut Rk4, 1e-3, &mut Tether)
                    .unwrap();
            }
            let moved = planar
                .state()
                .iter()
                .zip(data_at(&model).state())
                .any(|(x, x0)| (x - x0).abs() > 0.1);
            assert!(moved, "{a:?}: the tree did not move");
            for (p, f) in planar.state().iter().zip(full.state()) {
                assert!(
                    (p - f).abs() < 1e-11,
                    "{a:?}: {:?} vs {:?}",
                    planar.state(),
                    full.state()
                );
            }
        }
    }

    #[test]
    fn only_trees_in_one_plane_take_the_planar_path() {
        let (a, slide) = (Vec3::Y, Vec3::X);
        assert!(planar_tree(a, slide).plane.is_some());
        let links = |second: Link<f64>| {
            let mut b = Tree::builder(Vec3::new(0.0, 0.0, -9.81));
            let inertia = Mat3::diagonal(Vec3::new(0.01, 0.01, 0.01));
            b.add_link(Link::revolute(None, Vec3::ZERO, a).with_mass(1.0, Vec3::X, inertia))
                .unwrap();
            b.add_link(second.with_mass(1.0, Vec3::X, inertia)).unwrap();
            b.build().unwrap()
        };
        let origin = Vec3::new(1.0, 0.0, 0.0);
        // A hinge off a by a round-off-sized tilt, a slide with a component along a, a ball.
        let tilted = Vec3::new(1e-9, 1.0, 0.0);
        assert!(links(Link::revolute(Some(0), origin, tilted)).plane.is_none());
        assert!(links(Link::prismatic(Some(0), origin, Vec3::new(1.0, 1e-9, 0.0)))
            .plane
            .is_none());
        assert!(links(Link::spherical(Some(0), origin)).plane.is_none());
        assert!(links(Link::revolute(Some(0), origin, -a)).plane.is_some());
        assert!(links(Link::prismatic(Some(0), origin, Vec3::Z)).plane.is_some());
        // The planar work is the data's only for a planar tree.
        let ball = links(Link::spherical(Some(0), origin));
        assert_eq!(Data::new(&ball).planar.len(), 0);
        assert_eq!(Data::new(&planar_tree(a, slide)).planar.len(), 5);
    }
}
