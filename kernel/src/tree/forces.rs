//! Force elements on the links of a tree: applied forces and torques and linear
//! spring-dampers ([`crate::rigid::Force`], the Cartesian model's elements, their body indices
//! naming links and their points and body-axis directions given in link frames), kept beside
//! the [`Model`] and acting as external forces on the links at every evaluation of the
//! dynamics ([`crate::Dynamics::step_with`]); their springs' potential is [`Forces::potential`].
//!
//! A rotational or translational spring-damper on a tree joint is the joint's own spring and damping
//! ([`super::Link::with_spring`], [`super::Link::with_damping`]), not an element here.

use super::{link_states, Data, Model};
use crate::rigid::{BodyRef, Force, SideState};
use crate::storage::{full, List, Storage};
use crate::{BuildError, Capacity, ExternalForces, ExternalLoads, Item, Real};

/// The force elements acting on a tree's links, in the forces list of `St`.
pub struct Forces<R: Real, St: Storage> {
    elements: St::Forces<Force<R>>,
}

impl<R: Real, St: Storage> Clone for Forces<R, St> {
    fn clone(&self) -> Self {
        Self {
            elements: self.elements.clone(),
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Forces<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.elements.iter()).finish()
    }
}

impl<R: Real, St: Storage> Default for Forces<R, St> {
    fn default() -> Self {
        Self {
            elements: List::empty(),
        }
    }
}

impl<R: Real, St: Storage> Forces<R, St> {
    /// No elements.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `force` on the links of `model` (its body indices are link indices) and returns
    /// its index. Errors name it as force k.
    pub fn add(&mut self, model: &Model<R, St>, force: Force<R>) -> Result<usize, BuildError> {
        let index = self.elements.len();
        if let Force::RotationalSpringDamper { .. } | Force::TranslationalSpringDamper { .. } = force {
            return Err(BuildError::InvalidParameter {
                item: Item::Force(index),
                reason: "a joint's spring-damper on a tree joint is the link's spring and damping (Link::with_spring, Link::with_damping)",
            });
        }
        if let Force::JointLimit { .. } = force {
            return Err(BuildError::InvalidParameter {
                item: Item::Force(index),
                reason: "a joint limit on a tree joint is the link's limit (Link::with_limit)",
            });
        }
        force.validate(index, &[], model.links().len())?;
        self.elements
            .try_push(force)
            .map_err(|_| full::<_, St::Forces<Force<R>>>(Capacity::Forces, index + 1))?;
        Ok(index)
    }

    /// The elements, in the order added.
    pub fn elements(&self) -> &[Force<R>] {
        &self.elements
    }

    /// The energy stored in the springs, ½ k (l − l0)² each, at the state of `data`.
    pub fn potential(&self, model: &Model<R, St>, data: &Data<R, St>) -> R {
        if self.elements.is_empty() {
            return R::ZERO;
        }
        let states = link_states(model, data);
        let side = |b: BodyRef| match b {
            BodyRef::Body(k) => states.get(k).map_or(SideState::GROUND, |s| s.side()),
            BodyRef::Ground => SideState::GROUND,
        };
        self.elements
            .iter()
            .fold(R::ZERO, |sum, f| sum + f.potential_energy(&[], side))
    }
}

impl<R: Real, St: Storage> ExternalForces<R> for Forces<R, St> {
    fn apply(&mut self, t: R, loads: &mut ExternalLoads<'_, R>) {
        let (sides, wrenches) = loads.bodies_mut();
        for force in self.elements.iter() {
            force.apply(t, &[], sides, wrenches);
        }
    }
}
