//! Forward kinematics and Featherstone's articulated-body algorithm (ABA): joint accelerations
//! in O(n) (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §7.3, table 7.1), with every
//! spatial quantity in world axes about the world origin.

use super::joint::{self, vec_at, Ldl, Subspace, MAX_DOF};
use super::loops::Loops;
use super::planar::{self, PlanarLink, PlanarWork, Plane};
use super::servo::{joint_force, spring_energy};
use super::shape::LinkShape;
use super::spatial::{Spatial, SpatialInertia, Sym3};
use super::tendon::{self, Tendon};
use super::{Data, Link, Model, MultiJoint, TreeJoint};
use crate::dynamics::check_state;
use crate::math::{Mat3, Quat, Vec3};
use crate::rigid::{SideState, Wrench};
use crate::storage::{sized, Storage};
use crate::{
    Dynamics, Energy, ExternalForces, ExternalLoads, Integrator, Item, KernelError, OdeSystem, Real, Stages,
    StepStats,
};

/// Where a link is: its frame's origin and axes (link → world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose<R> {
    /// Origin of the link frame (on the joint), world coordinates.
    pub origin: Vec3<R>,
    /// Rotation link → world.
    pub rotation: Mat3<R>,
}

impl<R: Real> Default for Pose<R> {
    fn default() -> Self {
        Self {
            origin: Vec3::ZERO,
            rotation: Mat3::IDENTITY,
        }
    }
}

impl<R: Real> Pose<R> {
    /// World position of a point given in the link frame.
    pub fn point(&self, local: Vec3<R>) -> Vec3<R> {
        self.origin + self.rotation.mul_vec(local)
    }
}

/// Pose, joint motion subspace and spatial velocity of a link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LinkMotion<R> {
    pub pose: Pose<R>,
    /// The joint's motion subspace S: the link's spatial velocity per unit joint rate (the
    /// first column of S for a multi-DOF joint, whose S is [`Subspace`]).
    pub axis: Spatial<R>,
    pub velocity: Spatial<R>,
}

/// Workspace of the articulated-body algorithm for one link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LinkWork<R> {
    pub motion: LinkMotion<R>,
    /// Sine and cosine of a revolute joint's angle, all taken before the kinematics: the calls
    /// do not depend on each other, so an out-of-order core overlaps them (inside the
    /// kinematics each waited on its link's).
    turn: (R, R),
    /// a⁰: the link's acceleration were every q̈ zero (gravity as an upward base acceleration
    /// and the velocity products c = v ×ₘ S q̇ of the path from the base). The algorithm
    /// solves for the rest, ã = a − a⁰ = ã_parent + S q̈: no c is left to carry through
    /// passes 2 and 3 (I^A c, Uᵀ c), and a⁰ enters once per link, through its rigid inertia.
    pub(super) bias_acceleration: Spatial<R>,
    /// Articulated inertia I^A (rigid inertia until the tips have been folded in).
    pub(super) inertia: SpatialInertia<R>,
    /// Articulated bias force p^A (from the rigid p = I a⁰ + v ×* I v − fˣ).
    bias_force: Spatial<R>,
    /// U = I^A S.
    inertia_axis: Spatial<R>,
    /// 1 / (Sᵀ U).
    inverse_pivot: R,
    /// u = τ − damping·q̇ − Sᵀ p^A.
    drive: R,
    /// ã = a − a⁰.
    acceleration: Spatial<R>,
    /// Uᵀ S_parent: how the parent's q̈ enters this joint's (pass 3, [`scalar_acceleration`]).
    parent_coupling: R,
    /// q̈ of a 1-DOF joint.
    joint_acceleration: R,
    /// The fixed tendons' generalized force on a 1-DOF joint (zero without tendons).
    pub(super) tendon_force: R,
}

impl<R: Real> Default for LinkMotion<R> {
    /// The ground: at the origin, at rest.
    fn default() -> Self {
        Self {
            pose: Pose::default(),
            axis: Spatial::ZERO,
            velocity: Spatial::ZERO,
        }
    }
}

impl<R: Real> Default for LinkWork<R> {
    fn default() -> Self {
        Self {
            motion: LinkMotion::default(),
            turn: (R::ZERO, R::ONE),
            bias_acceleration: Spatial::ZERO,
            inertia: SpatialInertia::ZERO,
            bias_force: Spatial::ZERO,
            inertia_axis: Spatial::ZERO,
            inverse_pivot: R::ZERO,
            drive: R::ZERO,
            acceleration: Spatial::ZERO,
            parent_coupling: R::ZERO,
            joint_acceleration: R::ZERO,
            tendon_force: R::ZERO,
        }
    }
}

/// The rotation about the unit `axis` by the angle of `sin` and `cos` (Rodrigues:
/// cos·I + sin·[a]× + (1 − cos)·a aᵀ, built entry by entry: 12 products, not 36).
#[inline(always)]
pub(crate) fn rotation<R: Real>(axis: Vec3<R>, sin: R, cos: R) -> Mat3<R> {
    let ta = axis * (R::ONE - cos);
    let sa = axis * sin;
    let (xy, xz, yz) = (ta.x * axis.y, ta.x * axis.z, ta.y * axis.z);
    Mat3::from_rows([
        [ta.x * axis.x + cos, xy - sa.z, xz + sa.y],
        [xy + sa.z, ta.y * axis.y + cos, yz - sa.x],
        [xz - sa.y, yz + sa.x, ta.z * axis.z + cos],
    ])
}

/// `r · Rot(eᵢ, θ)` from sin θ and cos θ into `out`: a plane rotation of the two other columns
/// of `r` (12 products instead of the 39 of Rodrigues and a matrix product). The same bits as
/// those except column i, which stays exact where Rodrigues gives (1 − cos) + cos. Written
/// entry by entry into `out`: a returned matrix is copied with `memcpy` on the Cortex-M7 (f64).
#[inline(always)]
fn turn_about_column<R: Real>(out: &mut Mat3<R>, r: &Mat3<R>, i: usize, sin: R, cos: R) {
    match i {
        0 => plane_rotation::<R, 0, 1, 2>(out, r, sin, cos),
        1 => plane_rotation::<R, 1, 2, 0>(out, r, sin, cos),
        _ => plane_rotation::<R, 2, 0, 1>(out, r, sin, cos),
    }
}

/// Column I of `r` kept, columns J and K turned in their plane (constant indices: straight-line
/// code).
#[inline(always)]
fn plane_rotation<R: Real, const I: usize, const J: usize, const K: usize>(
    out: &mut Mat3<R>,
    r: &Mat3<R>,
    sin: R,
    cos: R,
) {
    for (o, row) in out.m.iter_mut().zip(r.m.iter()) {
        let (a, b) = (row[J], row[K]);
        o[I] = row[I];
        o[J] = a * cos + b * sin;
        o[K] = b * cos - a * sin;
    }
}

