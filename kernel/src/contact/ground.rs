//! Contact of shapes on tree links with ground planes: spheres (the wheel, the foot) and box
//! corners, each a [`GroundContact`] pair with the Hertz–Flores–Coulomb law ([`super::law`]),
//! in a fixed-capacity set ([`GroundContacts`]) that loads the links as external forces at
//! every evaluation of the dynamics ([`crate::Dynamics::step_with`]).
//!
//! A pair's impact speed v₀ is captured from the accepted state after the step that made the
//! contact (`ExternalForces::accept`) and kept while it touches; a contact first seen inside a
//! step's stages uses its approach speed until then (the host's contact world does the same).
//! Call the model's `accept` once before the first step so a contact at the initial state has
//! its v₀.

use super::law::{friction_force, hertz_energy, normal_force};
use crate::math::{Mat3, Vec3};
use crate::tree::{LinkState, Model};
use crate::{BuildError, Capacity, ExternalForces, ExternalLoads, Item, Real, Storage};

/// A ground plane: a point on it and its unit normal, pointing out of the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plane<R> {
    /// A point on the plane (global).
    pub origin: Vec3<R>,
    /// Unit normal (global), out of the ground.
    pub normal: Vec3<R>,
}

/// The law of one pair: Hertz stiffness, Flores damping factor and Coulomb friction.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Law<R> {
    /// Hertz stiffness K = 4/3 E* √R* (N/m^{3/2}).
    pub stiffness: R,
    /// Damping factor χ = D v₀ (Flores', or calibrated to the restitution).
    pub damping_factor: R,
    /// Coulomb friction coefficient μ.
    pub friction: R,
    /// Friction regularization speed v_reg > 0 (m/s).
    pub friction_regularization: R,
    /// Smallest impact speed v₀ (m/s) > 0.
    pub min_impact_speed: R,
}

/// One shape point on a link against a ground plane: a sphere's centre with its radius, or a
/// box corner (radius 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroundContact<R> {
    /// The link.
    pub link: usize,
    /// The sphere's centre or the corner, in the link frame.
    pub point: Vec3<R>,
    /// The sphere's radius (0 for a corner).
    pub radius: R,
    /// The plane it meets.
    pub plane: Plane<R>,
    /// Its law.
    pub law: Law<R>,
    /// v₀ of the contact while it touches (captured at the accepted state after first touch).
    pub impact_speed: Option<R>,
}

/// One evaluated contact: where, how deep and the force on the link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Touch<R> {
    /// Contact point (global): midway between the plane and the deepest point.
    pub point: Vec3<R>,
    /// Penetration δ > 0 (m).
    pub penetration: R,
    /// Penetration rate δ̇ (m/s, > 0 approaching).
    pub penetration_rate: R,
    /// Normal force F_n ≥ 0 (N), along the plane's normal.
    pub normal_force: R,
    /// Friction force on the link (N, global).
    pub friction: Vec3<R>,
    /// Force on the link (N, global): normal and friction.
    pub force: Vec3<R>,
}

impl<R: Real> GroundContact<R> {
    /// A sphere of `radius` centred at `centre` (link frame) of `link` against `plane`.
    pub fn sphere(link: usize, centre: Vec3<R>, radius: R, plane: Plane<R>, law: Law<R>) -> Self {
        Self {
            link,
            point: centre,
            radius,
            plane,
            law,
            impact_speed: None,
        }
    }

