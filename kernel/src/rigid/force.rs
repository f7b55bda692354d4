//! Force elements: applied forces and torques, translational and rotational spring-dampers
//! (between body points, and on a joint's angle or slide).
//! (Gravity is a model setting, applied at every body's CG.)

use super::constraint::SideState;
use super::joint::{Joint, JointKind};
use super::BodyRef;
use crate::math::Vec3;
use crate::time_function::TimeFunction;
use crate::{BuildError, Item, Real};

/// The axes a direction vector is given in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Axes {
    /// Global axes (the direction stays fixed in space).
    Global,
    /// Body axes (the direction turns with the body).
    Body,
}

impl Axes {
    /// The global form of `v`, given in these axes on the body in state `s`.
    fn to_global<R: Real>(self, s: &SideState<R>, v: Vec3<R>) -> Vec3<R> {
        match self {
            Axes::Global => v,
            Axes::Body => s.rot.mul_vec(v),
        }
    }
}

/// A force element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Force<R> {
    /// Force f(t)·direction applied at a point of a body.
    Point {
        /// The body.
        body: usize,
        /// Point of application (body coordinates).
        point: Vec3<R>,
        /// Direction (its length scales the force).
        direction: Vec3<R>,
        /// Axes of `direction`.
        axes: Axes,
        /// Magnitude f(t).
        function: TimeFunction<R>,
    },
    /// Torque f(t)·direction applied to a body.
    Torque {
        /// The body.
        body: usize,
        /// Direction (its length scales the torque).
        direction: Vec3<R>,
        /// Axes of `direction`.
        axes: Axes,
        /// Magnitude f(t).
        function: TimeFunction<R>,
    },
    /// Linear spring-damper between two body points: tension k(l − l0) + c·l̇ along the line.
    SpringDamper {
        /// First body (or ground).
        body_i: BodyRef,
        /// Attachment on the first body (body coordinates; global for the ground).
        point_i: Vec3<R>,
        /// Second body (or ground).
        body_j: BodyRef,
        /// Attachment on the second body.
        point_j: Vec3<R>,
        /// Stiffness k (N/m) ≥ 0.
        stiffness: R,
        /// Damping c (N·s/m) ≥ 0.
        damping: R,
        /// Rest length l0 (m) ≥ 0.
        rest_length: R,
    },
    /// Torsional spring-damper acting on the angle of a revolute (or cylindrical) joint:
    /// torque −k(θ − θ0) − c·θ̇ on body j about z_i, and its reaction on body i.
    RotationalSpringDamper {
        /// Index of the revolute or cylindrical joint.
        joint: usize,
        /// Stiffness k (N·m/rad) ≥ 0.
        stiffness: R,
        /// Damping c (N·m·s/rad) ≥ 0.
        damping: R,
        /// Rest angle θ0 (rad).
        rest_angle: R,
    },
    /// Linear spring-damper acting on the slide s of a prismatic (or cylindrical) joint (origin
    /// j from origin i along z_i, as [`Force::JointLimit`] measures it): force
    /// −k(s − s0) − c·ṡ on body j along z_i at origin j, and its reaction on body i.
    TranslationalSpringDamper {
        /// Index of the prismatic or cylindrical joint.
        joint: usize,
        /// Stiffness k (N/m) ≥ 0.
        stiffness: R,
        /// Damping c (N·s/m) ≥ 0.
        damping: R,
        /// Rest slide s0 (m).
        rest_position: R,
    },
    /// End stops of a revolute joint's angle θ (as for
    /// [`Force::RotationalSpringDamper`], in (−π, π]) or a prismatic joint's slide s (origin j
    /// from origin i along z_i): the joint force of [`crate::JointLimit::force`] on body j about
    /// or along z_i, and its reaction on body i.
    JointLimit {
        /// Index of the revolute or prismatic joint.
        joint: usize,
        /// The range and the end stops.
        limit: crate::JointLimit<R>,
    },
}

/// Generalized force on one body: force (global, at the origin) and torque about the origin
/// (body axes). All zero bits is the default, zero wrench.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Zeroable)]
pub(crate) struct Wrench<R> {
    pub force: Vec3<R>,
    pub torque: Vec3<R>,
}

impl<R: Real> Wrench<R> {
    /// Adds a global force acting at a point with global lever `lever` from the origin.
    pub fn add_force_at(&mut self, s: &SideState<R>, lever: Vec3<R>, f: Vec3<R>) {
        self.force += f;
        self.torque += s.rot.tr_mul_vec(lever.cross(f));
    }
    /// Adds a global torque.
    pub fn add_torque(&mut self, s: &SideState<R>, t: Vec3<R>) {
        self.torque += s.rot.tr_mul_vec(t);
    }
}