/// The motion of `link` into `me` given its parent's (`None`: the ground, at rest at the world
/// origin) and its joint's coordinate `q` (the sine and cosine `turn` of it for a revolute
/// joint) and rate; `shape` says which of the link's vectors lie along a frame axis. Returns the
/// joint's relative velocity S q̇.
/// A root's frame is the world's: no product with an identity rotation, and no ground motion
/// materialised (on the Cortex-M7 that cost a clear and three copies of it per evaluation).
#[inline(always)]
fn link_motion<R: Real>(
    link: &Link<R>,
    shape: LinkShape,
    parent: Option<&LinkMotion<R>>,
    q: R,
    (sin, cos): (R, R),
    rate: R,
    me: &mut LinkMotion<R>,
) -> Spatial<R> {
    let aligned = shape.axis.signed(link.axis);
    let axis = match (parent, aligned) {
        (None, _) => link.axis,
        (Some(p), Some((i, sign))) => p.pose.rotation.column(i) * sign,
        (Some(p), None) => p.pose.rotation.mul_vec(link.axis),
    };
    match link.joint {
        TreeJoint::Revolute => {
            let origin = parent.map_or(link.origin, |p| {
                p.pose.origin + shape.origin.turn(&p.pose.rotation, link.origin)
            });
            match (parent, aligned) {
                (None, _) => me.pose.rotation = rotation(link.axis, sin, cos),
                (Some(p), Some((i, sign))) => {
                    turn_about_column(&mut me.pose.rotation, &p.pose.rotation, i, sin * sign, cos)
                }
                (Some(p), None) => me.pose.rotation = p.pose.rotation.mul_mat(&rotation(link.axis, sin, cos)),
            }
            me.pose.origin = origin;
            // Turning about the line through `origin` moves the point at the world origin
            // with origin × axis.
            me.axis = Spatial::new(axis, origin.cross(axis));
        }
        TreeJoint::Prismatic => {
            let slid = link.origin + link.axis * q;
            me.pose.origin = parent.map_or(slid, |p| p.pose.point(slid));
            me.pose.rotation = parent.map_or(Mat3::IDENTITY, |p| p.pose.rotation);
            me.axis = Spatial::new(Vec3::ZERO, axis);
        }
    }
    let relative = me.axis.scale(rate);
    me.velocity = parent.map_or(relative, |p| p.velocity.add(relative));
    relative
}

/// The motion of a link on the multi-DOF `joint` given its parent's and the joint's position
/// coordinates `q` and velocity coordinates `rate`. Out of line, as every multi-DOF part of the
/// algorithm: the 1-DOF path is then compiled as it was without them (inlined helpers).
#[inline(never)]
fn multi_motion<R: Real>(
    link: &Link<R>,
    joint: MultiJoint,
    parent: &LinkMotion<R>,
    q: &[R],
    rate: &[R],
) -> LinkMotion<R> {
    let pose = joint::pose(link, joint, &parent.pose, q);
    let subspace = Subspace::of(link, joint, &parent.pose, &pose);
    LinkMotion {
        pose,
        axis: subspace.columns[0],
        velocity: parent.velocity.add(subspace.times(rate)),
    }
}

/// Forward kinematics, base to tips: `motions[k]` for every link from the position
/// coordinates `q` and velocity coordinates `rate`.
pub(super) fn kinematics<R: Real, M: AsMut<LinkMotion<R>> + AsRef<LinkMotion<R>>>(
    links: &[Link<R>],
    shapes: &[LinkShape],
    q: &[R],
    rate: &[R],
    motions: &mut [M],
) {
    let (mut at_q, mut at_v) = (0, 0);
    for (k, (link, &shape)) in links.iter().zip(shapes).enumerate() {
        let Some((done, [me, ..])) = motions.split_at_mut_checked(k) else {
            return;
        };
        let parent = link.parent.and_then(|p| done.get(p)).map(AsRef::as_ref);
        // The ground's motion is made where it is used (only a root reads it): built once
        // before the loop it costs a 96-byte clear per evaluation on a Cortex-M.
        match link.multi {
            None => {
                let (Some(&q), Some(&rate)) = (q.get(at_q), rate.get(at_v)) else {
                    return;
                };
                at_q += 1;
                at_v += 1;
                let turn = match link.joint {
                    TreeJoint::Revolute => q.sin_cos(),
                    TreeJoint::Prismatic => (R::ZERO, R::ONE),
                };
                link_motion(link, shape, parent, q, turn, rate, me.as_mut());
            }
            Some(joint) => {
                let (nq, nv) = (joint.positions(), joint.velocities());
                let (Some(q), Some(rate)) = (q.get(at_q..at_q + nq), rate.get(at_v..at_v + nv)) else {
                    return;
                };
                at_q += nq;
                at_v += nv;
                *me.as_mut() = multi_motion(link, joint, parent.unwrap_or(&LinkMotion::default()), q, rate);
            }
        }
    }
}

impl<R> AsRef<LinkMotion<R>> for LinkMotion<R> {
    fn as_ref(&self) -> &Self {
        self
    }
}
impl<R> AsMut<LinkMotion<R>> for LinkMotion<R> {
    fn as_mut(&mut self) -> &mut Self {
        self
    }
}
impl<R> AsRef<LinkMotion<R>> for LinkWork<R> {
    fn as_ref(&self) -> &LinkMotion<R> {
        &self.motion
    }
}
impl<R> AsMut<LinkMotion<R>> for LinkWork<R> {
    fn as_mut(&mut self) -> &mut LinkMotion<R> {
        &mut self.motion
    }
}

/// The CG of `link` at `pose` (world) and its inertia about the CG in world axes.
#[inline(always)]
fn placed_inertia<R: Real>(link: &Link<R>, shape: LinkShape, pose: &Pose<R>) -> (Vec3<R>, Sym3<R>) {
    let cg = pose.origin + shape.cg.turn(&pose.rotation, link.cg);
    (
        cg,
        Sym3::from_upper(&link.inertia).rotated(&pose.rotation, shape.inertia),
    )
}

/// Rigid spatial inertia of `link` at `pose` (world axes, about the world origin) and its
/// first moment m c (world).
#[inline(always)]
pub(super) fn rigid_inertia<R: Real>(
    link: &Link<R>,
    shape: LinkShape,
    pose: &Pose<R>,
) -> (SpatialInertia<R>, Vec3<R>) {
    let (cg, inertia_cg) = placed_inertia(link, shape, pose);
    (SpatialInertia::rigid(link.mass, cg, &inertia_cg), cg * link.mass)
}

/// Pass 1 of the articulated-body algorithm for one link at its motion and a⁰ in `w`: the
/// rigid inertia (the articulated one before the children are folded in) and the bias force
/// p = I a⁰ + v ×* I v, formed as Newton–Euler about the CG and moved to the world origin:
/// f = m a_c with a_c = a⁰_O + α⁰ × c + ω × v_c the CG's classical acceleration at q̈ = 0,
/// n = J_c α⁰ + ω × J_c ω + c × f (the same p as the spatial products, 90 products and sums
/// instead of 120). A 1-DOF root's a⁰ is the base's (see [`first_acceleration`]), a pure
/// linear acceleration: its α⁰ terms are skipped.
#[inline(always)]
fn rigid_terms<R: Real>(link: &Link<R>, shape: LinkShape, w: &mut LinkWork<R>, linear_only: bool) {
    let m = &w.motion;
    let (cg, inertia_cg) = placed_inertia(link, shape, &m.pose);
    let (omega, a) = (m.velocity.angular, w.bias_acceleration);
    let cg_velocity = m.velocity.linear + omega.cross(cg);
    let spin = omega.cross(inertia_cg.mul_vec(omega));
    let (cg_acceleration, moment_cg) = if linear_only {
        (a.linear + omega.cross(cg_velocity), spin)
    } else {
        (
            a.linear + a.angular.cross(cg) + omega.cross(cg_velocity),
            inertia_cg.mul_vec(a.angular) + spin,
        )
    };
    let force = cg_acceleration * link.mass;
    w.bias_force = Spatial::new(moment_cg + cg.cross(force), force);
    w.inertia = SpatialInertia::rigid(link.mass, cg, &inertia_cg);
}

/// a⁰ of a link on a 1-DOF joint: its parent's plus the velocity product v ×ₘ S q̇ (`relative`
/// = S q̇), or the `base` acceleration for a root, whose velocity is S q̇ itself (the product
/// vanishes).
#[inline(always)]
pub(super) fn first_acceleration<R: Real>(
    parent: Option<&LinkWork<R>>,
    velocity: Spatial<R>,
    relative: Spatial<R>,
    base: Spatial<R>,
) -> Spatial<R> {
    parent.map_or(base, |p| p.bias_acceleration.add(velocity.cross_motion(relative)))
}

