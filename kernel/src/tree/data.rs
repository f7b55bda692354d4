//! The mutable state of a tree: joint coordinates and rates, inputs, stages, workspace.

use super::dynamics::LinkWork;
use super::TreeModel;
use crate::{BuildError, Clock, Item, Real, StepStats, STAGE_BUFFERS};

/// All mutable data of a [`TreeModel`] with `N` links at most: time, the state
/// `[q | q̇]`, joint inputs, integrator stages and the workspace of the dynamics.
#[derive(Clone, Debug)]
pub struct TreeData<R: Real, const N: usize> {
    pub(crate) clock: Clock<R>,
    pub(crate) count: usize,
    /// `[q_0 … q_{n−1}, q̇_0 … q̇_{n−1}]` in the first 2n entries.
    pub(crate) state: [[R; 2]; N],
    pub(crate) stages: [[[R; 2]; N]; STAGE_BUFFERS],
    pub(crate) input: [R; N],
    pub(crate) work: [LinkWork<R>; N],
}

impl<R: Real, const N: usize> TreeData<R, N> {
    /// Data for `model` at t = 0 with every joint coordinate, rate and input zero.
    pub fn new(model: &TreeModel<R, N>) -> Self {
        Self {
            clock: Clock::new(),
            count: model.links.len(),
            state: [[R::ZERO; 2]; N],
            stages: [[[R::ZERO; 2]; N]; STAGE_BUFFERS],
            input: [R::ZERO; N],
            work: [LinkWork::default(); N],
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
        let flat = self.state.as_flattened();
        flat.get(..2 * self.count).unwrap_or(flat)
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
        self.input.get(..self.count).unwrap_or_default()
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