impl<R: Real> Force<R> {
    /// Checks parameters and references of force `index`.
    pub fn validate(&self, index: usize, joints: &[Joint<R>], body_count: usize) -> Result<(), BuildError> {
        let item = Item::Force(index);
        let check_body = |b: usize| {
            if b < body_count {
                Ok(())
            } else {
                Err(BuildError::UnknownBody { item, body: b })
            }
        };
        let non_negative = |x: R| x.is_finite() && x >= R::ZERO;
        match *self {
            Self::Point {
                body,
                point,
                direction,
                function,
                ..
            } => {
                check_body(body)?;
                if !point.is_finite() || !direction.is_finite() {
                    return Err(BuildError::NonFinite { item });
                }
                function.validate(item)
            }
            Self::Torque {
                body,
                direction,
                function,
                ..
            } => {
                check_body(body)?;
                if !direction.is_finite() {
                    return Err(BuildError::NonFinite { item });
                }
                function.validate(item)
            }
            Self::SpringDamper {
                body_i,
                point_i,
                body_j,
                point_j,
                stiffness,
                damping,
                rest_length,
            } => {
                for b in [body_i, body_j] {
                    if let BodyRef::Body(b) = b {
                        check_body(b)?;
                    }
                }
                if body_i == body_j {
                    return Err(BuildError::SameBody { item });
                }
                if !point_i.is_finite() || !point_j.is_finite() {
                    return Err(BuildError::NonFinite { item });
                }
                if non_negative(stiffness) && non_negative(damping) && non_negative(rest_length) {
                    Ok(())
                } else {
                    Err(BuildError::InvalidParameter {
                        item,
                        reason: "stiffness, damping, rest length must be ≥ 0",
                    })
                }
            }
            Self::RotationalSpringDamper {
                joint,
                stiffness,
                damping,
                rest_angle: rest,
            }
            | Self::TranslationalSpringDamper {
                joint,
                stiffness,
                damping,
                rest_position: rest,
            } => {
                // The joint's own coordinate: an angle about, or a slide along, z_i.
                let (own, needs) = match self {
                    Self::RotationalSpringDamper { .. } => (
                        JointKind::Revolute,
                        "rotational spring-damper needs a revolute or cylindrical joint",
                    ),
                    _ => (
                        JointKind::Prismatic,
                        "translational spring-damper needs a prismatic or cylindrical joint",
                    ),
                };
                match joints.get(joint).map(|j| j.kind) {
                    Some(kind) if kind == own || kind == JointKind::Cylindrical => {}
                    _ => return Err(BuildError::InvalidParameter { item, reason: needs }),
                }
                if non_negative(stiffness) && non_negative(damping) && rest.is_finite() {
                    Ok(())
                } else {
                    Err(BuildError::InvalidParameter {
                        item,
                        reason: "stiffness and damping must be ≥ 0",
                    })
                }
            }
            Self::JointLimit { joint, limit } => match joints.get(joint).map(|j| j.kind) {
                Some(JointKind::Revolute | JointKind::Prismatic) => limit.validate(item),
                _ => Err(BuildError::InvalidParameter {
                    item,
                    reason: "a joint limit needs a revolute or prismatic joint",
                }),
            },
        }
    }
}

/// Side state of a body reference.
pub(crate) fn side<R: Real>(states: &[SideState<R>], b: BodyRef) -> SideState<R> {
    *side_or(states, b, &SideState::GROUND)
}

/// The state of body reference `b` in `states`, or `ground` for the ground (and an unknown
/// body), borrowed: what is read once per joint and evaluation is not copied.
pub(crate) fn side_or<'a, R: Real>(
    states: &'a [SideState<R>],
    b: BodyRef,
    ground: &'a SideState<R>,
) -> &'a SideState<R> {
    match b {
        BodyRef::Ground => ground,
        BodyRef::Body(i) => states.get(i).unwrap_or(ground),
    }
}

/// Adds `w` to the wrench of body reference `b` (nothing for the ground).
fn add_to<R: Real>(wrenches: &mut [Wrench<R>], b: BodyRef, w: impl FnOnce(&mut Wrench<R>)) {
    if let BodyRef::Body(i) = b {
        if let Some(target) = wrenches.get_mut(i) {
            w(target);
        }
    }
}