/// External forces on the links of one evaluation: the source, and the link states and wrenches
/// it reads and writes.
struct LinkLoads<'a, R> {
    source: &'a mut dyn ExternalForces<R>,
    sides: &'a mut [SideState<R>],
    wrench: &'a mut [Wrench<R>],
}

impl<R: Real> LinkLoads<'_, R> {
    /// Shows the source the accepted state: the link motions of `work` at time `t`.
    fn accept(&mut self, t: R, work: &[LinkWork<R>]) {
        for (side, w) in self.sides.iter_mut().zip(work.iter()) {
            *side = link_state(&w.motion).side();
        }
        self.source
            .accept(t, &ExternalLoads::bodies(self.sides, self.wrench));
    }

    /// Asks the source for its wrenches at the link motions of `work` and subtracts them, as
    /// spatial forces about the world origin, from the links' bias forces (Featherstone 2008,
    /// eq. 7.40: p = v ×* I v − fˣ).
    fn apply(&mut self, t: R, work: &mut [LinkWork<R>]) {
        for ((side, wrench), w) in self.sides.iter_mut().zip(self.wrench.iter_mut()).zip(work.iter()) {
            *side = link_state(&w.motion).side();
            *wrench = Wrench::default();
        }
        self.source
            .apply(t, &mut ExternalLoads::bodies(self.sides, self.wrench));
        for ((side, wrench), w) in self.sides.iter().zip(self.wrench.iter()).zip(work.iter_mut()) {
            // The wrench holds the force (global) and its moment about the link origin (link axes).
            let moment = side.rot.mul_vec(wrench.torque) + side.x.cross(wrench.force);
            w.bias_force = w.bias_force.sub(Spatial::new(moment, wrench.force));
        }
    }
}

/// The articulated-body algorithm: accelerations `accel` (nv) of the velocity coordinates from
/// the position coordinates `q` (nq), velocity coordinates `rate` and inputs `input` (nv), with
/// external forces from `loads`, at time `t`. A 1-DOF joint takes the scalar path of the
/// algorithm; a multi-DOF joint its k × k generalisation ([`multi_pivot`]). Out of line, so
/// that the stack frame of a step of a 1-DOF tree ([`joint_accelerations_1dof`]) does not hold
/// its locals.
#[inline(never)]
fn joint_accelerations<R: Real>(
    t: R,
    (links, shapes): (&[Link<R>], &[LinkShape]),
    gravity: Vec3<R>,
    (q, rate, input): (&[R], &[R], &[R]),
    work: &mut [LinkWork<R>],
    loads: Option<&mut LinkLoads<'_, R>>,
    accel: &mut [R],
) -> Result<(), KernelError> {
    kinematics(links, shapes, q, rate, work);
    // Pass 1, base to tips: a⁰ (gravity enters as an upward base acceleration), rigid
    // inertias and bias forces.
    let base = Spatial::new(Vec3::ZERO, -gravity);
    let mut at_v = 0;
    for (k, (link, &shape)) in links.iter().zip(shapes).enumerate() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let m = &w.motion;
        let parent = link.parent.and_then(|p| done.get(p));
        w.bias_acceleration = match link.multi {
            None => {
                let rate = rate.get(at_v).copied().unwrap_or(R::ZERO);
                at_v += 1;
                first_acceleration(parent, m.velocity, m.axis.scale(rate), base)
            }
            Some(joint) => {
                let nv = joint.velocities();
                let rate = rate.get(at_v..at_v + nv).unwrap_or_default();
                at_v += nv;
                let a = parent.map_or(base, |p| p.bias_acceleration);
                a.add(multi_bias(link, joint, done, m, rate))
            }
        };
        rigid_terms(link, shape, w, link.multi.is_none() && parent.is_none());
    }
    if let Some(loads) = loads {
        loads.apply(t, work);
    }
    // Pass 2, tips to base: fold each articulated body into its parent.
    let (mut end_q, mut end_v) = (q.len(), rate.len());
    for (k, link) in links.iter().enumerate().rev() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        end_q = end_q.wrapping_sub(link.position_count());
        let Some(joint) = link.multi else {
            end_v = end_v.wrapping_sub(1);
            let (Some(&q), Some(&rate), Some(&input)) = (q.get(end_q), rate.get(end_v), input.get(end_v))
            else {
                return Err(KernelError::StateSizeMismatch);
            };
            let parent = link.parent.and_then(|p| done.get_mut(p));
            pivot_and_fold(w, parent, link, (q, rate, input), (end_v, k), t)?;
            continue;
        };
        end_v = end_v.wrapping_sub(joint.velocities());
        multi_fold(t, (k, end_v), link, joint, done, w, (rate, input))?;
    }
    // Pass 3, base to tips: accelerations ã = a − a⁰ (zero at the base).
    let mut at_v = 0;
    for (k, link) in links.iter().enumerate() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let Some(joint) = link.multi else {
            let qdd = accel.get_mut(at_v).ok_or(KernelError::StateSizeMismatch)?;
            at_v += 1;
            *qdd = scalar_acceleration(links, link, done, w);
            continue;
        };
        let a = link
            .parent
            .and_then(|p| done.get(p))
            .map_or(Spatial::ZERO, |p| p.acceleration);
        let nv = joint.velocities();
        let qdd = accel
            .get_mut(at_v..at_v + nv)
            .ok_or(KernelError::StateSizeMismatch)?;
        w.acceleration = multi_acceleration(t, (k, at_v), link, joint, done, w, (rate, input), a, qdd)?;
        at_v += nv;
    }
    Ok(())
}

/// Pass 2 for the 1-DOF joint of link `k` (velocity coordinate `row`): its pivot
/// ([`scalar_pivot`]) and the fold of its articulated body into `parent` ([`fold`]).
#[inline(always)]
fn pivot_and_fold<R: Real>(
    w: &mut LinkWork<R>,
    parent: Option<&mut LinkWork<R>>,
    link: &Link<R>,
    inputs: (R, R, R),
    at: (usize, usize),
    t: R,
) -> Result<(), KernelError> {
    scalar_pivot(w, link, inputs, at, t)?;
    if let Some(parent) = parent {
        w.parent_coupling = w.inertia_axis.dot(parent.motion.axis);
        fold(w, parent);
    }
    Ok(())
}

/// Pass 3 for the 1-DOF joint of `link` (pass 2 done; `done` the links before it): its
/// q̈ = (u − Uᵀ ã_parent) / D, and the link's ã = ã_parent + S q̈. Below a 1-DOF parent,
/// Uᵀ ã_parent is split into Uᵀ ã_grandparent + (Uᵀ S_parent) q̈_parent: the first part does
/// not wait for the parent's q̈, so the serial path from base to tips is a product and a
/// difference a link instead of a six-term dot product (pass 3 took a tenth of a 20-link
/// step on x86-64, waiting on that path).
#[inline(always)]
fn scalar_acceleration<R: Real>(
    links: &[Link<R>],
    link: &Link<R>,
    done: &[LinkWork<R>],
    w: &mut LinkWork<R>,
) -> R {
    let parent = link.parent.and_then(|p| Some((links.get(p)?, done.get(p)?)));
    let (qdd, a) = match parent {
        None => (w.drive * w.inverse_pivot, Spatial::ZERO),
        Some((parent_link, p)) if parent_link.multi.is_none() => {
            let grandparent = parent_link.parent.and_then(|g| done.get(g));
            let free = w.drive - grandparent.map_or(R::ZERO, |g| w.inertia_axis.dot(g.acceleration));
            let qdd = (free - w.parent_coupling * p.joint_acceleration) * w.inverse_pivot;
            (qdd, p.acceleration)
        }
        Some((_, p)) => (
            (w.drive - w.inertia_axis.dot(p.acceleration)) * w.inverse_pivot,
            p.acceleration,
        ),
    };
    w.joint_acceleration = qdd;
    w.acceleration = a.add(w.motion.axis.scale(qdd));
    qdd
}

