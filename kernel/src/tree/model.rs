//! Links, joints and the immutable tree model.

use crate::math::{Mat3, Vec3};
use crate::rigid::Body;
use crate::storage::{full, List, Storage};
use crate::{BuildError, Capacity, Item, Real};

/// The one degree of freedom between a link and its parent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TreeJoint {
    /// Rotation about the axis (coordinate in rad, input a torque in N·m).
    #[default]
    Revolute,
    /// Translation along the axis (coordinate in m, input a force in N).
    Prismatic,
}

/// A rigid link and the joint that attaches it to its parent (an earlier link, or the ground).
///
/// The link frame has its origin on the joint, at `origin` in the parent frame, and the parent's
/// axes at zero joint coordinate; the coordinate then rotates it about, or moves it along,
/// `axis` (parent axes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Link<R> {
    /// Parent link, `None` for the ground (the world frame).
    pub parent: Option<usize>,
    /// Joint type.
    pub joint: TreeJoint,
    /// Joint origin in the parent frame.
    pub origin: Vec3<R>,
    /// Joint axis in the parent frame (normalised by the builder).
    pub axis: Vec3<R>,
    /// Mass (kg), > 0.
    pub mass: R,
    /// Centre of gravity in the link frame.
    pub cg: Vec3<R>,
    /// Inertia about the CG in link axes, symmetric positive definite.
    pub inertia: Mat3<R>,
    /// Viscous joint damping (N·m·s/rad or N·s/m), ≥ 0.
    pub damping: R,
}

impl<R: Real> Link<R> {
    /// A massless link on a revolute joint (set its mass with [`Link::with_mass`]).
    pub fn revolute(parent: Option<usize>, origin: Vec3<R>, axis: Vec3<R>) -> Self {
        Self {
            parent,
            joint: TreeJoint::Revolute,
            origin,
            axis,
            ..Self::default()
        }
    }
    /// A massless link on a prismatic joint (set its mass with [`Link::with_mass`]).
    pub fn prismatic(parent: Option<usize>, origin: Vec3<R>, axis: Vec3<R>) -> Self {
        Self {
            joint: TreeJoint::Prismatic,
            ..Self::revolute(parent, origin, axis)
        }
    }
    /// Sets mass, CG (link frame) and inertia about the CG (link axes).
    pub fn with_mass(mut self, mass: R, cg: Vec3<R>, inertia: Mat3<R>) -> Self {
        self.mass = mass;
        self.cg = cg;
        self.inertia = inertia;
        self
    }
    /// Sets the viscous joint damping.
    pub fn with_damping(mut self, damping: R) -> Self {
        self.damping = damping;
        self
    }

    /// Checks link `index` and returns it with a unit axis. Mass properties are checked as a
    /// [`Body`]'s, so errors call link k "body k" (and its joint "joint k").
    fn validated(mut self, index: usize) -> Result<Self, BuildError> {
        let joint = Item::Joint(index);
        if self.parent.is_some_and(|p| p >= index) {
            return Err(BuildError::InvalidParameter {
                item: Item::Body(index),
                reason: "parent must be a link added earlier",
            });
        }
        if !(self.origin.is_finite() && self.axis.is_finite() && self.damping.is_finite()) {
            return Err(BuildError::NonFinite { item: joint });
        }
        if self.damping < R::ZERO {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "damping must be ≥ 0",
            });
        }
        self.axis = self
            .axis
            .normalized()
            .ok_or(BuildError::ZeroLengthAxis { item: joint })?;
        Body::new(self.mass, self.inertia)
            .with_cg(self.cg)
            .validate(index)?;
        Ok(self)
    }
}

/// An open kinematic tree of rigid links in joint coordinates, its links kept in the bodies
/// list of `St` (one per link): the immutable description (see [`super::Data`] for the state).
pub struct Model<R: Real, St: Storage> {
    pub(crate) links: St::Bodies<Link<R>>,
    pub(crate) gravity: Vec3<R>,
}

impl<R: Real, St: Storage> Clone for Model<R, St> {
    fn clone(&self) -> Self {
        Self {
            links: self.links.clone(),
            gravity: self.gravity,
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Model<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("tree::Model")
            .field("links", &&*self.links)
            .field("gravity", &self.gravity)
            .finish()
    }
}

impl<R: Real, St: Storage> Model<R, St> {
    /// Starts a model with gravity `gravity` (world axes).
    pub fn builder(gravity: Vec3<R>) -> Builder<R, St> {
        Builder {
            model: Self {
                links: List::empty(),
                gravity,
            },
        }
    }
    /// The links, in the order added (every parent before its children).
    pub fn links(&self) -> &[Link<R>] {
        &self.links
    }
    /// Gravity (world axes).
    pub fn gravity(&self) -> Vec3<R> {
        self.gravity
    }
}

/// Collects links and checks each as it is added.
pub struct Builder<R: Real, St: Storage> {
    model: Model<R, St>,
}

impl<R: Real, St: Storage> Builder<R, St> {
    /// Adds a link (its parent must already be there) and returns its index.
    pub fn add_link(&mut self, link: Link<R>) -> Result<usize, BuildError> {
        let index = self.model.links.len();
        let link = link.validated(index)?;
        self.model
            .links
            .try_push(link)
            .map_err(|_| full::<_, St::Bodies<Link<R>>>(Capacity::Bodies, index + 1))?;
        Ok(index)
    }
    /// Finishes the model.
    pub fn build(self) -> Result<Model<R, St>, BuildError> {
        if !self.model.gravity.is_finite() {
            return Err(BuildError::NonFinite { item: Item::Ground });
        }
        Ok(self.model)
    }
}
