//! Mutable simulation state and workspace (MuJoCo's mjData, Pinocchio's Data).

use crate::body::BodyRef;
use crate::constraint::{ConstraintRow, SideState};
use crate::force::Wrench;
use crate::math::{Quat, Vec3};
use crate::model::Model;
use crate::{Real, StepStats, STAGE_BUFFERS};

/// Reals per body in the state vector: 7 position coordinates + 6 velocities.
pub const BODY_STATE: usize = 13;

/// Workspace of the dynamics: everything computed from (q, v, t) in one evaluation.
#[derive(Clone, Debug)]
pub(crate) struct Work<R, const B: usize, const C: usize, const S: usize> {
    pub sides: [SideState<R>; B],
    pub wrench: [Wrench<R>; B],
    pub accel: [[R; 6]; B],
    pub rows: [ConstraintRow<R>; C],
    pub minv_jt: [[[R; 6]; 2]; C],
    pub matrix: [R; S],
    pub lambda: [R; C],
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
}

impl<R: Real, const B: usize, const C: usize, const S: usize> Work<R, B, C, S> {
    pub fn view(&mut self, bodies: usize, rows: usize) -> WorkView<'_, R> {
        WorkView {
            sides: &mut self.sides[..bodies],
            wrench: &mut self.wrench[..bodies],
            accel: &mut self.accel[..bodies],
            rows: &mut self.rows[..rows],
            minv_jt: &mut self.minv_jt[..rows],
            matrix: &mut self.matrix[..],
            lambda: &mut self.lambda[..rows],
        }
    }
}

/// All mutable state of a simulation: time, state vector, integrator stages, workspace and
/// counters. Sized by the same capacities as its [`Model`].
#[derive(Clone, Debug)]
pub struct Data<R, const BODIES: usize, const ROWS: usize, const SKYLINE: usize> {
    pub(crate) clock: crate::Clock<R>,
    pub(crate) body_count: usize,
    pub(crate) row_count: usize,
    /// Flat state `[q of all bodies (7 each) | v of all bodies (6 each)]`.
    pub(crate) state: [[R; BODY_STATE]; BODIES],
    pub(crate) stages: [[[R; BODY_STATE]; BODIES]; STAGE_BUFFERS],
    pub(crate) work: Work<R, BODIES, ROWS, SKYLINE>,
}

impl<R: Real, const B: usize, const C: usize, const S: usize> Data<R, B, C, S> {
    /// Fresh data for `model`, holding its bodies' initial state at t = 0.
    pub fn new<const J: usize, const F: usize>(model: &Model<R, B, J, F, C, S>) -> Self {
        let zero_side = SideState::GROUND;
        let mut data = Self {
            clock: crate::Clock::new(),
            body_count: model.bodies.len(),
            row_count: model.row_count,
            state: [[R::ZERO; BODY_STATE]; B],
            stages: [[[R::ZERO; BODY_STATE]; B]; STAGE_BUFFERS],
            work: Work {
                sides: [zero_side; B],
                wrench: [Wrench::default(); B],
                accel: [[R::ZERO; 6]; B],
                rows: [ConstraintRow::default(); C],
                minv_jt: [[[R::ZERO; 6]; 2]; C],
                matrix: [R::ZERO; S],
                lambda: [R::ZERO; C],
            },
        };
        for (i, body) in model.bodies.iter().enumerate() {
            let q = body.orientation.normalized().unwrap_or(Quat::IDENTITY);
            data.set_pose(i, body.position, q);
            data.set_velocity(i, body.velocity, body.angular_velocity);
        }
        data
    }

    /// Simulation time.
    pub fn time(&self) -> R {
        self.clock.time
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
        &self.state.as_flattened()[..BODY_STATE * self.body_count]
    }
    /// Lagrange multipliers of the last dynamics evaluation, one per constraint row
    /// (reaction of row r on the bodies: −Φ_qᵀ λ).
    pub fn multipliers(&self) -> &[R] {
        &self.work.lambda[..self.row_count]
    }
    /// Evaluated constraint rows of the last dynamics evaluation or projection.
    pub fn constraint_rows(&self) -> &[ConstraintRow<R>] {
        &self.work.rows[..self.row_count]
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
        let i = self.q_index(body);
        self.set_vec_at(i, position);
        for (k, c) in orientation.to_array().into_iter().enumerate() {
            self.set(i + 3 + k, c);
        }
    }
    /// Sets a body's velocities (origin velocity global, angular velocity in body axes).
    pub fn set_velocity(&mut self, body: usize, velocity: Vec3<R>, angular_velocity: Vec3<R>) {
        let i = self.v_index(body);
        self.set_vec_at(i, velocity);
        self.set_vec_at(i + 3, angular_velocity);
    }
    /// Global position of a body-fixed point (body coordinates), or of a ground point.
    pub fn point_position(&self, body: BodyRef, local: Vec3<R>) -> Vec3<R> {
        match body {
            BodyRef::Ground => local,
            BodyRef::Body(b) => self.position(b) + self.orientation(b).rotate(local),
        }
    }
}