/// The articulated pivot of a 1-DOF joint on link `k` (velocity coordinate `row`): its inertia
/// along the axis, the inverse pivot and the joint's drive (joint force − bias) at coordinate
/// `q`, rate `rate` and input `input`.
#[inline(always)]
fn scalar_pivot<R: Real>(
    w: &mut LinkWork<R>,
    link: &Link<R>,
    (q, rate, input): (R, R, R),
    (row, k): (usize, usize),
    t: R,
) -> Result<(), KernelError> {
    let axis = w.motion.axis;
    let u = w.inertia.apply(axis);
    // The rotor inertia adds to the pivot alone (D = Sᵀ I^A S + armature): it turns with the
    // coordinate, not with the link. A positive pivot plus +0 is the same bits, so links
    // without armature step as before.
    let pivot = axis.dot(u) + link.armature;
    if !pivot.is_finite() {
        return Err(KernelError::NonFinite {
            item: Item::Joint(k),
            time: t.to_f64(),
        });
    }
    if pivot <= R::ZERO {
        // Unreachable for a built model: a valid link has inertia about its axis.
        return Err(KernelError::SingularMatrix { row, joint: k });
    }
    w.inertia_axis = u;
    w.inverse_pivot = R::ONE / pivot;
    let force = joint_force(link, q, rate, input);
    // Added only where a tendon pulls, so trees without tendons keep their bits.
    let force = if w.tendon_force == R::ZERO {
        force
    } else {
        force + w.tendon_force
    };
    w.drive = force - axis.dot(w.bias_force);
    Ok(())
}

/// Folds the articulated body of a 1-DOF link (`w`, pass 2 done) into its `parent`:
/// I^A_parent += I^A − U Uᵀ / D and p^A_parent += p^A + U u / D (no velocity-product term:
/// it is in a⁰, see [`LinkWork`]).
#[inline(always)]
fn fold<R: Real>(w: &LinkWork<R>, parent: &mut LinkWork<R>) {
    let u = w.inertia_axis;
    let bias = w.bias_force.add(u.scale(w.drive * w.inverse_pivot));
    w.inertia.fold_into(u, w.inverse_pivot, &mut parent.inertia);
    parent.bias_force = parent.bias_force.add(bias);
}

/// The velocity-product acceleration Ṡ q̇ of `link` on the multi-DOF `joint` at motion `m`
/// and rates `rate`.
#[inline(never)]
fn multi_bias<R: Real>(
    link: &Link<R>,
    joint: MultiJoint,
    done: &[LinkWork<R>],
    m: &LinkMotion<R>,
    rate: &[R],
) -> Spatial<R> {
    Subspace::of(link, joint, &parent_pose(link, done), &m.pose).bias(m.velocity, rate)
}

/// The pose of `link`'s parent (the ground's for a root), from the links before it.
pub(super) fn parent_pose<R: Real>(link: &Link<R>, done: &[LinkWork<R>]) -> Pose<R> {
    link.parent
        .and_then(|p| done.get(p))
        .map_or(Pose::default(), |p| p.motion.pose)
}

/// The articulated-body quantities of a multi-DOF joint (Featherstone 2008, table 7.1):
/// S, U = I^A S, D = Sᵀ U + armature·1 (factored) and u = τ − damping·q̇ − Sᵀ p^A.
struct MultiPivot<R> {
    subspace: Subspace<R>,
    inertia_axes: [Spatial<R>; MAX_DOF],
    factors: Ldl<R>,
    drive: [R; MAX_DOF],
}

/// [`MultiPivot`] of link `k` on `joint`, its velocity coordinates from `first` on, at the
/// articulated inertia and bias force in `w` (final once pass 2 has reached the link, so pass 3
/// recomputes rather than stores it). A D that is not positive definite is
/// [`KernelError::SingularMatrix`] naming the joint and its velocity coordinate.
fn multi_pivot<R: Real>(
    t: R,
    (k, first): (usize, usize),
    link: &Link<R>,
    joint: MultiJoint,
    done: &[LinkWork<R>],
    w: &LinkWork<R>,
    (rate, input): (&[R], &[R]),
) -> Result<MultiPivot<R>, KernelError> {
    let nv = joint.velocities();
    let (Some(rate), Some(input)) = (rate.get(first..first + nv), input.get(first..first + nv)) else {
        return Err(KernelError::StateSizeMismatch);
    };
    let subspace = Subspace::of(link, joint, &parent_pose(link, done), &w.motion.pose);
    let mut inertia_axes = [Spatial::ZERO; MAX_DOF];
    let mut d = [[R::ZERO; MAX_DOF]; MAX_DOF];
    let mut drive = [R::ZERO; MAX_DOF];
    let columns = subspace.used();
    for (i, (s, u)) in columns.iter().zip(inertia_axes.iter_mut()).enumerate() {
        *u = w.inertia.apply(*s);
        for (row, s_row) in d.iter_mut().zip(columns) {
            if let Some(e) = row.get_mut(i) {
                *e = s_row.dot(*u);
            }
        }
    }
    if link.armature != R::ZERO {
        for (i, row) in d.iter_mut().enumerate().take(subspace.dof) {
            if let Some(e) = row.get_mut(i) {
                *e += link.armature;
            }
        }
    }
    for ((u, s), (&rate, &input)) in drive.iter_mut().zip(columns).zip(rate.iter().zip(input)) {
        *u = input - link.damping * rate - s.dot(w.bias_force);
    }
    if !d.iter().flatten().all(|x| x.is_finite()) {
        return Err(KernelError::NonFinite {
            item: Item::Joint(k),
            time: t.to_f64(),
        });
    }
    let factors = Ldl::factor(&d, subspace.dof).map_err(|j| KernelError::SingularMatrix {
        row: first + j,
        joint: k,
    })?;
    Ok(MultiPivot {
        subspace,
        inertia_axes,
        factors,
        drive,
    })
}

/// Pass 2 for link `k` on the multi-DOF `joint` (velocity coordinates from `first` on): folds
/// the articulated inertia I^A − U D⁻¹ Uᵀ (k rank-one updates with the columns of U L⁻ᵀ,
/// D = L Δ Lᵀ) and the bias force p^A + U D⁻¹ u into the parent in `done`. Out of line,
/// so that the 1-DOF path's stack frame does not hold the k × k workspace.
#[inline(never)]
fn multi_fold<R: Real>(
    t: R,
    at: (usize, usize),
    link: &Link<R>,
    joint: MultiJoint,
    done: &mut [LinkWork<R>],
    w: &LinkWork<R>,
    inputs: (&[R], &[R]),
) -> Result<(), KernelError> {
    let pivot = multi_pivot(t, at, link, joint, done, w, inputs)?;
    let Some(parent) = link.parent.and_then(|p| done.get_mut(p)) else {
        return Ok(());
    };
    let dof = pivot.subspace.dof.min(MAX_DOF);
    let f = &pivot.factors;
    let mut scaled = pivot.inertia_axes;
    let mut articulated = w.inertia;
    for j in 0..dof {
        for i in 0..j {
            scaled[j] = scaled[j].sub(scaled[i].scale(f.lower[j][i]));
        }
        articulated = articulated.sub_outer(scaled[j], R::ONE / f.pivots[j]);
    }
    let x = f.solve(&pivot.drive);
    let bias = pivot
        .inertia_axes
        .iter()
        .zip(x.iter())
        .take(dof)
        .fold(w.bias_force, |sum, (u, &x)| sum.add(u.scale(x)));
    parent.inertia.add_assign(&articulated);
    parent.bias_force = parent.bias_force.add(bias);
    Ok(())
}

