//! Forward kinematics and Featherstone's articulated-body algorithm (ABA): joint accelerations
//! in O(n) (Featherstone, *Rigid Body Dynamics Algorithms*, 2008, §7.3, table 7.1), with every
//! spatial quantity in world axes about the world origin.

use super::spatial::{Spatial, SpatialInertia};
use super::{Data, Link, Model, TreeJoint};
use crate::dynamics::check_state;
use crate::math::{Mat3, Vec3};
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
    /// The joint's motion subspace S: the link's spatial velocity per unit joint rate.
    pub axis: Spatial<R>,
    pub velocity: Spatial<R>,
}

/// Workspace of the articulated-body algorithm for one link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LinkWork<R> {
    pub motion: LinkMotion<R>,
    /// Velocity-product acceleration c = v ×ₘ S q̇.
    bias_acceleration: Spatial<R>,
    /// Articulated inertia I^A (rigid inertia until the tips have been folded in).
    inertia: SpatialInertia<R>,
    /// Articulated bias force p^A.
    bias_force: Spatial<R>,
    /// U = I^A S.
    inertia_axis: Spatial<R>,
    /// 1 / (Sᵀ U).
    inverse_pivot: R,
    /// u = τ − damping·q̇ − Sᵀ p^A.
    drive: R,
    acceleration: Spatial<R>,
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
            bias_acceleration: Spatial::ZERO,
            inertia: SpatialInertia::ZERO,
            bias_force: Spatial::ZERO,
            inertia_axis: Spatial::ZERO,
            inverse_pivot: R::ZERO,
            drive: R::ZERO,
            acceleration: Spatial::ZERO,
        }
    }
}

/// The motion of `link` given its parent's (the ground's is the default) and its joint's
/// coordinate and rate.
fn link_motion<R: Real>(link: &Link<R>, parent: &LinkMotion<R>, q: R, rate: R) -> LinkMotion<R> {
    let frame = &parent.pose;
    let axis = frame.rotation.mul_vec(link.axis);
    let (pose, subspace) = match link.joint {
        TreeJoint::Revolute => {
            let (sin, cos) = q.sin_cos();
            let origin = frame.point(link.origin);
            let rotation = frame.rotation.mul_mat(&Mat3::rotation(link.axis, sin, cos));
            // Turning about the line through `origin` moves the point at the world origin
            // with origin × axis.
            (Pose { origin, rotation }, Spatial::new(axis, origin.cross(axis)))
        }
        TreeJoint::Prismatic => {
            let origin = frame.point(link.origin + link.axis * q);
            let pose = Pose {
                origin,
                rotation: frame.rotation,
            };
            (pose, Spatial::new(Vec3::ZERO, axis))
        }
    };
    LinkMotion {
        pose,
        axis: subspace,
        velocity: parent.velocity.add(subspace.scale(rate)),
    }
}