/// Line of a spring: length, unit direction i → j, rate of length, levers.
struct SpringLine<R> {
    length: R,
    dir: Vec3<R>,
    rate: R,
    lever_i: Vec3<R>,
    lever_j: Vec3<R>,
}

fn spring_line<R: Real>(si: &SideState<R>, pi: Vec3<R>, sj: &SideState<R>, pj: Vec3<R>) -> SpringLine<R> {
    let (lever_i, lever_j) = (si.rot.mul_vec(pi), sj.rot.mul_vec(pj));
    let d = (sj.x + lever_j) - (si.x + lever_i);
    let d_vel = (sj.v + sj.w.cross(lever_j)) - (si.v + si.w.cross(lever_i));
    let length = d.norm();
    // A spring of zero length has no line of action: it then exerts no force.
    let dir = d.normalized().unwrap_or(Vec3::ZERO);
    SpringLine {
        length,
        dir,
        rate: dir.dot(d_vel),
        lever_i,
        lever_j,
    }
}

/// Relative angle θ (x_i to x_j about z_i, in (−π, π]) and rate θ̇ of a joint's frames.
pub(crate) fn joint_angle<R: Real>(
    joint: &Joint<R>,
    si: &SideState<R>,
    sj: &SideState<R>,
) -> (R, R, Vec3<R>) {
    let ri = si.rot.mul_mat(&joint.frame_i.axes);
    let rj = sj.rot.mul_mat(&joint.frame_j.axes);
    let (xi, yi, zi, xj) = (ri.column(0), ri.column(1), ri.column(2), rj.column(0));
    let theta = yi.dot(xj).atan2(xi.dot(xj));
    let rate = (sj.w - si.w).dot(zi);
    (theta, rate, zi)
}

/// Slide s (origin j from origin i along z_i) and rate ṡ of a prismatic joint's frames, with
/// z_i and the world point (origin j) where the joint force acts.
fn joint_slide<R: Real>(joint: &Joint<R>, si: &SideState<R>, sj: &SideState<R>) -> (R, R, Vec3<R>, Vec3<R>) {
    let zi = si.rot.mul_mat(&joint.frame_i.axes).column(2);
    let (lever_i, lever_j) = (
        si.rot.mul_vec(joint.frame_i.origin),
        sj.rot.mul_vec(joint.frame_j.origin),
    );
    let d = (sj.x + lever_j) - (si.x + lever_i);
    // The point moves with body j; body i's material point under it, at lever d + lever_i.
    let relative = (sj.v + sj.w.cross(lever_j)) - (si.v + si.w.cross(d + lever_i));
    (zi.dot(d), zi.dot(relative), zi, sj.x + lever_j)
}

/// Adds a joint force `f` (global) on body j at world `point` (origin j) and its reaction on
/// body i.
fn slide_force<R: Real>(
    wrenches: &mut [Wrench<R>],
    j: &Joint<R>,
    (si, sj): (&SideState<R>, &SideState<R>),
    point: Vec3<R>,
    f: Vec3<R>,
) {
    add_to(wrenches, j.body_j, |w| w.add_force_at(sj, point - sj.x, f));
    add_to(wrenches, j.body_i, |w| w.add_force_at(si, point - si.x, -f));
}

/// The joint coordinate of a revolute (θ) or prismatic (s) joint and its rate, or `None` for
/// other kinds.
pub(crate) fn limited_coordinate<R: Real>(
    joint: &Joint<R>,
    si: &SideState<R>,
    sj: &SideState<R>,
) -> Option<(R, R)> {
    match joint.kind {
        JointKind::Revolute => {
            let (theta, rate, _) = joint_angle(joint, si, sj);
            Some((theta, rate))
        }
        JointKind::Prismatic => {
            let (slide, rate, _, _) = joint_slide(joint, si, sj);
            Some((slide, rate))
        }
        _ => None,
    }
}