/// Pass 3 for link `k` on the multi-DOF `joint`: q̈ = D⁻¹ (u − Uᵀ ã) into `qdd`, and the link's
/// ã + S q̈, where `a` is the parent's ã.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn multi_acceleration<R: Real>(
    t: R,
    at: (usize, usize),
    link: &Link<R>,
    joint: MultiJoint,
    done: &[LinkWork<R>],
    w: &LinkWork<R>,
    inputs: (&[R], &[R]),
    a: Spatial<R>,
    qdd: &mut [R],
) -> Result<Spatial<R>, KernelError> {
    let pivot = multi_pivot(t, at, link, joint, done, w, inputs)?;
    let mut rhs = pivot.drive;
    for (r, u) in rhs.iter_mut().zip(pivot.inertia_axes.iter()) {
        *r -= u.dot(a);
    }
    let x = pivot.factors.solve(&rhs);
    for (out, x) in qdd.iter_mut().zip(x) {
        *out = x;
    }
    Ok(a.add(pivot.subspace.times(&x)))
}

/// [`joint_accelerations`] of a tree whose joints all have one coordinate (revolute, prismatic:
/// every scene and firmware plant so far): `accel` from coordinates `q`, rates `rate` and
/// inputs `input` (all of length n = `links.len()`). The scalar algorithm as it was before the
/// multi-DOF joints, kept as its own routine: the general one, with its per-link dispatch and
/// offsets, compiles to 4–10 % more instructions per step on the Cortex-M4F and M7; this one to
/// the same as before within 0.3–4 % (the bits are identical either way).
fn joint_accelerations_1dof<R: Real>(
    t: R,
    (links, shapes): (&[Link<R>], &[LinkShape]),
    gravity: Vec3<R>,
    (q, rate, input): (&[R], &[R], &[R]),
    work: &mut [LinkWork<R>],
    loads: Option<&mut LinkLoads<'_, R>>,
    accel: &mut [R],
) -> Result<(), KernelError> {
    // Forward kinematics and pass 1, base to tips: motions, a⁰ (gravity enters as an upward
    // base acceleration), rigid inertias and bias forces, each link's in one go.
    let base = Spatial::new(Vec3::ZERO, -gravity);
    for ((link, &q), w) in links.iter().zip(q).zip(work.iter_mut()) {
        if let TreeJoint::Revolute = link.joint {
            w.turn = q.sin_cos();
        }
    }
    let one_coordinate = links.iter().zip(shapes).zip(q).zip(rate).enumerate();
    for (k, (((link, &shape), &q), &rate)) in one_coordinate {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let parent = link.parent.and_then(|p| done.get(p));
        let relative = link_motion(
            link,
            shape,
            parent.map(|p| &p.motion),
            q,
            w.turn,
            rate,
            &mut w.motion,
        );
        w.bias_acceleration = first_acceleration(parent, w.motion.velocity, relative, base);
        rigid_terms(link, shape, w, parent.is_none());
    }
    if let Some(loads) = loads {
        loads.apply(t, work);
    }
    // Pass 2, tips to base: fold each articulated body into its parent.
    let inputs = links.iter().zip(q).zip(rate).zip(input).enumerate().rev();
    for (k, (((link, &q), &rate), &input)) in inputs {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let parent = link.parent.and_then(|p| done.get_mut(p));
        pivot_and_fold(w, parent, link, (q, rate, input), (k, k), t)?;
    }
    // Pass 3, base to tips: accelerations ã = a − a⁰ (zero at the base).
    for (k, (link, qdd)) in links.iter().zip(accel.iter_mut()).enumerate() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        *qdd = scalar_acceleration(links, link, done, w);
    }
    Ok(())
}

/// [`joint_accelerations_1dof`] of a planar tree, by the planar algorithm ([`planar`]). The
/// external-force sources see 3-D link states: with loads, the 3-D kinematics runs too, into
/// `work`, and the wrenches enter the plane through their moment about a and in-plane force.
fn planar_accelerations<R: Real>(
    t: R,
    (links, shapes): (&[Link<R>], &[LinkShape]),
    planar: &mut PlanarTree<'_, R>,
    (q, rate, input): (&[R], &[R], &[R]),
    work: &mut [LinkWork<R>],
    loads: Option<&mut LinkLoads<'_, R>>,
    accel: &mut [R],
) -> Result<(), KernelError> {
    planar::rigid_pass(planar.plane, (links, planar.constants), (q, rate), planar.work)?;
    if let Some(loads) = loads {
        kinematics(links, shapes, q, rate, work);
        for w in work.iter_mut() {
            w.bias_force = Spatial::ZERO;
        }
        loads.apply(t, work);
        for (p, w) in planar.work.iter_mut().zip(work.iter()) {
            p.add_force(planar.plane, w.bias_force);
        }
    }
    planar::articulated_passes(t, links, (q, rate, input), planar.work, accel)
}

/// A tree as the ODE ẏ = (q̇(q, v), v̇(q, v, τ)) the integrators advance: q̇ = v for angles and
/// slides, ½ q ⊗ ω for quaternions.
struct TreeSystem<'a, R> {
    links: &'a [Link<R>],
    shapes: &'a [LinkShape],
    gravity: Vec3<R>,
    /// Number of position coordinates nq (the velocities are `input.len()`).
    positions: usize,
    input: &'a [R],
    work: &'a mut [LinkWork<R>],
    /// A planar tree's plane, its links' constants and workspace.
    planar: Option<PlanarTree<'a, R>>,
    loads: Option<LinkLoads<'a, R>>,
    /// Joints closing loops on the tree, as constraint rows ([`super::loops`]).
    loops: Option<Loops<'a, R>>,
    /// Fixed tendons on the joint coordinates ([`super::tendon`]).
    tendons: &'a [Tendon<R>],
}

/// What the planar algorithm of a planar tree reads and writes.
struct PlanarTree<'a, R> {
    plane: &'a Plane<R>,
    constants: &'a [PlanarLink<R>],
    work: &'a mut [PlanarWork<R>],
}

impl<R: Real> TreeSystem<'_, R> {
    /// Whether every joint has one coordinate (q̇ = v throughout).
    fn one_dof(&self) -> bool {
        self.positions == self.links.len()
    }
}