    /// The pair checked (finite point, radius and plane; K, v_reg, v_min > 0; χ, μ ≥ 0) with
    /// its plane's normal made unit and no impact speed: what [`GroundContacts::push`] keeps.
    pub fn validated(self) -> Result<Self, &'static str> {
        if !self.point.is_finite() || !self.plane.origin.is_finite() || !self.radius.is_finite() {
            return Err("the point, radius and the plane's origin must be finite");
        }
        let normal = self
            .plane
            .normal
            .normalized()
            .ok_or("the plane's normal must be a nonzero vector")?;
        let law = self.law;
        let positive = |x: R| x > R::ZERO && x.is_finite();
        if !(positive(law.stiffness)
            && positive(law.friction_regularization)
            && positive(law.min_impact_speed)
            && law.damping_factor >= R::ZERO
            && law.damping_factor.is_finite()
            && law.friction >= R::ZERO
            && law.friction.is_finite())
        {
            return Err("the law needs K, v_reg, v_min > 0 and χ, μ ≥ 0, all finite");
        }
        Ok(Self {
            plane: Plane {
                origin: self.plane.origin,
                normal,
            },
            impact_speed: None,
            ..self
        })
    }

    /// The 8 corners of a box of `half_extents` centred at `centre` and turned by `rotation`
    /// (box → link axes) on `link`, each against `plane` (corner k at ±h by the bits of k:
    /// x by bit 0, y by bit 1, z by bit 2; clear is minus).
    pub fn box_corners(
        link: usize,
        (centre, rotation): (Vec3<R>, &Mat3<R>),
        half_extents: Vec3<R>,
        plane: Plane<R>,
        law: Law<R>,
    ) -> [Self; 8] {
        let h = half_extents;
        core::array::from_fn(|i| {
            let s = |bit: usize, x: R| if i & (1 << bit) == 0 { -x } else { x };
            let corner = Vec3::new(s(0, h.x), s(1, h.y), s(2, h.z));
            Self::sphere(link, centre + rotation.mul_vec(corner), R::ZERO, plane, law)
        })
    }

    /// Penetration δ (> 0 touching) and the distance of the point from the plane, with the
    /// link at (`x`, `rot`).
    fn depth(&self, x: Vec3<R>, rot: &Mat3<R>) -> (Vec3<R>, R, R) {
        let n = self.plane.normal;
        let centre = x + rot.mul_vec(self.point);
        let distance = (centre - self.plane.origin).dot(n);
        (centre, distance, self.radius - distance)
    }

    /// The contact with the link at (`x`, `rot`) moving at (`v`, `w`), `None` apart. v₀ is the
    /// captured one, else the approach speed (not below the floor).
    pub fn evaluate(&self, x: Vec3<R>, rot: &Mat3<R>, v: Vec3<R>, w: Vec3<R>) -> Option<Touch<R>> {
        let (centre, distance, depth) = self.depth(x, rot);
        if depth <= R::ZERO {
            return None;
        }
        let n = self.plane.normal;
        let point = centre - n * ((distance + self.radius) * R::HALF);
        let velocity = v + w.cross(point - x);
        let along = velocity.dot(n);
        let rate = -along;
        let law = &self.law;
        let v0 = self
            .impact_speed
            .unwrap_or_else(|| rate.max(law.min_impact_speed));
        let f_n = normal_force(law.stiffness, law.damping_factor, depth, rate, v0);
        let slip = velocity - n * along;
        let friction = friction_force(law.friction, f_n, slip, law.friction_regularization);
        Some(Touch {
            point,
            penetration: depth,
            penetration_rate: rate,
            normal_force: f_n,
            friction,
            force: n * f_n + friction,
        })
    }
}

/// Shape–ground pairs on the links of a tree, at most `N`.
#[derive(Clone, Debug, Default)]
pub struct GroundContacts<R, const N: usize> {
    pairs: heapless::Vec<GroundContact<R>, N>,
}

impl<R: Real, const N: usize> GroundContacts<R, N> {
    /// No pairs.
    pub fn new() -> Self {
        Self {
            pairs: heapless::Vec::new(),
        }
    }

    /// Adds a sphere of `radius` centred at `centre` (link frame) of `link` of `model` against
    /// `plane`, and returns its pair index.
    pub fn add_sphere<St: Storage>(
        &mut self,
        model: &Model<R, St>,
        link: usize,
        centre: Vec3<R>,
        radius: R,
        plane: Plane<R>,
        law: Law<R>,
    ) -> Result<usize, BuildError> {
        let index = self.pairs.len();
        if !(radius > R::ZERO && radius.is_finite()) {
            return Err(invalid(index, "the sphere's radius must be positive and finite"));
        }
        self.push(model, GroundContact::sphere(link, centre, radius, plane, law))
    }