impl<R: Real> Force<R> {
    /// Adds this element's generalized forces at time `t` to `wrenches`.
    pub(crate) fn apply(
        &self,
        t: R,
        joints: &[Joint<R>],
        states: &[SideState<R>],
        wrenches: &mut [Wrench<R>],
    ) {
        match *self {
            Self::Point {
                body,
                point,
                direction,
                axes,
                function,
            } => {
                let s = side(states, BodyRef::Body(body));
                let f = axes.to_global(&s, direction) * function.eval(t).value;
                add_to(wrenches, BodyRef::Body(body), |w| {
                    w.add_force_at(&s, s.rot.mul_vec(point), f)
                });
            }
            Self::Torque {
                body,
                direction,
                axes,
                function,
            } => {
                let s = side(states, BodyRef::Body(body));
                let dir = axes.to_global(&s, direction);
                add_to(wrenches, BodyRef::Body(body), |w| {
                    w.add_torque(&s, dir * function.eval(t).value)
                });
            }
            Self::SpringDamper {
                body_i,
                point_i,
                body_j,
                point_j,
                stiffness,
                damping,
                rest_length,
            } => {
                let (si, sj) = (side(states, body_i), side(states, body_j));
                let line = spring_line(&si, point_i, &sj, point_j);
                let tension = stiffness * (line.length - rest_length) + damping * line.rate;
                let f = line.dir * tension;
                add_to(wrenches, body_i, |w| w.add_force_at(&si, line.lever_i, f));
                add_to(wrenches, body_j, |w| w.add_force_at(&sj, line.lever_j, -f));
            }
            Self::RotationalSpringDamper {
                joint,
                stiffness,
                damping,
                rest_angle,
            } => {
                if let Some(j) = joints.get(joint) {
                    let (si, sj) = (side(states, j.body_i), side(states, j.body_j));
                    let (theta, rate, axis) = joint_angle(j, &si, &sj);
                    let torque = axis * (-(stiffness * (theta - rest_angle)) - damping * rate);
                    add_to(wrenches, j.body_j, |w| w.add_torque(&sj, torque));
                    add_to(wrenches, j.body_i, |w| w.add_torque(&si, -torque));
                }
            }
            Self::TranslationalSpringDamper {
                joint,
                stiffness,
                damping,
                rest_position,
            } => {
                if let Some(j) = joints.get(joint) {
                    let (si, sj) = (side(states, j.body_i), side(states, j.body_j));
                    let (slide, rate, axis, point) = joint_slide(j, &si, &sj);
                    let f = -(stiffness * (slide - rest_position)) - damping * rate;
                    slide_force(wrenches, j, (&si, &sj), point, axis * f);
                }
            }
            Self::JointLimit { joint, limit } => {
                let Some(j) = joints.get(joint) else { return };
                let (si, sj) = (side(states, j.body_i), side(states, j.body_j));
                if j.kind == JointKind::Prismatic {
                    let (slide, rate, axis, point) = joint_slide(j, &si, &sj);
                    slide_force(wrenches, j, (&si, &sj), point, axis * limit.force(slide, rate));
                } else {
                    let (theta, rate, axis) = joint_angle(j, &si, &sj);
                    let torque = axis * limit.force(theta, rate);
                    add_to(wrenches, j.body_j, |w| w.add_torque(&sj, torque));
                    add_to(wrenches, j.body_i, |w| w.add_torque(&si, -torque));
                }
            }
        }
    }

    /// Potential energy stored in this element (springs; zero for applied loads).
    pub(crate) fn potential_energy(&self, joints: &[Joint<R>], side: impl Fn(BodyRef) -> SideState<R>) -> R {
        match *self {
            Self::SpringDamper {
                body_i,
                point_i,
                body_j,
                point_j,
                stiffness,
                rest_length,
                ..
            } => {
                let line = spring_line(&side(body_i), point_i, &side(body_j), point_j);
                R::HALF * stiffness * (line.length - rest_length).squared()
            }
            Self::RotationalSpringDamper {
                joint,
                stiffness,
                rest_angle,
                ..
            } => match joints.get(joint) {
                Some(j) => {
                    let (theta, _, _) = joint_angle(j, &side(j.body_i), &side(j.body_j));
                    R::HALF * stiffness * (theta - rest_angle).squared()
                }
                None => R::ZERO,
            },
            Self::TranslationalSpringDamper {
                joint,
                stiffness,
                rest_position,
                ..
            } => match joints.get(joint) {
                Some(j) => {
                    let (slide, _, _, _) = joint_slide(j, &side(j.body_i), &side(j.body_j));
                    R::HALF * stiffness * (slide - rest_position).squared()
                }
                None => R::ZERO,
            },
            Self::JointLimit { joint, limit } => joints
                .get(joint)
                .and_then(|j| limited_coordinate(j, &side(j.body_i), &side(j.body_j)))
                .map_or(R::ZERO, |(q, _)| limit.energy(q)),
            _ => R::ZERO,
        }
    }
}