impl<R: Real> OdeSystem<R> for TreeSystem<'_, R> {
    fn state_len(&self) -> usize {
        self.positions + self.input.len()
    }
    fn position_len(&self) -> usize {
        self.positions
    }
    fn derivative(&mut self, t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        let (nq, nv) = (self.positions, self.input.len());
        let (q, rate) = y.split_at_checked(nq).ok_or(KernelError::StateSizeMismatch)?;
        let rate = rate.get(..nv).ok_or(KernelError::StateSizeMismatch)?;
        let (dq, accel) = dydt
            .split_at_mut_checked(nq)
            .ok_or(KernelError::StateSizeMismatch)?;
        if self.one_dof() {
            for (d, r) in dq.iter_mut().zip(rate) {
                *d = *r;
            }
        } else {
            position_rates(self.links, q, rate, dq);
        }
        tendon_forces(self.tendons, q, rate, self.work);
        if let Some(planar) = self.planar.as_mut() {
            planar_accelerations(
                t,
                (self.links, self.shapes),
                planar,
                (q, rate, self.input),
                self.work,
                self.loads.as_mut(),
                accel,
            )?;
        } else if self.one_dof() {
            joint_accelerations_1dof(
                t,
                (self.links, self.shapes),
                self.gravity,
                (q, rate, self.input),
                self.work,
                self.loads.as_mut(),
                accel,
            )?;
        } else {
            joint_accelerations(
                t,
                (self.links, self.shapes),
                self.gravity,
                (q, rate, self.input),
                self.work,
                self.loads.as_mut(),
                accel,
            )?;
        }
        match self.loops.as_mut() {
            Some(loops) => loops.constrain(t, (self.links, self.shapes), (q, rate), self.work, accel),
            None => Ok(()),
        }
    }
    fn advance_positions(&mut self, y: &mut [R], h: R) {
        let one_dof = self.one_dof();
        if let Some((q, rate)) = y.split_at_mut_checked(self.positions) {
            if one_dof {
                for (q, r) in q.iter_mut().zip(rate.iter()) {
                    *q += h * *r;
                }
            } else {
                advance_coordinates(self.links, q, rate, h);
            }
        }
    }
    /// Normalises the quaternions of spherical and free joints (as the Cartesian model does its
    /// bodies'), and checks for NaN.
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        if !self.one_dof() {
            normalize_quaternions(self.links, y);
        }
        if let Some(i) = y.iter().position(|x| !x.is_finite()) {
            return Err(KernelError::NonFinite {
                item: Item::Joint(link_of(self.links, self.positions, i)),
                time: t.to_f64(),
            });
        }
        match self.loops.as_mut() {
            Some(loops) => loops.project(t, (self.links, self.shapes), self.positions, self.work, y),
            None => Ok(0),
        }
    }
}

/// Writes the fixed tendons' generalized forces at coordinates `q` and rates `rate` into the
/// links' work (nothing to do without tendons: the forces stay zero).
fn tendon_forces<R: Real>(tendons: &[Tendon<R>], q: &[R], rate: &[R], work: &mut [LinkWork<R>]) {
    if tendons.is_empty() {
        return;
    }
    for w in work.iter_mut() {
        w.tendon_force = R::ZERO;
    }
    tendon::load(tendons, q, rate, |link, force| {
        if let Some(w) = work.get_mut(link) {
            w.tendon_force += force;
        }
    });
}

/// Where the quaternion of a joint sits among its position coordinates, if it has one.
fn quaternion_offset(joint: Option<MultiJoint>) -> Option<usize> {
    match joint {
        Some(MultiJoint::Spherical) => Some(0),
        Some(MultiJoint::Free) => Some(3),
        _ => None,
    }
}

/// The link owning entry `i` of a state `[q | v]` with `positions` position coordinates.
fn link_of<R: Real>(links: &[Link<R>], positions: usize, i: usize) -> usize {
    let (mut i, count): (usize, fn(&Link<R>) -> usize) = if i < positions {
        (i, Link::position_count)
    } else {
        (i - positions, Link::velocity_count)
    };
    for (k, link) in links.iter().enumerate() {
        let n = count(link);
        if i < n {
            return k;
        }
        i -= n;
    }
    links.len().saturating_sub(1)
}

/// Every joint in turn: `(link, range of its position coordinates, its velocity coordinates)`.
fn joints<'a, R: Real>(
    links: &'a [Link<R>],
    rate: &'a [R],
) -> impl Iterator<Item = (&'a Link<R>, core::ops::Range<usize>, &'a [R])> + 'a {
    let (mut at_q, mut at_v) = (0, 0);
    links.iter().map(move |link| {
        let (nq, nv) = (link.position_count(), link.velocity_count());
        let range = at_q..at_q + nq;
        let v = rate.get(at_v..at_v + nv).unwrap_or_default();
        at_q += nq;
        at_v += nv;
        (link, range, v)
    })
}

/// q̇ into `dq`: v for angles and slides, ½ q ⊗ ω for quaternions (ω in link axes, as the
/// Cartesian model's bodies).
fn position_rates<R: Real>(links: &[Link<R>], q: &[R], rate: &[R], dq: &mut [R]) {
    for (link, range, v) in joints(links, rate) {
        let Some(dq) = dq.get_mut(range.clone()) else {
            return;
        };
        let q = q.get(range).unwrap_or_default();
        match quaternion_offset(link.multi) {
            None => {
                for (d, r) in dq.iter_mut().zip(v) {
                    *d = *r;
                }
            }
            Some(at) => {
                // Translation rates first (free joint), then the quaternion's.
                for (d, r) in dq.iter_mut().zip(v).take(at) {
                    *d = *r;
                }
                let raw = match q.get(at..at + 4) {
                    Some(&[w, x, y, z]) => Quat::new(w, x, y, z),
                    _ => Quat::IDENTITY,
                };
                let rate = raw.derivative(vec_at(v, at));
                if let Some(d) = dq.get_mut(at..at + 4) {
                    d.copy_from_slice(&rate.to_array());
                }
            }
        }
    }
}

/// Moves the position coordinates by `h` at the rates `rate`: q += h v for angles and slides,
/// q ← q ⊗ exp(h ω / 2) for quaternions (exact on the rotation group).
pub(super) fn advance_coordinates<R: Real>(links: &[Link<R>], q: &mut [R], rate: &[R], h: R) {
    for (link, range, v) in joints(links, rate) {
        let Some(q) = q.get_mut(range) else {
            return;
        };
        let at = quaternion_offset(link.multi).unwrap_or(q.len());
        for (q, r) in q.iter_mut().zip(v).take(at) {
            *q += h * *r;
        }
        if let Some(quaternion) = q.get_mut(at..at + 4) {
            let turned = Quat::new(quaternion[0], quaternion[1], quaternion[2], quaternion[3])
                .mul(&Quat::from_rotation_vector(vec_at(v, at) * h));
            quaternion.copy_from_slice(&turned.to_array());
        }
    }
}

/// Rescales the quaternions of the state `y` to unit length.
pub(super) fn normalize_quaternions<R: Real>(links: &[Link<R>], y: &mut [R]) {
    let mut at_q = 0;
    for link in links {
        if let Some(at) = quaternion_offset(link.multi) {
            if let Some(q) = y.get_mut(at_q + at..at_q + at + 4) {
                if let Some(u) = Quat::new(q[0], q[1], q[2], q[3]).normalized() {
                    q.copy_from_slice(&u.to_array());
                }
            }
        }
        at_q += link.position_count();
    }
}

/// State `[q | v]`: every joint's position coordinates, then every joint's velocity coordinates
/// (`[q_0 … q_{n−1}, q̇_0 … q̇_{n−1}]` for n revolute and prismatic joints); the inputs
/// ([`Data::set_input`]) are held over the steps. A step never allocates, never panics; on
/// error the state is left at the start of the step. External forces act on the links.
impl<R: Real, St: Storage> Dynamics<R> for Model<R, St> {
    type Data = Data<R, St>;

    fn new_data(&self) -> Data<R, St> {
        Data::new(self)
    }

    fn step_with<I: Integrator<R>, E: ExternalForces<R>>(
        &self,
        data: &mut Data<R, St>,
        integrator: &mut I,
        dt: R,
        external: &mut E,
    ) -> Result<StepStats, KernelError> {
        let stats = step_tree(self, data, integrator, dt, Some(external))?;
        self.accept(data, external)?;
        Ok(stats)
    }

    fn accept<E: ExternalForces<R>>(
        &self,
        data: &mut Data<R, St>,
        external: &mut E,
    ) -> Result<(), KernelError> {
        update_link_states(self, data);
        let mut loads = LinkLoads {
            source: external,
            sides: &mut data.sides,
            wrench: &mut data.wrench,
        };
        loads.accept(data.clock.time, &data.work);
        Ok(())
    }

    fn step<I: Integrator<R>>(
        &self,
        data: &mut Data<R, St>,
        integrator: &mut I,
        dt: R,
    ) -> Result<StepStats, KernelError> {
        step_tree(self, data, integrator, dt, None)
    }

