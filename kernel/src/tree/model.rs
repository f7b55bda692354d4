//! Links, joints and the immutable tree model.

use super::coordinate_rows::{CoordinateLaw, CoordinateRow};
use super::friction::JointFriction;
use super::planar::{plane_of, PlanarLink, Plane};
use super::servo::Servo;
use super::shape::LinkShape;
use super::tendon::Tendon;
use crate::math::{Mat3, Vec3};
use crate::rigid::{Body, BodyRef, Joint, JointKind, Stabilization};
use crate::storage::{full, List, Storage};
use crate::time_function::TimeFunction;
use crate::{BuildError, Capacity, Item, JointLimit, Real};

/// The one degree of freedom of a 1-DOF joint (the joint of a link whose
/// [`Link::multi`] is `None`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum TreeJoint {
    /// Rotation about the axis (coordinate in rad, input a torque in N·m).
    #[default]
    Revolute,
    /// Translation along the axis (coordinate in m, input a force in N).
    Prismatic,
}

/// A joint of several degrees of freedom (it replaces [`Link::joint`] when set in
/// [`Link::multi`]). Coordinates, in the order they sit in the state:
///
/// | joint | positions q | velocities v (and inputs) |
/// |---|---|---|
/// | `Cylindrical` | angle about `axis` (rad), slide along it (m) | their rates |
/// | `Universal` | angle about `axis` (parent frame), then about `second_axis` (intermediate frame) | their rates |
/// | `Spherical` | unit quaternion w x y z (link → parent axes) | angular velocity relative to the parent, link axes |
/// | `Free` | origin offset from the joint origin (parent axes), unit quaternion w x y z (link → parent) | its rate (parent axes), angular velocity relative to the parent (link axes) |
///
/// A free joint on a root link is a floating base with the Cartesian model's body state
/// (position, quaternion, origin velocity in world axes, angular velocity in body axes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MultiJoint {
    /// Rotation about and translation along `axis` (2 coordinates).
    Cylindrical,
    /// Rotation about `axis`, then about the perpendicular `second_axis` (2 coordinates).
    Universal,
    /// Ball joint: any rotation about the joint origin (4 positions, 3 velocities).
    Spherical,
    /// No constraint: 6 degrees of freedom (7 positions, 6 velocities).
    Free,
}

impl MultiJoint {
    /// Number of position coordinates.
    pub const fn positions(self) -> usize {
        match self {
            Self::Cylindrical | Self::Universal => 2,
            Self::Spherical => 4,
            Self::Free => 7,
        }
    }
    /// Number of velocity coordinates (the degrees of freedom, and the inputs).
    pub const fn velocities(self) -> usize {
        match self {
            Self::Cylindrical | Self::Universal => 2,
            Self::Spherical => 3,
            Self::Free => 6,
        }
    }
    /// A short name for reports.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Cylindrical => "cylindrical",
            Self::Universal => "universal",
            Self::Spherical => "spherical",
            Self::Free => "free",
        }
    }
}

