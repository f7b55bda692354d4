//! Mutable simulation state and workspace (MuJoCo's mjData, Pinocchio's Data).

use super::body::BodyRef;
use super::constraint::{ConstraintRow, SideState};
use super::force::Wrench;
use super::model::Model;
use crate::math::{Quat, Vec3};
use crate::storage::{resize, resize_zeroed, List, Storage};
use crate::{Real, StepStats, STAGE_BUFFERS};

/// Reals per body in the state vector: 7 position coordinates + 6 velocities.
pub const BODY_STATE: usize = 13;

/// Workspace of the dynamics: everything computed from (q, v, t) in one evaluation.
pub(crate) struct Work<R: Real, St: Storage> {
    pub sides: St::Bodies<SideState<R>>,
    pub wrench: St::Bodies<Wrench<R>>,
    pub accel: St::Bodies<[R; 6]>,
    pub rows: St::Rows<ConstraintRow<R>>,
    pub minv_jt: St::Rows<[[R; 6]; 2]>,
    pub matrix: St::Skyline<R>,
    pub lambda: St::Rows<R>,
    /// What `matrix` and `minv_jt` hold (see `RigidSystem::factor_constraint_matrix`).
    pub factor: Factor<R>,
}

/// What the workspace's factor of Φ_q M⁻¹ Φ_qᵀ (and M⁻¹ Φ_qᵀ) is the factor of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Factor<R> {
    /// Nothing usable (a new, reset or re-posed state, or a failed factorization).
    None,
    /// The factor at the body poses in `sides`, made at time t: exact for them.
    Current(R),
    /// The factor of poses the bodies have left since (the last evaluation's, within the
    /// step): a Newton correction of the projection may use it while it converges.
    Nearby,
}

/// Mutable borrows of the workspace, without capacities.
pub(crate) struct WorkView<'a, R> {
    pub sides: &'a mut [SideState<R>],
    pub wrench: &'a mut [Wrench<R>],
    pub accel: &'a mut [[R; 6]],
    pub rows: &'a mut [ConstraintRow<R>],
    pub minv_jt: &'a mut [[[R; 6]; 2]],
    pub matrix: &'a mut [R],
    pub lambda: &'a mut [R],
    pub factor: &'a mut Factor<R>,
}

impl<R: Real, St: Storage> Work<R, St> {
    pub fn view(&mut self) -> WorkView<'_, R> {
        WorkView {
            sides: &mut self.sides,
            wrench: &mut self.wrench,
            accel: &mut self.accel,
            rows: &mut self.rows,
            minv_jt: &mut self.minv_jt,
            matrix: &mut self.matrix,
            lambda: &mut self.lambda,
            factor: &mut self.factor,
        }
    }
}

/// All mutable state of a rigid simulation: time, state vector, integrator stages, workspace and
/// counters, kept in the storage `St` of its model.
pub struct Data<R: Real, St: Storage> {
    pub(crate) clock: crate::Clock<R>,
    pub(crate) body_count: usize,
    pub(crate) row_count: usize,
    /// Flat state `[q of all bodies (7 each) | v of all bodies (6 each)]`.
    pub(crate) state: St::Bodies<[R; BODY_STATE]>,
    pub(crate) stages: [St::Bodies<[R; BODY_STATE]>; STAGE_BUFFERS],
    pub(crate) work: Work<R, St>,
}

impl<R: Real, St: Storage> Clone for Data<R, St> {
    fn clone(&self) -> Self {
        Self {
            clock: self.clock,
            body_count: self.body_count,
            row_count: self.row_count,
            state: self.state.clone(),
            stages: self.stages.clone(),
            work: Work {
                sides: self.work.sides.clone(),
                wrench: self.work.wrench.clone(),
                accel: self.work.accel.clone(),
                rows: self.work.rows.clone(),
                minv_jt: self.work.minv_jt.clone(),
                matrix: self.work.matrix.clone(),
                lambda: self.work.lambda.clone(),
                factor: self.work.factor,
            },
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Data<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Data")
            .field("time", &self.clock.time)
            .field("steps", &self.clock.steps)
            .field("state", &self.state())
            .finish()
    }
}

impl<R: Real, St: Storage> Data<R, St> {
    /// Fresh data for `model`, holding its bodies' initial state at t = 0.
    pub fn new(model: &Model<R, St>) -> Self {
        let mut data = Self::empty();
        data.reset(model);
        data
    }