    fn time(&self, data: &Data<R, St>) -> R {
        data.time()
    }

    fn energy(&self, data: &Data<R, St>) -> Result<Energy<R>, KernelError> {
        Ok(energy(self, data))
    }

    fn state<'d>(&self, data: &'d Data<R, St>) -> &'d [R] {
        data.state()
    }

    fn set_state(&self, data: &mut Data<R, St>, state: &[R]) -> Result<(), KernelError> {
        let (nq, nv) = (data.count, data.input.len());
        let links = &self.links;
        check_state(state, nq + nv, data.time(), |i| {
            Item::Joint(link_of(links, nq, i))
        })?;
        let slots = data.state.as_flattened_mut().get_mut(..nq + nv);
        slots
            .ok_or(KernelError::StateSizeMismatch)?
            .copy_from_slice(state);
        Ok(())
    }
}

/// Advances `data` by `dt`, with the links loaded by `external` when given (without, the
/// articulated-body algorithm skips the external-force pass).
fn step_tree<R: Real, St: Storage, I: Integrator<R>>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    integrator: &mut I,
    dt: R,
    external: Option<&mut dyn ExternalForces<R>>,
) -> Result<StepStats, KernelError> {
    let n = model.links.len();
    if data.work.len() != n
        || data.count != model.position_count()
        || data.input.len() != model.velocity_count()
        || !data.loops.fits(model)
    {
        return Err(KernelError::StateSizeMismatch);
    }
    let mut clock = data.clock;
    let loads = external.map(|source| LinkLoads {
        source,
        sides: &mut data.sides,
        wrench: &mut data.wrench,
    });
    let mut system = TreeSystem {
        links: &model.links,
        shapes: &model.shapes,
        gravity: model.gravity,
        positions: data.count,
        input: &data.input,
        work: &mut data.work,
        planar: planar_tree(model, &mut data.planar),
        loads,
        loops: Loops::of(model, &mut data.loops),
        tendons: &model.tendons,
    };
    let k = data.stages.each_mut().map(|s| s.as_flattened_mut());
    let stats = clock.step(
        integrator,
        &mut system,
        data.state.as_flattened_mut(),
        &mut Stages { k },
        dt,
    )?;
    data.clock = clock;
    Ok(stats)
}

/// The planar algorithm's view of a planar `model` with workspace `work` (`None` for a tree
/// that is not planar, or data not made for the model).
fn planar_tree<'a, R: Real, St: Storage>(
    model: &'a Model<R, St>,
    work: &'a mut [PlanarWork<R>],
) -> Option<PlanarTree<'a, R>> {
    let plane = model.plane.as_ref()?;
    (work.len() == model.planar.len()).then_some(PlanarTree {
        plane,
        constants: &model.planar,
        work,
    })
}

/// The motions of every link at the current state of `data`.
fn motions<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> St::Bodies<LinkMotion<R>> {
    let mut motions: St::Bodies<LinkMotion<R>> = sized(model.links.len(), LinkMotion::default());
    kinematics(
        &model.links,
        &model.shapes,
        data.positions(),
        data.velocities(),
        &mut motions,
    );
    motions
}

/// Pose and velocity of a link (world axes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkState<R> {
    /// Where the link is.
    pub pose: Pose<R>,
    /// Angular velocity (world axes).
    pub angular_velocity: Vec3<R>,
    /// Velocity of the link frame's origin (world).
    pub origin_velocity: Vec3<R>,
}

impl<R: Real> LinkState<R> {
    /// World position of a point given in the link frame.
    pub fn point(&self, local: Vec3<R>) -> Vec3<R> {
        self.pose.point(local)
    }
    /// World velocity of a point given in the link frame.
    pub fn point_velocity(&self, local: Vec3<R>) -> Vec3<R> {
        self.origin_velocity + self.angular_velocity.cross(self.pose.rotation.mul_vec(local))
    }
}

impl<R: Real> LinkState<R> {
    /// The link as a rigid-body state (for external forces).
    pub(super) fn side(&self) -> SideState<R> {
        SideState {
            x: self.pose.origin,
            rot: self.pose.rotation,
            v: self.origin_velocity,
            w: self.angular_velocity,
        }
    }
}

/// Pose and velocities of a link from its motion.
pub(super) fn link_state<R: Real>(m: &LinkMotion<R>) -> LinkState<R> {
    let w = m.velocity.angular;
    LinkState {
        pose: m.pose,
        angular_velocity: w,
        // The spatial velocity's linear part is the velocity of the point at the world
        // origin: shift it to the link origin.
        origin_velocity: m.velocity.linear + w.cross(m.pose.origin),
    }
}

/// Brings the link poses and velocities in `data`'s workspace to its current state: the
/// forward kinematics of [`link_states`], with no list made (a host mirroring a large tree
/// after every step made two of a few hundred bytes a link). Read them with
/// [`Data::link_state`].
pub fn update_link_states<R: Real, St: Storage>(model: &Model<R, St>, data: &mut Data<R, St>) {
    let (nq, nv) = (data.count, data.input.len());
    let state = data.state.as_flattened();
    let q = state.get(..nq).unwrap_or_default();
    let rate = state.get(nq..nq + nv).unwrap_or_default();
    kinematics(&model.links, &model.shapes, q, rate, &mut data.work);
}

/// Poses and velocities of all links at the current state (forward kinematics).
pub fn link_states<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &Data<R, St>,
) -> St::Bodies<LinkState<R>> {
    let mut states: St::Bodies<LinkState<R>> = sized(model.links.len(), link_state(&LinkMotion::default()));
    for (state, m) in states.iter_mut().zip(motions(model, data).iter()) {
        *state = link_state(m);
    }
    states
}

/// Kinetic energy ½ Σ vᵀ I v plus the rotors' ½ Σ armature·q̇² and potential energy: gravitational, −Σ m g·c (zero at the world
/// origin, as [`crate::rigid::energy`] for the Cartesian model), plus the position servos'
/// springs ½ kp (r − q)² ([`super::Servo`]).
pub fn energy<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> Energy<R> {
    let mut energy = Energy::default();
    let links = model.links.iter().zip(model.shapes.iter());
    for ((link, &shape), m) in links.zip(motions(model, data).iter()) {
        let (rigid, moment) = rigid_inertia(link, shape, &m.pose);
        energy.kinetic += R::HALF * m.velocity.dot(rigid.apply_rigid(link.mass, moment, m.velocity));
        energy.potential -= link.mass * model.gravity.dot(m.pose.point(link.cg));
    }
    energy.kinetic += rotor_energy(&model.links, data.velocities());
    energy.potential += spring_energy(model, data);
    if !model.tendons.is_empty() {
        energy.potential += tendon::energy(&model.tendons, data.positions());
    }
    energy
}

/// The joints' rotor kinetic energy ½ Σ armature·q̇ᵢ² at velocity coordinates `rate` (exactly
/// 0 without armature, so the energy of such trees keeps its bits).
fn rotor_energy<R: Real>(links: &[Link<R>], rate: &[R]) -> R {
    let mut energy = R::ZERO;
    let mut at = 0;
    for link in links {
        let nv = link.velocity_count();
        if link.armature != R::ZERO {
            let squares = rate.get(at..at + nv).unwrap_or_default().iter().map(|&v| v * v);
            energy += R::HALF * link.armature * squares.fold(R::ZERO, |sum, x| sum + x);
        }
        at += nv;
    }
    energy
}

/// Accelerations v̇ of the velocity coordinates at the current state and inputs, without
/// stepping (into `accel`, nv entries; q̈ for revolute and prismatic joints).
pub fn accelerations<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    accel: &mut [R],
) -> Result<(), KernelError> {
    accelerations_with(model, data, None, accel)
}

