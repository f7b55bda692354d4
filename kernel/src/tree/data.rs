//! The mutable state of a tree: joint coordinates and rates, inputs, stages, workspace.

use super::dynamics::{link_state, LinkState, LinkWork};
use super::loops::LoopData;
use super::planar::PlanarWork;
use super::{Coordinates, Model, MultiJoint};
use crate::math::Quat;
use crate::rigid::{SideState, Wrench};
use crate::storage::{resize, resize_zeroed, sized, sized_zeroed, List, Storage};
use crate::{BuildError, Clock, Item, Real, StepStats, STAGE_BUFFERS};

/// All mutable data of a [`Model`] kept in its storage `St`: time, the state `[q | v]`, joint
/// inputs, integrator stages and the workspace of the dynamics.
///
/// q holds each joint's position coordinates and v its velocity coordinates, link by link
/// ([`Model::coordinates`] says where; one each for revolute and prismatic joints, so that
/// coordinate k is joint k's in a tree of those). Inputs are per velocity coordinate.
pub struct Data<R: Real, St: Storage> {
    pub(crate) clock: Clock<R>,
    /// Number of position coordinates nq (the velocities, nv, are `input.len()`).
    pub(crate) count: usize,
    /// `[q_0 … q_{nq−1}, v_0 … v_{nv−1}]` (and one spare real when nq + nv is odd), stored as
    /// pairs in the bodies capacity.
    pub(crate) state: St::Bodies<[R; 2]>,
    pub(crate) stages: [St::Bodies<[R; 2]>; STAGE_BUFFERS],
    /// One input per velocity coordinate.
    pub(crate) input: St::Bodies<R>,
    /// One per link.
    pub(crate) work: St::Bodies<LinkWork<R>>,
    /// One per link of a planar tree (none otherwise).
    pub(crate) planar: St::Bodies<PlanarWork<R>>,
    /// Link poses and velocities for external forces, and the wrenches they add.
    pub(crate) sides: St::Bodies<SideState<R>>,
    pub(crate) wrench: St::Bodies<Wrench<R>>,
    /// The loop rows, their multipliers and dense matrices ([`super::loops`]; empty without
    /// loops).
    pub(crate) loops: LoopData<R, St>,
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
            planar: self.planar.clone(),
            sides: self.sides.clone(),
            wrench: self.wrench.clone(),
            loops: self.loops.clone(),
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
    /// Data for `model` at t = 0 with every joint at zero coordinates (identity quaternions),
    /// at rest, with zero inputs.
    pub fn new(model: &Model<R, St>) -> Self {
        let n = model.links.len();
        let (nq, nv) = (model.position_count(), model.velocity_count());
        let pairs = model.slots();
        // Identity quaternions; the state is built before `Self` so that the data is made in
        // place (returning a mutated local copies all of it through the stack).
        let mut state: St::Bodies<[R; 2]> = sized(pairs, [R::ZERO; 2]);
        identity_quaternions(model, &mut state);
        Self {
            clock: Clock::new(),
            count: nq,
            state,
            stages: core::array::from_fn(|_| sized(pairs, [R::ZERO; 2])),
            input: sized(nv, R::ZERO),
            work: sized(n, LinkWork::default()),
            planar: sized_zeroed(model.planar.len()),
            sides: sized(n, SideState::GROUND),
            wrench: sized_zeroed(n),
            loops: LoopData::new(model),
        }
    }
    /// Fresh data for `model` (as [`Data::new`]) made in `slot` and borrowed from there: on a
    /// microcontroller `slot` is a `static` (or part of one), so the data never passes through
    /// the stack.
    pub fn new_in<'s>(slot: &'s mut Option<Self>, model: &Model<R, St>) -> &'s mut Self {
        let data = slot.insert(Self {
            clock: Clock::new(),
            count: 0,
            state: List::empty(),
            stages: core::array::from_fn(|_| List::empty()),
            input: List::empty(),
            work: List::empty(),
            planar: List::empty(),
            sides: List::empty(),
            wrench: List::empty(),
            loops: LoopData::empty(),
        });
        data.reset(model);
        data
    }

    /// Makes this the fresh data of `model` (zero coordinates, at rest, zero inputs, t = 0),
    /// in place.
    pub fn reset(&mut self, model: &Model<R, St>) {
        let n = model.links.len();
        let (nq, nv) = (model.position_count(), model.velocity_count());
        let pairs = model.slots();
        self.clock = Clock::new();
        self.count = nq;
        resize(&mut self.state, pairs, [R::ZERO; 2]);
        identity_quaternions(model, &mut self.state);
        for stage in &mut self.stages {
            resize(stage, pairs, [R::ZERO; 2]);
        }
        resize(&mut self.input, nv, R::ZERO);
        resize(&mut self.work, n, LinkWork::default());
        resize_zeroed(&mut self.planar, model.planar.len());
        resize(&mut self.sides, n, SideState::GROUND);
        resize_zeroed(&mut self.wrench, n);
        self.loops.reset(model);
    }

    /// Link `link`'s pose and velocity as [`super::update_link_states`] (or a step with loads)
    /// last left them in the workspace; `None` past the last link.
    pub fn link_state(&self, link: usize) -> Option<LinkState<R>> {
        self.work.get(link).map(|w| link_state(&w.motion))
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
    /// Steps taken.
    pub fn steps(&self) -> u64 {
        self.clock.steps
    }
    /// Counters of the last step.
    pub fn last_step(&self) -> StepStats {
        self.clock.last
    }
    /// The state `[q | v]` (nq + nv reals).
    pub fn state(&self) -> &[R] {
        let len = self.count + self.input.len();
        self.state.as_flattened().get(..len).unwrap_or_default()
    }
    /// Position coordinates q (rad, m, quaternion components).
    pub fn positions(&self) -> &[R] {
        self.state().get(..self.count).unwrap_or_default()
    }
    /// Velocity coordinates v (rad/s, m/s).
    pub fn velocities(&self) -> &[R] {
        self.state().get(self.count..).unwrap_or_default()
    }
    /// The multipliers λ of the constraint rows (the loop rows, then the coordinate rows) as
    /// the last evaluation of the dynamics left them: call [`super::accelerations`] at the
    /// state first (a step ends with the projection, which uses them as its workspace). The
    /// generalized force a coordinate row puts on its joint's coordinate is −λ (a drive's
    /// torque or force), and −m·(−λ) on a coupling's leader.
    pub fn multipliers(&self) -> &[R] {
        self.loops.multipliers()
    }
    /// Inputs (torque or force per velocity coordinate) applied during the steps.
    pub fn inputs(&self) -> &[R] {
        &self.input
    }
    /// Sets position coordinate `index` of q (joint `index`'s coordinate in a tree of
    /// revolute and prismatic joints). A quaternion set component by component is normalised
    /// by the next step; [`Data::set_joint_position`] checks it instead.
    pub fn set_position(&mut self, index: usize, q: R) -> Result<(), BuildError> {
        let slot = self.slot(index, 0, self.count, q)?;
        *slot = q;
        Ok(())
    }
    /// Sets velocity coordinate `index` of v (joint `index`'s rate in a tree of revolute and
    /// prismatic joints).
    pub fn set_velocity(&mut self, index: usize, rate: R) -> Result<(), BuildError> {
        let slot = self.slot(index, self.count, self.input.len(), rate)?;
        *slot = rate;
        Ok(())
    }
    /// Sets input `index` (one per velocity coordinate; joint `index`'s in a tree of revolute
    /// and prismatic joints): the actuator torque (rotation) or force (translation) held over
    /// the following steps.
    pub fn set_input(&mut self, index: usize, value: R) -> Result<(), BuildError> {
        check(index, self.input.len(), value)?;
        let slot = self.input.get_mut(index).ok_or(no_such_joint(index))?;
        *slot = value;
        Ok(())
    }

    /// Sets the position coordinates of link `link`'s joint (as many as
    /// [`Link::position_count`](super::Link::position_count)). A quaternion (spherical, free)
    /// must have unit length to within 10⁻⁶ (f64) or 10⁻³ (f32); it is stored normalised.
    pub fn set_joint_position(
        &mut self,
        model: &Model<R, St>,
        link: usize,
        q: &[R],
    ) -> Result<(), BuildError> {
        let (at, joint) = self.joint(model, link, q, at_positions)?;
        let tolerance = if R::BYTES == 4 { 1e-3 } else { 1e-6 };
        let mut values = [R::ZERO; 7];
        for (v, x) in values.iter_mut().zip(q) {
            *v = *x;
        }
        let quaternion = match joint {
            Some(MultiJoint::Spherical) => values.get_mut(..4),
            Some(MultiJoint::Free) => values.get_mut(3..),
            _ => None,
        };
        if let Some(quaternion) = quaternion {
            let raw = Quat::new(quaternion[0], quaternion[1], quaternion[2], quaternion[3]);
            match raw.normalized() {
                Some(unit) if (raw.norm() - R::ONE).abs().to_f64() <= tolerance => {
                    quaternion.copy_from_slice(&unit.to_array());
                }
                _ => {
                    return Err(BuildError::InvalidParameter {
                        item: Item::Joint(link),
                        reason: "the joint's quaternion must have unit length",
                    })
                }
            }
        }
        let state = self.state.as_flattened_mut();
        let slots = state.get_mut(at.position..at.position + at.positions);
        slots
            .ok_or(no_such_joint(link))?
            .copy_from_slice(values.get(..at.positions).unwrap_or_default());
        Ok(())
    }
    /// Sets the velocity coordinates of link `link`'s joint (as many as
    /// [`Link::velocity_count`](super::Link::velocity_count)).
    pub fn set_joint_velocity(
        &mut self,
        model: &Model<R, St>,
        link: usize,
        v: &[R],
    ) -> Result<(), BuildError> {
        let (at, _) = self.joint(model, link, v, at_velocities)?;
        let start = self.count + at.velocity;
        let state = self.state.as_flattened_mut();
        let slots = state.get_mut(start..start + at.velocities);
        slots.ok_or(no_such_joint(link))?.copy_from_slice(v);
        Ok(())
    }
    /// Sets the inputs of link `link`'s joint (one per velocity coordinate).
    pub fn set_joint_input(
        &mut self,
        model: &Model<R, St>,
        link: usize,
        input: &[R],
    ) -> Result<(), BuildError> {
        let (at, _) = self.joint(model, link, input, at_velocities)?;
        let slots = self.input.get_mut(at.velocity..at.velocity + at.velocities);
        slots.ok_or(no_such_joint(link))?.copy_from_slice(input);
        Ok(())
    }
    /// The position coordinates of link `link`'s joint.
    pub fn joint_position(&self, model: &Model<R, St>, link: usize) -> &[R] {
        model
            .coordinates(link)
            .and_then(|at| self.positions().get(at.position..at.position + at.positions))
            .unwrap_or_default()
    }
    /// The velocity coordinates of link `link`'s joint.
    pub fn joint_velocity(&self, model: &Model<R, St>, link: usize) -> &[R] {
        model
            .coordinates(link)
            .and_then(|at| self.velocities().get(at.velocity..at.velocity + at.velocities))
            .unwrap_or_default()
    }

    /// Where link `link`'s coordinates are and its joint, after checking that `values` has
    /// the length `len_of` says and finite entries, and that the data belongs to `model`.
    fn joint(
        &self,
        model: &Model<R, St>,
        link: usize,
        values: &[R],
        len_of: fn(&Coordinates) -> usize,
    ) -> Result<(Coordinates, Option<MultiJoint>), BuildError> {
        let at = model.coordinates(link).ok_or(no_such_joint(link))?;
        let joint = model.links.get(link).and_then(|l| l.multi);
        if self.count != model.position_count() || self.input.len() != model.velocity_count() {
            return Err(BuildError::InvalidParameter {
                item: Item::Joint(link),
                reason: "the data was made for another tree",
            });
        }
        if values.len() != len_of(&at) {
            return Err(BuildError::InvalidParameter {
                item: Item::Joint(link),
                reason: "wrong number of values for the joint's coordinates",
            });
        }
        if !values.iter().all(|x| x.is_finite()) {
            return Err(BuildError::NonFinite {
                item: Item::Joint(link),
            });
        }
        Ok((at, joint))
    }

    fn slot(&mut self, index: usize, offset: usize, len: usize, value: R) -> Result<&mut R, BuildError> {
        check(index, len, value)?;
        self.state
            .as_flattened_mut()
            .get_mut(offset + index)
            .ok_or(no_such_joint(index))
    }
}