/// A rigid link and the joint that attaches it to its parent (an earlier link, or the ground).
///
/// The link frame has its origin on the joint, at `origin` in the parent frame, and the parent's
/// axes at zero joint coordinates (identity quaternions); the coordinates then rotate it about,
/// or move it along, `axis` (parent axes), or as [`MultiJoint`] says.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Link<R> {
    /// Parent link, `None` for the ground (the world frame).
    pub parent: Option<usize>,
    /// Joint type of a 1-DOF joint (ignored when `multi` is set).
    pub joint: TreeJoint,
    /// A joint of several degrees of freedom, or `None` for the 1-DOF `joint`.
    pub multi: Option<MultiJoint>,
    /// Joint origin in the parent frame.
    pub origin: Vec3<R>,
    /// Joint axis in the parent frame (normalised by the builder; unused by spherical and free
    /// joints).
    pub axis: Vec3<R>,
    /// Second axis of a universal joint, in the intermediate frame (the parent's axes turned
    /// about `axis`), perpendicular to `axis` (normalised by the builder; unused otherwise).
    pub second_axis: Vec3<R>,
    /// Mass (kg), > 0; or 0 with a zero CG and inertia: a massless link (see
    /// [`Link::is_massless`]).
    pub mass: R,
    /// Centre of gravity in the link frame.
    pub cg: Vec3<R>,
    /// Inertia about the CG in link axes, symmetric positive semi-definite with the principal
    /// moments satisfying I1 + I2 ≥ I3 (singular: a point mass, a thin rod; a step that finds
    /// a joint without inertia fails naming it).
    pub inertia: Mat3<R>,
    /// Viscous joint damping (N·m·s/rad or N·s/m), ≥ 0.
    pub damping: R,
    /// Stiffness of a spring on a 1-DOF joint (N·m/rad or N/m), ≥ 0: it adds
    /// −stiffness·(q − rest) to the joint force and ½·stiffness·(q − rest)² to the potential
    /// energy.
    pub stiffness: R,
    /// The spring's rest coordinate (rad or m).
    pub rest: R,
    /// Rotor inertia on each of the joint's velocity coordinates (kg·m² on a rotation, kg on a
    /// translation), ≥ 0: MuJoCo's `armature`, added to the diagonal of the joint-space mass
    /// matrix (a geared motor's rotor, reflected through its gear ratio squared) and
    /// ½·armature·q̇ᵢ² to the kinetic energy.
    pub armature: R,
    /// Smoothed Coulomb friction on a 1-DOF joint ([`JointFriction`]; zero force: none).
    pub friction: JointFriction<R>,
    /// The range of a 1-DOF joint's coordinate and its end stops (`None`: unlimited).
    pub limit: Option<JointLimit<R>>,
    /// What the joint's input commands: its force, or a servo's set-point (1-DOF joints only).
    pub servo: Servo<R>,
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
    /// A massless link on a cylindrical joint: rotation about and translation along `axis`.
    pub fn cylindrical(parent: Option<usize>, origin: Vec3<R>, axis: Vec3<R>) -> Self {
        Self {
            multi: Some(MultiJoint::Cylindrical),
            ..Self::revolute(parent, origin, axis)
        }
    }
    /// A massless link on a universal joint: rotation about `axis` (parent frame), then about
    /// `second_axis` (the intermediate frame), which must be perpendicular to it.
    pub fn universal(parent: Option<usize>, origin: Vec3<R>, axis: Vec3<R>, second_axis: Vec3<R>) -> Self {
        Self {
            multi: Some(MultiJoint::Universal),
            second_axis,
            ..Self::revolute(parent, origin, axis)
        }
    }
    /// A massless link on a spherical (ball) joint at `origin`.
    pub fn spherical(parent: Option<usize>, origin: Vec3<R>) -> Self {
        Self {
            multi: Some(MultiJoint::Spherical),
            ..Self::revolute(parent, origin, Vec3::ZERO)
        }
    }
    /// A massless link on a free joint (six degrees of freedom; on a root link, `parent`
    /// `None`, a floating base), its coordinates measured from `origin`.
    pub fn free(parent: Option<usize>, origin: Vec3<R>) -> Self {
        Self {
            multi: Some(MultiJoint::Free),
            ..Self::revolute(parent, origin, Vec3::ZERO)
        }
    }
    /// Number of position coordinates of the joint (1 for revolute and prismatic joints).
    pub fn position_count(&self) -> usize {
        self.multi.map_or(1, MultiJoint::positions)
    }
    /// Number of velocity coordinates (degrees of freedom, inputs) of the joint.
    pub fn velocity_count(&self) -> usize {
        self.multi.map_or(1, MultiJoint::velocities)
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

    /// Sets the joint's rotor inertia on each of its velocity coordinates ([`Link::armature`]).
    pub fn with_armature(mut self, armature: R) -> Self {
        self.armature = armature;
        self
    }

    /// Puts a spring of `stiffness` at rest at coordinate `rest` on the joint (revolute:
    /// rotational, prismatic: linear).
    pub fn with_spring(mut self, stiffness: R, rest: R) -> Self {
        self.stiffness = stiffness;
        self.rest = rest;
        self
    }

    /// Puts smoothed Coulomb friction on the (revolute or prismatic) joint: −force·tanh(q̇ /
    /// velocity) ([`JointFriction`]).
    pub fn with_friction(mut self, force: R, velocity: R) -> Self {
        self.friction = JointFriction::new(force, velocity);
        self
    }

    /// Limits the coordinate of the (revolute or prismatic) joint to a range with end stops.
    pub fn with_limit(mut self, limit: JointLimit<R>) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Makes the joint's input the set-point of `servo` (revolute and prismatic joints).
    pub fn with_servo(mut self, servo: Servo<R>) -> Self {
        self.servo = servo;
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
        let finite = self.origin.is_finite()
            && self.axis.is_finite()
            && self.second_axis.is_finite()
            && self.damping.is_finite()
            && self.armature.is_finite()
            && self.stiffness.is_finite()
            && self.rest.is_finite();
        if !finite {
            return Err(BuildError::NonFinite { item: joint });
        }
        if self.damping < R::ZERO {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "damping must be ≥ 0",
            });
        }
        if self.armature < R::ZERO {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "armature must be ≥ 0",
            });
        }
        if self.stiffness < R::ZERO {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "spring stiffness must be ≥ 0",
            });
        }
        if self.stiffness != R::ZERO && self.multi.is_some() {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "a joint spring acts on a revolute or prismatic joint",
            });
        }
        self.friction.validate(joint)?;
        if self.friction.is_some() && self.multi.is_some() {
            return Err(BuildError::InvalidParameter {
                item: joint,
                reason: "joint friction acts on a revolute or prismatic joint",
            });
        }
        if let Some(limit) = self.limit {
            if self.multi.is_some() {
                return Err(BuildError::InvalidParameter {
                    item: joint,
                    reason: "a joint limit acts on a revolute or prismatic joint",
                });
            }
            limit.validate(joint)?;
        }
        self.servo.validate(index, self.velocity_count())?;
        let zero_axis = BuildError::ZeroLengthAxis { item: joint };
        match self.multi {
            None | Some(MultiJoint::Cylindrical) => {
                self.axis = self.axis.normalized().ok_or(zero_axis)?;
            }
            Some(MultiJoint::Universal) => {
                self.axis = self.axis.normalized().ok_or(zero_axis)?;
                let second = self.second_axis.normalized().ok_or(zero_axis)?;
                // Perpendicular to within √ε (a hand-typed pair is exact, a computed one is off
                // by round-off); the rest is removed so that the axes are exactly orthonormal.
                let cosine = self.axis.dot(second);
                if cosine.abs() > R::EPSILON.sqrt() {
                    return Err(BuildError::InvalidParameter {
                        item: joint,
                        reason: "universal joint axes must be perpendicular",
                    });
                }
                self.second_axis = (second - self.axis * cosine).normalized().ok_or(zero_axis)?;
            }
            Some(MultiJoint::Spherical | MultiJoint::Free) => {}
        }
        if !self.is_massless() {
            Body::new(self.mass, self.inertia)
                .with_cg(self.cg)
                .validate_tree_inertia(index)?;
        }
        Ok(self)
    }

    /// Whether the link is massless: mass, CG and inertia all exactly zero. Such a link is a
    /// frame between joints (several joints composed in one place, as an MJCF body's); it is
    /// valid only while it carries a link with mass ([`Builder::build`] checks), whose
    /// articulated inertia then gives its joint a positive pivot.
    pub fn is_massless(&self) -> bool {
        self.mass == R::ZERO && self.cg == Vec3::ZERO && self.inertia == Mat3::ZERO
    }
}