/// [`accelerations`] with the links loaded by `external` when given (as
/// [`crate::Dynamics::step_with`] loads them): the constraint rows' multipliers
/// ([`Data::multipliers`]) are then those of the loaded tree.
pub fn accelerations_with<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    external: Option<&mut dyn ExternalForces<R>>,
    accel: &mut [R],
) -> Result<(), KernelError> {
    let (nq, nv) = (data.count, data.input.len());
    if data.work.len() != model.links.len() || nq != model.position_count() || nv != model.velocity_count() {
        return Err(KernelError::StateSizeMismatch);
    }
    let (state, input) = (data.state.as_flattened(), &data.input[..]);
    let q = state.get(..nq).ok_or(KernelError::StateSizeMismatch)?;
    let rate = state.get(nq..nq + nv).ok_or(KernelError::StateSizeMismatch)?;
    let accel = accel.get_mut(..nv).ok_or(KernelError::StateSizeMismatch)?;
    let mut loads = external.map(|source| LinkLoads {
        source,
        sides: &mut data.sides,
        wrench: &mut data.wrench,
    });
    tendon_forces(&model.tendons, q, rate, &mut data.work);
    if let Some(mut planar) = planar_tree(model, &mut data.planar) {
        planar_accelerations(
            data.clock.time,
            (&model.links, &model.shapes),
            &mut planar,
            (q, rate, input),
            &mut data.work,
            loads.as_mut(),
            accel,
        )?;
    } else {
        joint_accelerations(
            data.clock.time,
            (&model.links, &model.shapes),
            model.gravity,
            (q, rate, input),
            &mut data.work,
            loads.as_mut(),
            accel,
        )?;
    }
    match Loops::of(model, &mut data.loops) {
        Some(mut loops) => loops.constrain(
            data.clock.time,
            (&model.links, &model.shapes),
            (q, rate),
            &mut data.work,
            accel,
        ),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::shape::Along;
    use super::*;
    use crate::samples::{revolute_chain_tree, ChainSpec};
    use crate::Fixed;

    #[test]
    fn plane_rotation_is_rodrigues_with_the_axis_column_exact() {
        // Reference: R · Rot(±eᵢ, θ) by Rodrigues and a full matrix product. The plane rotation
        // must give the same bits in the two turned columns and R's own column i (Rodrigues'
        // (1 − cos θ) + cos θ is 1 only up to rounding there).
        let r = Mat3::from_rows([[0.36, -0.48, 0.8], [0.8, 0.6, 0.0], [-0.48, 0.64, 0.6]]);
        for angle in [0.3f64, -1.2, 2.9, 7.5] {
            let (sin, cos) = Real::sin_cos(angle);
            for (i, sign) in [(0, 1.0), (1, 1.0), (2, 1.0), (0, -1.0), (1, -1.0), (2, -1.0)] {
                let mut axis = [0.0; 3];
                axis[i] = sign;
                let axis = Vec3::new(axis[0], axis[1], axis[2]);
                assert_eq!(Along::of(axis).signed(axis), Some((i, sign)));
                let mut fast = Mat3::ZERO;
                turn_about_column(&mut fast, &r, i, sin * sign, cos);
                let full = r.mul_mat(&rotation(axis, sin, cos));
                for row in 0..3 {
                    for col in 0..3 {
                        let expected = if col == i { r.m[row][col] } else { full.m[row][col] };
                        assert_eq!(
                            fast.m[row][col].to_bits(),
                            expected.to_bits(),
                            "axis {i} {sign}, θ {angle}"
                        );
                    }
                }
            }
        }
        assert_eq!(Along::of(Vec3::new(0.6, 0.8, 0.0)), Along::Skew);
    }

    #[test]
    fn newton_euler_bias_force_is_the_spatial_one() {
        // Reference: Featherstone (2008) eq. 7.40 without external force, p = I a⁰ + v ×* I v,
        // from the rigid spatial inertia about the world origin; rigid_terms forms it as
        // Newton–Euler about the CG. Every link shape: skew and along-axis CG, full and
        // principal inertia, with and without the angular part of a⁰ (a root's is zero).
        let inertias = [
            Mat3::diagonal(Vec3::new(0.02, 0.03, 0.04)),
            Mat3::symmetric(Vec3::new(0.05, 0.06, 0.07), 0.004, -0.003, 0.002),
        ];
        for (cg, inertia) in [Vec3::new(0.3, -0.2, 0.1), Vec3::new(0.0, 0.45, 0.0)]
            .into_iter()
            .flat_map(|cg| inertias.map(|j| (cg, j)))
        {
            let link = Link::revolute(None, Vec3::ZERO, Vec3::Z).with_mass(1.7, cg, inertia);
            let shape = LinkShape::of(&link);
            let mut w = LinkWork::default();
            w.motion.pose = Pose {
                origin: Vec3::new(0.4, 1.1, -0.6),
                rotation: Quat::from_axis_angle(Vec3::new(0.48, 0.6, 0.64), 0.9).to_matrix(),
            };
            w.motion.velocity = Spatial::new(Vec3::new(0.7, -1.3, 0.4), Vec3::new(-0.2, 0.5, 1.9));
            for angular in [Vec3::new(2.1, 0.3, -0.8), Vec3::ZERO] {
                w.bias_acceleration = Spatial::new(angular, Vec3::new(0.6, -0.9, 9.81));
                rigid_terms(&link, shape, &mut w, angular == Vec3::ZERO);
                let (rigid, _) = rigid_inertia(&link, shape, &w.motion.pose);
                let (v, momentum) = (w.motion.velocity, rigid.apply(w.motion.velocity));
                let spin = Spatial::new(
                    v.angular.cross(momentum.angular) + v.linear.cross(momentum.linear),
                    v.angular.cross(momentum.linear),
                );
                let expected = rigid.apply(w.bias_acceleration).add(spin);
                let error = w.bias_force.sub(expected);
                let scale = Real::sqrt(expected.dot(expected));
                assert!(
                    Real::sqrt(error.dot(error)) < 1e-14 * scale,
                    "{cg:?} {angular:?}: {error:?}"
                );
                assert_eq!(w.inertia, rigid);
            }
        }
    }

    #[test]
    fn general_and_one_dof_algorithms_give_the_same_bits() {
        // The general routine's 1-DOF branch and the scalar routine are the same arithmetic:
        // a tree of revolute and prismatic joints must get bit-identical accelerations from
        // both (for a tree that is not planar the step uses the scalar one, `accelerations` the
        // general one; this chain is planar, which neither routine looks at).
        let model: Model<f64, Fixed<5>> = revolute_chain_tree(&ChainSpec::standard(5)).unwrap();
        let mut data = Data::new(&model);
        for k in 0..5 {
            data.set_position(k, 0.3 * k as f64 - 0.5).unwrap();
            data.set_velocity(k, 0.7 - 0.2 * k as f64).unwrap();
            data.set_input(k, 0.1 * k as f64).unwrap();
        }
        let (q, rate) = (data.positions().to_vec(), data.velocities().to_vec());
        let input = data.inputs().to_vec();
        let (mut general, mut scalar) = ([0.0; 5], [0.0; 5]);
        let mut work = data.work.clone();
        joint_accelerations(
            0.0,
            (&model.links, &model.shapes),
            model.gravity,
            (&q, &rate, &input),
            &mut work,
            None,
            &mut general,
        )
        .unwrap();
        joint_accelerations_1dof(
            0.0,
            (&model.links, &model.shapes),
            model.gravity,
            (&q, &rate, &input),
            &mut data.work,
            None,
            &mut scalar,
        )
        .unwrap();
        assert_eq!(general.map(f64::to_bits), scalar.map(f64::to_bits));
    }
}