fn at_positions(at: &Coordinates) -> usize {
    at.positions
}
fn at_velocities(at: &Coordinates) -> usize {
    at.velocities
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

/// Sets the real part of every spherical and free joint's quaternion in `state` (zero
/// coordinates elsewhere) to one: the identity rotation.
fn identity_quaternions<R: Real, St: Storage>(model: &Model<R, St>, state: &mut St::Bodies<[R; 2]>) {
    let mut offset = 0;
    for link in model.links.iter() {
        let quaternion = match link.multi {
            Some(MultiJoint::Spherical) => Some(offset),
            Some(MultiJoint::Free) => Some(offset + 3),
            _ => None,
        };
        if let Some(w) = quaternion.and_then(|i| state.as_flattened_mut().get_mut(i)) {
            *w = R::ONE;
        }
        offset += link.position_count();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Mat3, Vec3};
    use crate::tree::Link;
    use crate::Fixed;

    #[test]
    fn data_made_in_place_equals_new_data_and_reset_restarts_it() {
        // A ball joint (quaternion) and a hinge: 5 positions, 4 rates, 5 slots.
        let mut b = Model::<f64, Fixed<5>>::builder(Vec3::new(0.0, 0.0, -9.81));
        let inertia = Mat3::diagonal(Vec3::new(0.02, 0.02, 0.01));
        let ball = Link::spherical(None, Vec3::ZERO).with_mass(1.0, Vec3::new(0.0, 0.0, -0.5), inertia);
        let hinge = Link::revolute(Some(0), Vec3::new(0.0, 0.0, -1.0), Vec3::Y);
        b.add_link(ball).unwrap();
        b.add_link(hinge.with_mass(1.0, Vec3::new(0.0, 0.0, -0.5), inertia))
            .unwrap();
        let model = b.build_in_place().unwrap();
        let fresh = Data::new(model);
        let mut slot = None;
        let data = Data::new_in(&mut slot, model);
        assert_eq!((data.state(), data.inputs()), (fresh.state(), fresh.inputs()));
        assert_eq!(data.state()[0], 1.0); // identity quaternion
        data.set_velocity(1, 0.5).unwrap();
        data.set_input(3, 2.0).unwrap();
        data.reset(model);
        assert_eq!((data.state(), data.inputs()), (fresh.state(), fresh.inputs()));
    }
}