/// Whether link `descendant` hangs (directly or through others) from link `ancestor`.
fn hangs_from<R>(links: &[Link<R>], descendant: usize, ancestor: usize) -> bool {
    let mut at = links.get(descendant).and_then(|l| l.parent);
    while let Some(p) = at {
        if p == ancestor {
            return true;
        }
        at = links.get(p).and_then(|l| l.parent);
    }
    false
}

/// The first massless link that carries no link with mass: its joint would move nothing, a
/// zero pivot (a singular M). Quadratic in the links, once per build.
fn massless_without_load<R: Real>(links: &[Link<R>]) -> Option<usize> {
    links.iter().enumerate().position(|(k, link)| {
        link.is_massless()
            && !links
                .iter()
                .enumerate()
                .skip(k + 1)
                .any(|(j, l)| !l.is_massless() && hangs_from(links, j, k))
    })
}

/// An open kinematic tree of rigid links in joint coordinates, its links kept in the bodies
/// list of `St` (one per link): the immutable description (see [`super::Data`] for the state).
pub struct Model<R: Real, St: Storage> {
    pub(crate) links: St::Bodies<Link<R>>,
    /// What each link's data lets the dynamics skip, found as the link is added.
    pub(crate) shapes: St::Bodies<LinkShape>,
    pub(crate) gravity: Vec3<R>,
    /// The plane of a planar tree ([`super::planar`]) and its links' constants (empty for a
    /// tree that is not planar), found when the model is built.
    pub(crate) plane: Option<Plane<R>>,
    pub(crate) planar: St::Bodies<PlanarLink<R>>,
    /// Joints closing loops on the tree ([`Builder::close_loop`]): their sides are links
    /// ([`BodyRef::Body`] k for link k) or the ground, their frames in link coordinates.
    pub(crate) loops: St::Joints<Joint<R>>,
    /// Rows linear in the joint coordinates: couplings and drives ([`Builder::couple`],
    /// [`Builder::drive`]), after the loop rows.
    pub(crate) coordinate_rows: St::Rows<CoordinateRow<R>>,
    /// Fixed tendons on the joint coordinates ([`Builder::add_tendon`]), in the forces list.
    pub(crate) tendons: St::Forces<Tendon<R>>,
    /// Projection onto the loops' constraint manifold after every step.
    pub(crate) stabilization: Stabilization<R>,
}

