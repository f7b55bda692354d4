//! External forces supplied by the caller and evaluated inside the dynamics at every integrator
//! stage (the host's contact forces, for instance), so the kernel's explicit integrators see
//! them as smooth applied forces rather than impulses added between steps. One trait for every
//! model family: rigid bodies and tree links take wrenches, flexible nodes take generalized
//! forces on their 12 coordinates.

use crate::math::{Mat3, Vec3};
use crate::rigid::{SideState, Wrench};
use crate::Real;

/// A source of forces, called once per dynamics evaluation (every stage).
pub trait ExternalForces<R: Real> {
    /// Adds forces to `loads` for the state at time `t` that `loads` describes.
    fn apply(&mut self, t: R, loads: &mut ExternalLoads<'_, R>);
    /// Called once after every accepted step with the accepted state at time `t`: where forces
    /// with memory (contact: impact speeds, sticking friction) record the state they continue
    /// from. Default: nothing.
    fn accept(&mut self, t: R, state: &ExternalLoads<'_, R>) {
        let _ = (t, state);
    }
}

impl<R: Real, T: ExternalForces<R> + ?Sized> ExternalForces<R> for &mut T {
    fn apply(&mut self, t: R, loads: &mut ExternalLoads<'_, R>) {
        (**self).apply(t, loads);
    }
    fn accept(&mut self, t: R, state: &ExternalLoads<'_, R>) {
        (**self).accept(t, state);
    }
}

/// Two sources in turn, `A` then `B` (a tree's force elements and its contacts): each
/// evaluation adds `A`'s loads first, so a pair sums in the order the host sums them.
impl<R: Real, A: ExternalForces<R>, B: ExternalForces<R>> ExternalForces<R> for (A, B) {
    fn apply(&mut self, t: R, loads: &mut ExternalLoads<'_, R>) {
        self.0.apply(t, loads);
        self.1.apply(t, loads);
    }
    fn accept(&mut self, t: R, state: &ExternalLoads<'_, R>) {
        self.0.accept(t, state);
        self.1.accept(t, state);
    }
}

/// No external forces: what [`step`](crate::step) uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoExternalForces;

impl<R: Real> ExternalForces<R> for NoExternalForces {
    fn apply(&mut self, _t: R, _loads: &mut ExternalLoads<'_, R>) {}
}

/// The state of one dynamics evaluation and the loads external forces add to: the rigid
/// bodies (or tree links) with their wrenches, and the flexible nodes with their generalized
/// forces. Unknown body indices read as `None` and are ignored when written.
pub struct ExternalLoads<'a, R> {
    sides: &'a [SideState<R>],
    wrench: &'a mut [Wrench<R>],
    coordinates: &'a [R],
    rates: &'a [R],
    generalized: &'a mut [R],
}

impl<'a, R: Real> ExternalLoads<'a, R> {
    /// Loads on bodies in the states `sides`, added to `wrench`.
    pub(crate) fn bodies(sides: &'a [SideState<R>], wrench: &'a mut [Wrench<R>]) -> Self {
        Self {
            sides,
            wrench,
            coordinates: &[],
            rates: &[],
            generalized: &mut [],
        }
    }
    /// The bodies' states and the wrenches on them (what the kernel's force elements write).
    pub(crate) fn bodies_mut(&mut self) -> (&[SideState<R>], &mut [Wrench<R>]) {
        (self.sides, self.wrench)
    }
    /// Adds the flexible nodes: coordinates `e`, rates `ed`, generalized forces `force`.
    pub(crate) fn with_nodes(mut self, e: &'a [R], ed: &'a [R], force: &'a mut [R]) -> Self {
        self.coordinates = e;
        self.rates = ed;
        self.generalized = force;
        self
    }
    /// Loads on flexible nodes only: coordinates `e`, rates `ed` (12 per node), generalized
    /// forces `force` (same layout) — what a host's own solver of a flexible body hands its
    /// external forces.
    pub fn on_nodes(e: &'a [R], ed: &'a [R], force: &'a mut [R]) -> Self {
        Self::bodies(&[], &mut []).with_nodes(e, ed, force)
    }
}

impl<R: Real> ExternalLoads<'_, R> {
    /// Number of rigid bodies (tree links).
    pub fn body_count(&self) -> usize {
        self.sides.len()
    }
    /// Position of body `b`'s frame origin (global).
    pub fn position(&self, b: usize) -> Option<Vec3<R>> {
        self.sides.get(b).map(|s| s.x)
    }
    /// Rotation of body `b` (body → global).
    pub fn rotation(&self, b: usize) -> Option<Mat3<R>> {
        self.sides.get(b).map(|s| s.rot)
    }
    /// Velocity of body `b`'s frame origin (global).
    pub fn velocity(&self, b: usize) -> Option<Vec3<R>> {
        self.sides.get(b).map(|s| s.v)
    }
    /// Angular velocity of body `b` (global axes).
    pub fn angular_velocity(&self, b: usize) -> Option<Vec3<R>> {
        self.sides.get(b).map(|s| s.w)
    }
    /// Adds a global force `f` acting at the global point `point` of body `b`.
    pub fn add_force_at(&mut self, b: usize, point: Vec3<R>, f: Vec3<R>) {
        if let (Some(s), Some(w)) = (self.sides.get(b), self.wrench.get_mut(b)) {
            w.add_force_at(s, point - s.x, f);
        }
    }
    /// Adds a global torque `t` to body `b`.
    pub fn add_torque(&mut self, b: usize, t: Vec3<R>) {
        if let (Some(s), Some(w)) = (self.sides.get(b), self.wrench.get_mut(b)) {
            w.add_torque(s, t);
        }
    }
    /// Number of flexible nodes.
    pub fn node_count(&self) -> usize {
        self.coordinates.len() / crate::ancf::NODE_COORDS
    }
    /// Coordinates of the flexible nodes (12 per node: r, ∂r/∂X, ∂r/∂Y, ∂r/∂Z).
    pub fn coordinates(&self) -> &[R] {
        self.coordinates
    }
    /// Rates of the flexible nodes' coordinates.
    pub fn rates(&self) -> &[R] {
        self.rates
    }
    /// The flexible nodes: their coordinates and rates, and the generalized forces on them to
    /// add to (same layout). Empty without nodes.
    pub fn nodes(&mut self) -> (&[R], &[R], &mut [R]) {
        (self.coordinates, self.rates, self.generalized)
    }
}
