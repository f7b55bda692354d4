//! The mutable state of a tree: joint coordinates and rates, inputs, stages, workspace.

use super::dynamics::LinkWork;
use super::Model;
use crate::rigid::{SideState, Wrench};
use crate::storage::{sized, Storage};
use crate::{BuildError, Clock, Item, Real, StepStats, STAGE_BUFFERS};

/// All mutable data of a [`Model`] kept in its storage `St`: time, the state `[q | q̇]`, joint
/// inputs, integrator stages and the workspace of the dynamics.
pub struct Data<R: Real, St: Storage> {
    pub(crate) clock: Clock<R>,
    pub(crate) count: usize,
    /// `[q_0 … q_{n−1}, q̇_0 … q̇_{n−1}]`, stored as n pairs.
    pub(crate) state: St::Bodies<[R; 2]>,
    pub(crate) stages: [St::Bodies<[R; 2]>; STAGE_BUFFERS],
    pub(crate) input: St::Bodies<R>,
    pub(crate) work: St::Bodies<LinkWork<R>>,
    /// Link poses and velocities for external forces, and the wrenches they add.
    pub(crate) sides: St::Bodies<SideState<R>>,
    pub(crate) wrench: St::Bodies<Wrench<R>>,
}

impl<R: Real, St: Storage> Clone for Data<R, St> {
    fn clone(&self) -> Self {
        Self {
            clock: self.clock,
            count: self.count,
            state: self.state.clone(),
            stages: self.stages.clone(),
            input: self.input.clone(),
            work: self.work.clone(),
            sides: self.sides.clone(),
            wrench: self.wrench.clone(),
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Data<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("tree::Data")
            .field("time", &self.clock.time)
            .field("steps", &self.clock.steps)
            .field("state", &self.state())
            .field("inputs", &self.inputs())
            .finish()
    }
}

impl<R: Real, St: Storage> Data<R, St> {
    /// Data for `model` at t = 0 with every joint coordinate, rate and input zero.
    pub fn new(model: &Model<R, St>) -> Self {
        let n = model.links.len();
        Self {
            clock: Clock::new(),
            count: n,
            state: sized(n, [R::ZERO; 2]),
            stages: core::array::from_fn(|_| sized(n, [R::ZERO; 2])),
            input: sized(n, R::ZERO),
            work: sized(n, LinkWork::default()),
            sides: sized(n, SideState::GROUND),
            wrench: sized(n, Wrench::default()),
        }
    }
    /// Simulation time.
    pub fn time(&self) -> R {
        self.clock.time
    }
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.clock.steps
    }
    /// Counters of the last step.
    pub fn last_step(&self) -> StepStats {
        self.clock.last
    }
    /// The state `[q | q̇]` (2n reals).
    pub fn state(&self) -> &[R] {
        self.state.as_flattened()
    }
    /// Joint coordinates q (rad or m).
    pub fn positions(&self) -> &[R] {
        self.state().get(..self.count).unwrap_or_default()
    }
    /// Joint rates q̇ (rad/s or m/s).
    pub fn velocities(&self) -> &[R] {
        self.state().get(self.count..).unwrap_or_default()
    }
    /// Joint inputs (torque or force) applied during the steps.
    pub fn inputs(&self) -> &[R] {
        &self.input
    }
    /// Sets joint `joint`'s coordinate.
    pub fn set_position(&mut self, joint: usize, q: R) -> Result<(), BuildError> {
        let slot = self.slot(joint, 0, q)?;
        *slot = q;
        Ok(())
    }
    /// Sets joint `joint`'s rate.
    pub fn set_velocity(&mut self, joint: usize, rate: R) -> Result<(), BuildError> {
        let slot = self.slot(joint, self.count, rate)?;
        *slot = rate;
        Ok(())
    }
    /// Sets joint `joint`'s input: the actuator torque (revolute) or force (prismatic) held
    /// over the following steps.
    pub fn set_input(&mut self, joint: usize, value: R) -> Result<(), BuildError> {
        check(joint, self.count, value)?;
        let slot = self.input.get_mut(joint).ok_or(no_such_joint(joint))?;
        *slot = value;
        Ok(())
    }

    fn slot(&mut self, joint: usize, offset: usize, value: R) -> Result<&mut R, BuildError> {
        check(joint, self.count, value)?;
        self.state
            .as_flattened_mut()
            .get_mut(offset + joint)
            .ok_or(no_such_joint(joint))
    }
}

/// The error for a joint index the tree does not have.
fn no_such_joint(joint: usize) -> BuildError {
    BuildError::InvalidParameter {
        item: Item::Joint(joint),
        reason: "no such joint in the tree",
    }
}

/// Checks that `joint` exists and `value` is finite.
fn check<R: Real>(joint: usize, count: usize, value: R) -> Result<(), BuildError> {
    if joint >= count {
        Err(no_such_joint(joint))
    } else if !value.is_finite() {
        Err(BuildError::NonFinite {
            item: Item::Joint(joint),
        })
    } else {
        Ok(())
    }
}