impl<R: Real, St: Storage> Clone for Model<R, St> {
    fn clone(&self) -> Self {
        Self {
            links: self.links.clone(),
            shapes: self.shapes.clone(),
            gravity: self.gravity,
            plane: self.plane,
            planar: self.planar.clone(),
            loops: self.loops.clone(),
            coordinate_rows: self.coordinate_rows.clone(),
            tendons: self.tendons.clone(),
            stabilization: self.stabilization,
        }
    }
}

impl<R: Real, St: Storage> core::fmt::Debug for Model<R, St> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("tree::Model")
            .field("links", &&*self.links)
            .field("gravity", &self.gravity)
            .field("loops", &&*self.loops)
            .field("coordinate_rows", &&*self.coordinate_rows)
            .field("tendons", &&*self.tendons)
            .finish()
    }
}

impl<R: Real, St: Storage> Model<R, St> {
    /// Starts a model with gravity `gravity` (world axes).
    pub fn builder(gravity: Vec3<R>) -> Builder<R, St> {
        Builder {
            model: Self {
                links: List::empty(),
                shapes: List::empty(),
                gravity,
                plane: None,
                planar: List::empty(),
                loops: List::empty(),
                coordinate_rows: List::empty(),
                tendons: List::empty(),
                stabilization: Stabilization::default(),
            },
            positions: 0,
            velocities: 0,
        }
    }
    /// The links, in the order added (every parent before its children).
    pub fn links(&self) -> &[Link<R>] {
        &self.links
    }
    /// What each link's constant data lets the dynamics skip, in the order of [`Self::links`].
    pub fn shapes(&self) -> &[LinkShape] {
        &self.shapes
    }
    /// Gravity (world axes).
    pub fn gravity(&self) -> Vec3<R> {
        self.gravity
    }
    /// Whether the tree is planar: every joint turns about one direction or slides across it
    /// (exactly), so its links move in parallel planes and the step takes the planar
    /// articulated-body algorithm (same physics, about half the work).
    pub fn is_planar(&self) -> bool {
        self.plane.is_some()
    }
    /// Number of position coordinates nq (the length of [`super::Data::positions`]).
    pub fn position_count(&self) -> usize {
        self.links.iter().map(Link::position_count).sum()
    }
    /// Number of velocity coordinates nv, the degrees of freedom (the length of
    /// [`super::Data::velocities`] and [`super::Data::inputs`]).
    pub fn velocity_count(&self) -> usize {
        self.links.iter().map(Link::velocity_count).sum()
    }
    /// The joints closing loops on the tree, in the order added (loop joint ℓ is reported as
    /// joint `links + ℓ` in errors).
    pub fn loops(&self) -> &[Joint<R>] {
        &self.loops
    }
    /// Number of loop constraint rows m (the rows of Φ).
    pub fn loop_rows(&self) -> usize {
        self.loops.iter().map(|j| j.kind.rows()).sum()
    }
    /// The coordinate rows (couplings and drives), in the order added.
    pub fn coordinate_rows(&self) -> &[CoordinateRow<R>] {
        &self.coordinate_rows
    }
    /// The fixed tendons, in the order added.
    pub fn tendons(&self) -> &[Tendon<R>] {
        &self.tendons
    }
    /// Number of constraint rows: the loop rows, then one per coordinate row.
    pub fn constraint_rows(&self) -> usize {
        self.loop_rows() + self.coordinate_rows.len()
    }
    /// How the loops' drift is removed (projection tolerance and iterations).
    pub fn stabilization(&self) -> &Stabilization<R> {
        &self.stabilization
    }
    /// Reals of the skyline capacity a tree with constraint rows (loops, couplings, drives)
    /// uses for its dense matrices (the joint-space mass matrix, Φ_q, M⁻¹Φ_qᵀ and the matrix of
    /// the rows; 0 without rows): nv(nv+1)/2 + 2·m·nv + m(m+1)/2 + m + nv, m =
    /// [`Model::constraint_rows`].
    pub fn loop_workspace(&self) -> usize {
        super::loops::workspace_len(self.velocity_count(), self.constraint_rows())
    }
    /// Slots of the bodies capacity the tree and its data use: max(links, ⌈(nq + nv) / 2⌉).
    pub fn slots(&self) -> usize {
        slots_for(self.links.len(), self.position_count(), self.velocity_count())
    }
    /// Where the coordinates of link `link`'s joint sit in q and in v (and the inputs), or
    /// `None` if there is no such link.
    pub fn coordinates(&self, link: usize) -> Option<Coordinates> {
        let before = self.links.get(..link)?;
        let me = self.links.get(link)?;
        Some(Coordinates {
            position: before.iter().map(Link::position_count).sum(),
            positions: me.position_count(),
            velocity: before.iter().map(Link::velocity_count).sum(),
            velocities: me.velocity_count(),
        })
    }
}

