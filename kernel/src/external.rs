//! External forces supplied by the caller and evaluated inside the dynamics at every integrator
//! stage (the host's contact forces, for instance), so the kernel's explicit integrators see
//! them as smooth applied forces rather than impulses added between steps.

use crate::constraint::SideState;
use crate::force::Wrench;
use crate::math::{Mat3, Vec3};
use crate::Real;

/// A source of forces on the bodies, called once per dynamics evaluation (every stage).
pub trait ExternalForces<R: Real> {
    /// Adds forces to `loads` for the state at time `t` that `loads` describes.
    fn apply(&mut self, t: R, loads: &mut ExternalLoads<'_, R>);
}

/// No external forces: what [`step`](crate::step) uses.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoExternalForces;

impl<R: Real> ExternalForces<R> for NoExternalForces {
    fn apply(&mut self, _t: R, _loads: &mut ExternalLoads<'_, R>) {}
}

/// The body states of one dynamics evaluation and the wrenches external forces add to.
/// Unknown body indices read as `None` and are ignored when written.
pub struct ExternalLoads<'a, R> {
    pub(crate) sides: &'a [SideState<R>],
    pub(crate) wrench: &'a mut [Wrench<R>],
}

impl<R: Real> ExternalLoads<'_, R> {
    /// Number of bodies.
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
}