/// Forward kinematics, base to tips: `motions[k]` for every link from the joint coordinates
/// `q` and rates `rate`.
fn kinematics<R: Real, M: AsMut<LinkMotion<R>> + AsRef<LinkMotion<R>>>(
    links: &[Link<R>],
    q: &[R],
    rate: &[R],
    motions: &mut [M],
) {
    for (k, ((link, &q), &rate)) in links.iter().zip(q).zip(rate).enumerate() {
        let Some((done, [me, ..])) = motions.split_at_mut_checked(k) else {
            return;
        };
        let parent = link.parent.and_then(|p| done.get(p)).map(AsRef::as_ref);
        *me.as_mut() = link_motion(link, parent.unwrap_or(&LinkMotion::default()), q, rate);
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

/// Rigid spatial inertia of `link` at `pose` (world axes, about the world origin).
fn rigid_inertia<R: Real>(link: &Link<R>, pose: &Pose<R>) -> SpatialInertia<R> {
    let rotation = &pose.rotation;
    let inertia_cg = rotation.mul_mat(&link.inertia).mul_mat(&rotation.transpose());
    SpatialInertia::rigid(link.mass, pose.point(link.cg), inertia_cg)
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

/// The articulated-body algorithm: joint accelerations `accel` from coordinates `q`, rates
/// `rate` and inputs `input` (all of length n = `links.len()`), with external forces from
/// `loads`, at time `t`.
fn joint_accelerations<R: Real>(
    t: R,
    links: &[Link<R>],
    gravity: Vec3<R>,
    (q, rate, input): (&[R], &[R], &[R]),
    work: &mut [LinkWork<R>],
    loads: Option<&mut LinkLoads<'_, R>>,
    accel: &mut [R],
) -> Result<(), KernelError> {
    kinematics(links, q, rate, work);
    // Pass 1, any order: rigid inertias and velocity-product terms.
    for ((link, w), &rate) in links.iter().zip(work.iter_mut()).zip(rate) {
        let m = &w.motion;
        let rigid = rigid_inertia(link, &m.pose);
        w.bias_acceleration = m.velocity.cross_motion(m.axis.scale(rate));
        w.bias_force = m.velocity.cross_force(rigid.apply(m.velocity));
        w.inertia = rigid;
    }
    if let Some(loads) = loads {
        loads.apply(t, work);
    }
    // Pass 2, tips to base: fold each articulated body into its parent.
    let inputs = links.iter().zip(rate).zip(input).enumerate().rev();
    for (k, ((link, &rate), &input)) in inputs {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let axis = w.motion.axis;
        let u = w.inertia.apply(axis);
        let pivot = axis.dot(u);
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
        w.drive = input - link.damping * rate - axis.dot(w.bias_force);
        if let Some(parent) = link.parent.and_then(|p| done.get_mut(p)) {
            let articulated = w.inertia.sub_outer(u, w.inverse_pivot);
            let bias = w
                .bias_force
                .add(articulated.apply(w.bias_acceleration))
                .add(u.scale(w.drive * w.inverse_pivot));
            parent.inertia = parent.inertia.add(&articulated);
            parent.bias_force = parent.bias_force.add(bias);
        }
    }
    // Pass 3, base to tips: accelerations. Gravity enters as an upward base acceleration.
    let base = Spatial::new(Vec3::ZERO, -gravity);
    for (k, (link, qdd)) in links.iter().zip(accel.iter_mut()).enumerate() {
        let Some((done, [w, ..])) = work.split_at_mut_checked(k) else {
            return Err(KernelError::StateSizeMismatch);
        };
        let parent = link
            .parent
            .and_then(|p| done.get(p))
            .map_or(base, |p| p.acceleration);
        let a = parent.add(w.bias_acceleration);
        *qdd = (w.drive - w.inertia_axis.dot(a)) * w.inverse_pivot;
        w.acceleration = a.add(w.motion.axis.scale(*qdd));
    }
    Ok(())
}

/// A tree as the ODE ẏ = (q̇, q̈(q, q̇, τ)) the integrators advance.
struct TreeSystem<'a, R> {
    links: &'a [Link<R>],
    gravity: Vec3<R>,
    input: &'a [R],
    work: &'a mut [LinkWork<R>],
    loads: Option<LinkLoads<'a, R>>,
}

impl<R: Real> OdeSystem<R> for TreeSystem<'_, R> {
    fn state_len(&self) -> usize {
        2 * self.links.len()
    }
    fn position_len(&self) -> usize {
        self.links.len()
    }
    fn derivative(&mut self, t: R, y: &[R], dydt: &mut [R]) -> Result<(), KernelError> {
        let n = self.links.len();
        let (q, rate) = y.split_at_checked(n).ok_or(KernelError::StateSizeMismatch)?;
        let (dq, accel) = dydt
            .split_at_mut_checked(n)
            .ok_or(KernelError::StateSizeMismatch)?;
        for (d, r) in dq.iter_mut().zip(rate) {
            *d = *r;
        }
        joint_accelerations(
            t,
            self.links,
            self.gravity,
            (q, rate, self.input),
            self.work,
            self.loads.as_mut(),
            accel,
        )
    }
    fn advance_positions(&mut self, y: &mut [R], h: R) {
        if let Some((q, rate)) = y.split_at_mut_checked(self.links.len()) {
            for (q, r) in q.iter_mut().zip(rate.iter()) {
                *q += h * *r;
            }
        }
    }
    /// Joint coordinates need no projection: only checks for NaN.
    fn accept_step(&mut self, t: R, y: &mut [R]) -> Result<u32, KernelError> {
        let n = self.links.len().max(1);
        match y.iter().position(|x| !x.is_finite()) {
            Some(i) => Err(KernelError::NonFinite {
                item: Item::Joint(i % n),
                time: t.to_f64(),
            }),
            None => Ok(0),
        }
    }
}

/// State `[q_0 … q_{n−1}, q̇_0 … q̇_{n−1}]` (joint coordinates, then rates); the joint inputs
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
        let n = self.links.len();
        let (q, rate) = data.state.as_flattened().split_at(n.min(2 * n));
        kinematics(&self.links, q, rate, &mut data.work);
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
        let n = data.count;
        check_state(state, 2 * n, data.time(), |k| Item::Joint(k % n.max(1)))?;
        data.state.as_flattened_mut().copy_from_slice(state);
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
    if data.count != n {
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
        gravity: model.gravity,
        input: &data.input,
        work: &mut data.work,
        loads,
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

/// The motions of every link at the current state of `data`.
fn motions<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> St::Bodies<LinkMotion<R>> {
    let mut motions: St::Bodies<LinkMotion<R>> = sized(model.links.len(), LinkMotion::default());
    kinematics(&model.links, data.positions(), data.velocities(), &mut motions);
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
    fn side(&self) -> SideState<R> {
        SideState {
            x: self.pose.origin,
            rot: self.pose.rotation,
            v: self.origin_velocity,
            w: self.angular_velocity,
        }
    }
}

/// Pose and velocities of a link from its motion.
fn link_state<R: Real>(m: &LinkMotion<R>) -> LinkState<R> {
    let w = m.velocity.angular;
    LinkState {
        pose: m.pose,
        angular_velocity: w,
        // The spatial velocity's linear part is the velocity of the point at the world
        // origin: shift it to the link origin.
        origin_velocity: m.velocity.linear + w.cross(m.pose.origin),
    }
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

/// Kinetic energy ½ Σ vᵀ I v and gravitational potential energy −Σ m g·c (zero at the world
/// origin, as [`crate::rigid::energy`] for the Cartesian model).
pub fn energy<R: Real, St: Storage>(model: &Model<R, St>, data: &Data<R, St>) -> Energy<R> {
    let mut energy = Energy::default();
    for (link, m) in model.links.iter().zip(motions(model, data).iter()) {
        let rigid = rigid_inertia(link, &m.pose);
        energy.kinetic += R::HALF * m.velocity.dot(rigid.apply(m.velocity));
        energy.potential -= link.mass * model.gravity.dot(m.pose.point(link.cg));
    }
    energy
}

/// Joint accelerations q̈ at the current state and inputs, without stepping (into `accel`,
/// n entries).
pub fn accelerations<R: Real, St: Storage>(
    model: &Model<R, St>,
    data: &mut Data<R, St>,
    accel: &mut [R],
) -> Result<(), KernelError> {
    let n = model.links.len();
    let (state, input) = (data.state.as_flattened(), &data.input[..]);
    let q = state.get(..n).ok_or(KernelError::StateSizeMismatch)?;
    let rate = state.get(n..2 * n).ok_or(KernelError::StateSizeMismatch)?;
    let accel = accel.get_mut(..n).ok_or(KernelError::StateSizeMismatch)?;
    joint_accelerations(
        data.clock.time,
        &model.links,
        model.gravity,
        (q, rate, input),
        &mut data.work,
        None,
        accel,
    )
}