/// Where a joint's coordinates sit: positions `q[position..position + positions]`, velocities
/// and inputs `v[velocity..velocity + velocities]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coordinates {
    /// Index of the first position coordinate in q.
    pub position: usize,
    /// Number of position coordinates.
    pub positions: usize,
    /// Index of the first velocity coordinate in v (and in the inputs).
    pub velocity: usize,
    /// Number of velocity coordinates.
    pub velocities: usize,
}

/// Slots (pairs of state reals, and links) a tree of `links` links and `nq`, `nv` coordinates
/// needs.
pub(crate) fn slots_for(links: usize, nq: usize, nv: usize) -> usize {
    links.max((nq + nv).div_ceil(2))
}

/// Collects links and checks each as it is added.
pub struct Builder<R: Real, St: Storage> {
    model: Model<R, St>,
    /// The model's position and velocity coordinates so far (counted as links are added, so
    /// that adding n links takes time linear in n).
    positions: usize,
    velocities: usize,
}

impl<R: Real, St: Storage> Builder<R, St> {
    /// Adds a link (its parent must already be there) and returns its index.
    ///
    /// The state of a tree in `St` is kept two reals per slot of the bodies capacity: a tree
    /// needs max(links, ⌈(positions + velocities) / 2⌉) bodies, the link count when every
    /// joint has one coordinate (a floating base alone needs 7: see [`Model::slots`]).
    pub fn add_link(&mut self, link: Link<R>) -> Result<usize, BuildError> {
        let index = self.model.links.len();
        let model = &self.model;
        if !model.loops.is_empty() || !model.coordinate_rows.is_empty() || !model.tendons.is_empty() {
            return Err(BuildError::InvalidParameter {
                item: Item::Body(index),
                reason: "links are added before the joints closing loops, couplings, drives and tendons",
            });
        }
        let link = link.validated(index)?;
        let (positions, velocities) = (
            self.positions + link.position_count(),
            self.velocities + link.velocity_count(),
        );
        let slots = slots_for(self.model.links.len() + 1, positions, velocities);
        if slots > <St::Bodies<Link<R>> as List<Link<R>>>::capacity() {
            return Err(full::<_, St::Bodies<Link<R>>>(Capacity::Bodies, slots));
        }
        // Both lists have the bodies capacity, checked above: neither push can fail alone.
        let full = |_| full::<_, St::Bodies<Link<R>>>(Capacity::Bodies, index + 1);
        self.model
            .shapes
            .try_push(LinkShape::of(&link))
            .map_err(|_| full(()))?;
        self.model.links.try_push(link).map_err(|_| full(()))?;
        (self.positions, self.velocities) = (positions, velocities);
        Ok(index)
    }
    /// Closes a loop with `joint` between two links (or a link and the ground):
    /// [`BodyRef::Body`] k is link k, its frame in link k's coordinates. Its equations become
    /// constraint rows Φ(q) = 0 on the joint coordinates, solved with the tree's mass matrix
    /// and projected on after every step (the `loops` module). Any constraint joint but a drive;
    /// added after every link; returns the loop joint's index ℓ (errors name it joint
    /// links + ℓ). Needs the joints capacity for the loop joints, the constraint-rows capacity
    /// for their rows and the skyline capacity for [`Model::loop_workspace`].
    pub fn close_loop(&mut self, joint: Joint<R>) -> Result<usize, BuildError> {
        let links = self.model.links.len();
        let index = self.model.loops.len();
        let item = Item::Joint(links + index);
        joint.validate(links + index, links)?;
        if matches!(joint.kind, JointKind::Driving { .. }) {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "a drive does not close a loop on the tree",
            });
        }
        if joint.body_i == BodyRef::Ground && joint.body_j == BodyRef::Ground {
            return Err(BuildError::SameBody { item });
        }
        let rows = self.model.constraint_rows() + joint.kind.rows();
        if rows > <St::Rows<R> as List<R>>::capacity() {
            return Err(full::<_, St::Rows<R>>(Capacity::ConstraintRows, rows));
        }
        self.model
            .loops
            .try_push(joint)
            .map_err(|_| full::<_, St::Joints<Joint<R>>>(Capacity::Joints, index + 1))?;
        Ok(index)
    }
    /// Couples link `follower`'s coordinate to link `leader`'s: q_follower = `multiplier` ·
    /// q_leader + `offset` (a mimic joint), one constraint row beside the loop rows (the
    /// `coordinate_rows` module). Both joints revolute or prismatic; added after every link;
    /// returns the coordinate row's index. Errors name the follower's joint.
    pub fn couple(
        &mut self,
        follower: usize,
        leader: usize,
        multiplier: R,
        offset: R,
    ) -> Result<usize, BuildError> {
        let item = Item::Joint(follower);
        if follower == leader {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "a joint cannot be coupled to itself",
            });
        }
        if !(multiplier.is_finite() && offset.is_finite()) {
            return Err(BuildError::NonFinite { item });
        }
        let leader_at = self.one_coordinate(leader)?;
        let law = CoordinateLaw::Follows {
            leader,
            multiplier,
            offset,
        };
        self.push_coordinate_row(follower, law, leader_at)
    }
    /// Drives link `link`'s coordinate: q = `multiplier` · f(t) + `offset`, one constraint row
    /// beside the loop rows (Φ_t and γ from f's derivatives). The joint revolute or prismatic;
    /// added after every link; returns the coordinate row's index.
    pub fn drive(
        &mut self,
        link: usize,
        function: TimeFunction<R>,
        multiplier: R,
        offset: R,
    ) -> Result<usize, BuildError> {
        let item = Item::Joint(link);
        function.validate(item)?;
        if !(multiplier.is_finite() && offset.is_finite()) {
            return Err(BuildError::NonFinite { item });
        }
        let law = CoordinateLaw::Driven {
            function,
            multiplier,
            offset,
        };
        self.push_coordinate_row(link, law, (0, 0))
    }
    /// Adds a fixed tendon on the links' revolute and prismatic coordinates (the `tendon`
    /// module); added after every link; returns its index (errors name it tendon k). Needs the
    /// forces capacity.
    pub fn add_tendon(&mut self, tendon: Tendon<R>) -> Result<usize, BuildError> {
        let index = self.model.tendons.len();
        let tendon = tendon.placed(index, &self.model)?;
        self.model
            .tendons
            .try_push(tendon)
            .map_err(|_| full::<_, St::Forces<Tendon<R>>>(Capacity::Forces, index + 1))?;
        Ok(index)
    }
    /// Where link `link`'s one coordinate sits in q and v, or why it has none.
    fn one_coordinate(&self, link: usize) -> Result<(usize, usize), BuildError> {
        let item = Item::Joint(link);
        let at = self.model.coordinates(link).ok_or(BuildError::InvalidParameter {
            item,
            reason: "no such link",
        })?;
        if at.velocities != 1 {
            return Err(BuildError::InvalidParameter {
                item,
                reason: "couplings and drives act on revolute or prismatic joints (one coordinate)",
            });
        }
        Ok((at.position, at.velocity))
    }
    fn push_coordinate_row(
        &mut self,
        link: usize,
        law: CoordinateLaw<R>,
        leader_at: (usize, usize),
    ) -> Result<usize, BuildError> {
        let at = self.one_coordinate(link)?;
        let rows = self.model.constraint_rows() + 1;
        if rows > <St::Rows<R> as List<R>>::capacity() {
            return Err(full::<_, St::Rows<R>>(Capacity::ConstraintRows, rows));
        }
        let index = self.model.coordinate_rows.len();
        let row = CoordinateRow {
            link,
            law,
            at,
            leader_at,
        };
        // The rows capacity was checked above: the push cannot fail.
        let pushed = self.model.coordinate_rows.try_push(row);
        pushed.map_err(|_| full::<_, St::Rows<R>>(Capacity::ConstraintRows, rows))?;
        Ok(index)
    }
    /// Sets how the loops' drift is removed after every step.
    pub fn set_stabilization(&mut self, stabilization: Stabilization<R>) {
        self.model.stabilization = stabilization;
    }
    /// Finishes the model.
    pub fn build(mut self) -> Result<Model<R, St>, BuildError> {
        self.build_in_place()?;
        Ok(self.model)
    }
    /// [`Builder::build`] without moving the model out: it is finished where the builder is
    /// (a `static` on a microcontroller, so that the model never passes through the stack)
    /// and borrowed from there. Adding links afterwards and building again is allowed.
    pub fn build_in_place(&mut self) -> Result<&Model<R, St>, BuildError> {
        if !self.model.gravity.is_finite() {
            return Err(BuildError::NonFinite { item: Item::Ground });
        }
        let model = &mut self.model;
        let workspace = model.loop_workspace();
        if workspace > <St::Skyline<R> as List<R>>::capacity() {
            return Err(full::<_, St::Skyline<R>>(Capacity::SkylineEntries, workspace));
        }
        if let Some(k) = massless_without_load(&model.links) {
            return Err(BuildError::InvalidParameter {
                item: Item::Body(k),
                reason: "a massless link must carry a link with mass (its joint would move no inertia: M singular)",
            });
        }
        // Tendons load joints through the general algorithm's link work, not the planar one's.
        model.plane = if model.tendons.is_empty() {
            plane_of(&model.links, model.gravity)
        } else {
            None
        };
        model.planar.clear();
        if let Some(plane) = model.plane {
            for link in model.links.iter() {
                // The planar list has the links' capacity: a push cannot fail.
                let _ = model.planar.try_push(plane.link(link));
            }
        }
        Ok(&self.model)
    }
}

#[cfg(test)]
#[path = "armature_tests.rs"]
mod armature_tests;

#[cfg(test)]
#[path = "friction_tests.rs"]
mod friction_tests;
#[cfg(test)]
#[path = "massless_tests.rs"]
mod massless_tests;