    /// Fresh data for `model` made in `slot` and borrowed from there: on a microcontroller
    /// `slot` is a `static` (or part of one), so the data never passes through the stack.
    pub fn new_in<'s>(slot: &'s mut Option<Self>, model: &Model<R, St>) -> &'s mut Self {
        let data = slot.insert(Self::empty());
        data.reset(model);
        data
    }

    /// Makes this the fresh data of `model` (its bodies' initial state, t = 0), in place.
    pub fn reset(&mut self, model: &Model<R, St>) {
        let (bodies, rows) = (model.bodies.len(), model.row_count);
        self.clock = crate::Clock::new();
        self.body_count = bodies;
        self.row_count = rows;
        // The data lists have the model's capacities, so they hold its sizes.
        resize(&mut self.state, bodies, [R::ZERO; BODY_STATE]);
        for stage in &mut self.stages {
            resize(stage, bodies, [R::ZERO; BODY_STATE]);
        }
        let work = &mut self.work;
        resize(&mut work.sides, bodies, SideState::GROUND);
        resize_zeroed(&mut work.wrench, bodies);
        resize(&mut work.accel, bodies, [R::ZERO; 6]);
        // Zeroed: the rows of a model that is never solved (a tree's Cartesian mirror) are
        // never written (its assembly evaluates one joint at a time).
        resize_zeroed(&mut work.rows, rows);
        resize(&mut work.minv_jt, rows, [[R::ZERO; 6]; 2]);
        resize(&mut work.matrix, model.skyline_entries, R::ZERO);
        resize(&mut work.lambda, rows, R::ZERO);
        work.factor = Factor::None;
        for (i, body) in model.bodies.iter().enumerate() {
            let q = body.orientation.normalized().unwrap_or(Quat::IDENTITY);
            self.set_pose(i, body.position, q);
            self.set_velocity(i, body.velocity, body.angular_velocity);
        }
    }

    /// Data of no bodies (lists empty: writing it copies no buffer).
    fn empty() -> Self {
        Self {
            clock: crate::Clock::new(),
            body_count: 0,
            row_count: 0,
            state: List::empty(),
            stages: core::array::from_fn(|_| List::empty()),
            work: Work {
                sides: List::empty(),
                wrench: List::empty(),
                accel: List::empty(),
                rows: List::empty(),
                minv_jt: List::empty(),
                matrix: List::empty(),
                lambda: List::empty(),
                factor: Factor::None,
            },
        }
    }

    /// Simulation time.
    pub fn time(&self) -> R {
        self.clock.time
    }
    /// The clock's time and the rounding its compensated sum carries: with
    /// [`Data::resume_clock`], a saved run goes on bit for bit (state save and restore).
    pub fn clock_reading(&self) -> [R; 2] {
        self.clock.reading()
    }
    /// Moves the clock to a [`Data::clock_reading`]; state and counters kept.
    pub fn resume_clock(&mut self, reading: [R; 2]) {
        self.clock.resume(reading);
    }
    /// Sets the simulation time, the state kept: for integrators outside the kernel (the host's
    /// implicit solvers) that evaluate the model at their own trial times.
    pub fn set_time(&mut self, time: R) {
        self.clock.set_time(time);
    }
    /// Number of steps taken.
    pub fn steps(&self) -> u64 {
        self.clock.steps
    }
    /// Counters of the last step.
    pub fn last_step(&self) -> StepStats {
        self.clock.last
    }
    /// Counters summed over all steps.
    pub fn total_stats(&self) -> StepStats {
        self.clock.total
    }
    /// The flat state `[q | v]` (7 + 6 reals a body).
    pub fn state(&self) -> &[R] {
        self.state.as_flattened()
    }
    /// Lagrange multipliers of the last dynamics evaluation, one per constraint row
    /// (reaction of row r on the bodies: −Φ_qᵀ λ).
    pub fn multipliers(&self) -> &[R] {
        &self.work.lambda
    }
    /// Evaluated constraint rows of the last dynamics evaluation or projection.
    pub fn constraint_rows(&self) -> &[ConstraintRow<R>] {
        &self.work.rows
    }

    fn q_index(&self, body: usize) -> usize {
        7 * body
    }
    fn v_index(&self, body: usize) -> usize {
        7 * self.body_count + 6 * body
    }
    fn get(&self, i: usize) -> R {
        self.state.as_flattened().get(i).copied().unwrap_or(R::ZERO)
    }
    fn set(&mut self, i: usize, x: R) {
        if let Some(slot) = self.state.as_flattened_mut().get_mut(i) {
            *slot = x;
        }
    }
    fn vec_at(&self, i: usize) -> Vec3<R> {
        Vec3::new(self.get(i), self.get(i + 1), self.get(i + 2))
    }
    fn set_vec_at(&mut self, i: usize, v: Vec3<R>) {
        self.set(i, v.x);
        self.set(i + 1, v.y);
        self.set(i + 2, v.z);
    }

    /// Position of the body frame origin (global); zero for an unknown body.
    pub fn position(&self, body: usize) -> Vec3<R> {
        self.vec_at(self.q_index(body))
    }
    /// Orientation (body → global).
    pub fn orientation(&self, body: usize) -> Quat<R> {
        let i = self.q_index(body) + 3;
        Quat::new(self.get(i), self.get(i + 1), self.get(i + 2), self.get(i + 3))
    }
    /// Velocity of the body frame origin (global).
    pub fn velocity(&self, body: usize) -> Vec3<R> {
        self.vec_at(self.v_index(body))
    }
    /// Angular velocity (body axes).
    pub fn angular_velocity(&self, body: usize) -> Vec3<R> {
        self.vec_at(self.v_index(body) + 3)
    }
    /// Sets a body's pose.
    pub fn set_pose(&mut self, body: usize, position: Vec3<R>, orientation: Quat<R>) {
        self.work.factor = Factor::None;
        let i = self.q_index(body);
        self.set_vec_at(i, position);
        for (k, c) in orientation.to_array().into_iter().enumerate() {
            self.set(i + 3 + k, c);
        }
    }
    /// Sets a body's velocities (origin velocity global, angular velocity in body axes).
    pub fn set_velocity(&mut self, body: usize, velocity: Vec3<R>, angular_velocity: Vec3<R>) {
        self.work.factor = Factor::None;
        let i = self.v_index(body);
        self.set_vec_at(i, velocity);
        self.set_vec_at(i + 3, angular_velocity);
    }
    /// Global velocity of a body-fixed point (body coordinates); zero for a ground point.
    pub fn point_velocity(&self, body: BodyRef, local: Vec3<R>) -> Vec3<R> {
        match body {
            BodyRef::Ground => Vec3::ZERO,
            BodyRef::Body(b) => {
                let q = self.orientation(b);
                self.velocity(b) + q.rotate(self.angular_velocity(b).cross(local))
            }
        }
    }
    /// Global position of a body-fixed point (body coordinates), or of a ground point.
    pub fn point_position(&self, body: BodyRef, local: Vec3<R>) -> Vec3<R> {
        match body {
            BodyRef::Ground => local,
            BodyRef::Body(b) => self.position(b) + self.orientation(b).rotate(local),
        }
    }
}