    /// Adds the 8 corners of a box of `half_extents` centred at `centre` and turned by
    /// `rotation` (box → link axes) on `link` of `model`, each a pair against `plane`; returns
    /// the index of the first. Every corner below the plane carries load, so a box rests on
    /// its face instead of rocking on its deepest corner.
    #[allow(clippy::too_many_arguments)] // a box's pose, size, plane and law: one call per box
    pub fn add_box<St: Storage>(
        &mut self,
        model: &Model<R, St>,
        link: usize,
        centre: Vec3<R>,
        rotation: &Mat3<R>,
        half_extents: Vec3<R>,
        plane: Plane<R>,
        law: Law<R>,
    ) -> Result<usize, BuildError> {
        let first = self.pairs.len();
        let h = half_extents;
        if !(h.x > R::ZERO && h.y > R::ZERO && h.z > R::ZERO && h.is_finite()) {
            return Err(invalid(
                first,
                "the box's half extents must be positive and finite",
            ));
        }
        for corner in GroundContact::box_corners(link, (centre, rotation), h, plane, law) {
            self.push(model, corner)?;
        }
        Ok(first)
    }

    /// Adds `pair` (checked against `model`) and returns its index.
    pub fn push<St: Storage>(
        &mut self,
        model: &Model<R, St>,
        pair: GroundContact<R>,
    ) -> Result<usize, BuildError> {
        let index = self.pairs.len();
        if pair.link >= model.links().len() {
            return Err(invalid(index, "the link does not exist"));
        }
        let pair = pair.validated().map_err(|reason| invalid(index, reason))?;
        self.pairs.push(pair).map_err(|_| BuildError::CapacityExceeded {
            capacity: Capacity::ContactPairs,
            needed: index + 1,
            available: N,
        })?;
        Ok(index)
    }

    /// The pairs, in the order added.
    pub fn pairs(&self) -> &[GroundContact<R>] {
        &self.pairs
    }

    /// The energy stored in the Hertz springs, (2/5) K δ^{5/2} each, with the links at
    /// `states` ([`crate::tree::link_states`]).
    pub fn potential(&self, states: &[LinkState<R>]) -> R {
        self.pairs.iter().fold(R::ZERO, |sum, pair| {
            let Some(s) = states.get(pair.link) else {
                return sum;
            };
            let (_, _, depth) = pair.depth(s.pose.origin, &s.pose.rotation);
            sum + hertz_energy(pair.law.stiffness, depth)
        })
    }

    /// The contact of pair `k` at the link states `loads` describes (`None`: apart, or no
    /// such pair or link).
    pub fn touch(&self, k: usize, loads: &ExternalLoads<'_, R>) -> Option<Touch<R>> {
        let pair = self.pairs.get(k)?;
        let b = pair.link;
        let (x, rot) = (loads.position(b)?, loads.rotation(b)?);
        pair.evaluate(x, &rot, loads.velocity(b)?, loads.angular_velocity(b)?)
    }
}

impl<R: Real, const N: usize> ExternalForces<R> for GroundContacts<R, N> {
    fn apply(&mut self, _t: R, loads: &mut ExternalLoads<'_, R>) {
        for (k, pair) in self.pairs.iter().enumerate() {
            if let Some(touch) = self.touch(k, loads) {
                loads.add_force_at(pair.link, touch.point, touch.force);
            }
        }
    }

    /// Captures v₀ of the contacts made during the step, forgets those that opened.
    fn accept(&mut self, _t: R, state: &ExternalLoads<'_, R>) {
        for k in 0..self.pairs.len() {
            let touch = self.touch(k, state);
            let Some(pair) = self.pairs.get_mut(k) else {
                continue;
            };
            let floor = pair.law.min_impact_speed;
            pair.impact_speed =
                touch.map(|t| pair.impact_speed.unwrap_or_else(|| t.penetration_rate.max(floor)));
        }
    }
}

fn invalid(index: usize, reason: &'static str) -> BuildError {
    BuildError::InvalidParameter {
        item: Item::Contact(index),
        reason,
    }
}
