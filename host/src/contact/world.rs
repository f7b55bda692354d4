//! The contact world: shapes on bodies, pair materials, detection and forces, evaluated by the
//! kernel at every integrator stage through [`ExternalForces`].
//!
//! Stepping: `step_with(&model, &mut data, &mut integrator, dt, &mut world)`; after every
//! accepted step the kernel shows the world the accepted state (`accept`), where it detects the
//! contacts, captures the impact speed v₀ of contacts made during the step (kept until the
//! contact opens) and records the active contacts for output. A contact first seen inside a
//! step's stages uses its approach speed at that stage until then. Call the model's `accept`
//! once before the first step so the world starts from the initial state.

use super::broad::{Aabb, SweepAndPrune};
use super::force::{
    damping_factor, effective_modulus, effective_radius, friction_force, hertz_stiffness, normal_force,
};
use super::ground::GroundPair;
use super::shape::{box_vertices, local_pose, read_frames, to_parry, vec3, BodyFrame};
use super::ContactError;
use crate::spec::{ContactMaterial, Geometry, Shape};
use ferrodyn_kernel::contact::{GroundContact, Law};
use ferrodyn_kernel::math::{Mat3, Vec3};
use ferrodyn_kernel::{ExternalForces, ExternalLoads};
use parry3d_f64::math::{Matrix, Pose, Vector};
use parry3d_f64::query;
use parry3d_f64::shape::SharedShape;
use std::collections::HashMap;

/// One contact point: shapes `a`, `b`, geometry and forces (force on b; a gets the opposite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactRecord {
    /// Index of the first shape.
    pub shape_a: usize,
    /// Index of the second shape.
    pub shape_b: usize,
    /// Point index within the pair (box corners on a plane give several).
    pub point_index: u8,
    /// Contact point (global).
    pub point: [f64; 3],
    /// Unit normal from a to b.
    pub normal: [f64; 3],
    /// Penetration δ ≥ 0 (m).
    pub penetration: f64,
    /// Penetration rate δ̇ (m/s, > 0 approaching).
    pub penetration_rate: f64,
    /// Impact speed v₀ used for the dissipation (m/s).
    pub impact_speed: f64,
    /// Normal force magnitude F_n ≥ 0 (N), pushing b away from a.
    pub normal_force: f64,
    /// Friction force on b (N, global).
    pub friction_force: [f64; 3],
}

type ContactKey = (usize, usize, u8);

/// A body's state as the kernel hands it: position, rotation (body → global), velocity and
/// angular velocity (global).
type KernelFrame = (Vec3<f64>, Mat3<f64>, Vec3<f64>, Vec3<f64>);

/// Parameters of one shape pair, fixed at construction.
#[derive(Clone, Copy, Debug)]
struct PairLaw {
    stiffness: f64,
    chi: f64,
    material: ContactMaterial,
}

/// Rigid shapes, their contact materials and the state of their contacts.
pub struct ContactWorld {
    shapes: Vec<Shape>,
    parry: Vec<SharedShape>,
    local: Vec<Pose>,
    default_material: ContactMaterial,
    /// Materials of body pairs by [`body_pair`] key: looked up for every candidate pair of every
    /// evaluation (whether it collides), so a table rather than a scan.
    pair_materials: HashMap<(Option<usize>, Option<usize>), ContactMaterial>,
    /// Laws of shape pairs by (a, b), a < b, computed on first use.
    laws: HashMap<(usize, usize), PairLaw>,
    impact: HashMap<ContactKey, f64>,
    body_count: usize,
    frames: Vec<BodyFrame>,
    poses: Vec<Pose>,
    boxes: Vec<Aabb>,
    sweep: SweepAndPrune,
    pairs: Vec<(usize, usize)>,
    points: Vec<ContactRecord>,
    active: Vec<ContactRecord>,
    /// Spheres and boxes on bodies against ground planes, evaluated by the kernel's code
    /// ([`Self::ground_pairs`]) before the others, in this order.
    ground: Vec<GroundPair>,
    /// The bodies' states as the kernel gives them (position, rotation, velocity, angular
    /// velocity), for the kernel's pairs.
    states: Vec<KernelFrame>,
}

/// The pair-material key of bodies `a` and `b` (`None`: ground), the same in either order.
fn body_pair(a: Option<usize>, b: Option<usize>) -> (Option<usize>, Option<usize>) {
    (a.min(b), a.max(b))
}

impl ContactWorld {
    /// A world of `shapes` on a model with `body_count` bodies; pairs without their own
    /// material use `default_material`. Checks every shape and that parry3d can query every
    /// pair of shape kinds that may touch.
    pub fn new(
        shapes: Vec<Shape>,
        body_count: usize,
        default_material: ContactMaterial,
    ) -> Result<Self, ContactError> {
        default_material.validate("default contact material")?;
        let mut parry = Vec::with_capacity(shapes.len());
        for s in &shapes {
            s.validate(body_count)?;
            parry.push(to_parry(s)?);
        }
        for i in 0..shapes.len() {
            for j in i + 1..shapes.len() {
                if shapes[i].body == shapes[j].body || uses_plane_vertices(&shapes[i], &shapes[j]) {
                    continue;
                }
                let id = Pose::IDENTITY;
                if query::contact(&id, parry[i].as_ref(), &id, parry[j].as_ref(), 0.0).is_err() {
                    return Err(ContactError::UnsupportedPair {
                        a: shapes[i].name.clone(),
                        b: shapes[j].name.clone(),
                    });
                }
            }
        }
        let local = shapes.iter().map(local_pose).collect();
        let mut world = Self {
            shapes,
            parry,
            local,
            default_material,
            pair_materials: HashMap::new(),
            laws: HashMap::new(),
            impact: HashMap::new(),
            body_count,
            frames: Vec::new(),
            poses: Vec::new(),
            boxes: Vec::new(),
            sweep: SweepAndPrune::default(),
            pairs: Vec::new(),
            points: Vec::new(),
            active: Vec::new(),
            ground: Vec::new(),
            states: Vec::new(),
        };
        world.refresh_ground()?;
        Ok(world)
    }

    /// Makes the kernel's pairs of the shapes with their laws (again after a pair material
    /// changes).
    fn refresh_ground(&mut self) -> Result<(), ContactError> {
        let mut ground = Vec::new();
        for a in 0..self.shapes.len() {
            for b in a + 1..self.shapes.len() {
                if !self.collides(a, b) {
                    continue;
                }
                let pair = self.law(a, b);
                let law = Law {
                    stiffness: pair.stiffness,
                    damping_factor: pair.chi,
                    friction: pair.material.friction,
                    friction_regularization: pair.material.friction_regularization,
                    min_impact_speed: pair.material.min_impact_speed,
                };
                match GroundPair::new(&self.shapes, (a, b), law) {
                    Some(Ok(pair)) => ground.push(pair),
                    Some(Err(reason)) => {
                        let item = format!("shapes '{}' and '{}'", self.shapes[a].name, self.shapes[b].name);
                        return Err(ContactError::invalid(&item, reason.to_string()));
                    }
                    None => {}
                }
            }
        }
        self.ground = ground;
        Ok(())
    }

    /// The spheres and boxes on bodies against ground planes, which the kernel's ground
    /// contacts ([`ferrodyn_kernel::contact::GroundContact`]) evaluate: the same geometry, law
    /// and v₀ memory (a box's per corner) a tree's exported module steps
    /// (`export::tree_contact`), so `ferrodyn run` gives its bits. First, in shape order; the
    /// other pairs go through parry3d.
    pub fn ground_pairs(&self) -> &[GroundPair] {
        &self.ground
    }

    /// The shape pairs on different bodies that parry3d evaluates: every such pair but
    /// [`Self::ground_pairs`].
    pub fn parry_pairs(&self) -> Vec<(usize, usize)> {
        let n = self.shapes.len();
        (0..n)
            .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
            .filter(|&(a, b)| self.collides(a, b))
            .filter(|&pair| !self.ground.iter().any(|g| g.shapes == pair))
            .collect()
    }

    /// Sets the contact material between bodies `a` and `b` (`None`: ground).
    pub fn set_pair_material(
        &mut self,
        a: Option<usize>,
        b: Option<usize>,
        material: ContactMaterial,
    ) -> Result<(), ContactError> {
        let name = |x: Option<usize>| x.map_or("ground".to_string(), |b| format!("body {b}"));
        material.validate(&format!("contact material {}/{}", name(a), name(b)))?;
        for x in [a, b].into_iter().flatten() {
            if x >= self.body_count {
                return Err(ContactError::invalid(
                    &format!("contact material {}/{}", name(a), name(b)),
                    format!("body {x} does not exist ({} bodies)", self.body_count),
                ));
            }
        }
        self.pair_materials.insert(body_pair(a, b), material);
        self.laws.clear();
        self.refresh_ground()
    }

    /// The shapes.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// Contacts active at the last committed state.
    pub fn active(&self) -> &[ContactRecord] {
        &self.active
    }

    /// Contacts of the last evaluation (a stage or a commit).
    pub fn last_evaluation(&self) -> &[ContactRecord] {
        &self.points
    }

    /// The Hertz stiffness K, Flores factor χ and material of shapes `a` and `b`, where a
    /// contact between them was evaluated (an implicit tangent linearizes those contacts).
    pub fn pair_law(&self, a: usize, b: usize) -> Option<(f64, f64, ContactMaterial)> {
        let law = self.laws.get(&(a.min(b), a.max(b)))?;
        Some((law.stiffness, law.chi, law.material))
    }

    /// Candidate shape pairs of the broad phase at the last evaluation.
    pub fn candidate_pairs(&self) -> &[(usize, usize)] {
        &self.pairs
    }

    fn law(&mut self, a: usize, b: usize) -> PairLaw {
        if let Some(l) = self.laws.get(&(a, b)) {
            return *l;
        }
        let (sa, sb) = (&self.shapes[a], &self.shapes[b]);
        let material = self
            .pair_material(sa.body, sb.body)
            .map_or(self.default_material, |m| *m);
        let e_star = effective_modulus(&sa.elastic, &sb.elastic);
        // Two flat surfaces: no Hertz radius; use a unit radius rather than zero stiffness.
        let mut r_star = effective_radius(sa.curvature(), sb.curvature());
        if !r_star.is_finite() {
            r_star = 1.0;
        }
        let law = PairLaw {
            stiffness: hertz_stiffness(e_star, r_star),
            chi: damping_factor(&material),
            material,
        };
        self.laws.insert((a, b), law);
        law
    }

    /// World poses and boxes of all shapes at the last body frames, then the broad phase
    /// (pairs in [`ContactWorld::candidate_pairs`]).
    pub fn broad_phase(&mut self) {
        self.poses.clear();
        self.boxes.clear();
        for (i, s) in self.shapes.iter().enumerate() {
            let pose = match s.body.and_then(|b| self.frames.get(b)) {
                Some(f) => f.pose() * self.local[i],
                None => self.local[i],
            };
            self.poses.push(pose);
            self.boxes.push(if s.geometry == Geometry::Plane {
                Aabb::EVERYWHERE
            } else {
                let b = self.parry[i].compute_aabb(&pose);
                Aabb {
                    min: b.mins.to_array(),
                    max: b.maxs.to_array(),
                }
            });
        }
        self.sweep.pairs(&self.boxes, &mut self.pairs);
        let mut pairs = std::mem::take(&mut self.pairs);
        pairs.retain(|&(a, b)| self.collides(a, b));
        self.pairs = pairs;
    }

    /// Whether shapes `a` and `b` may touch: on different bodies, and not a pair whose material
    /// keeps them apart (`collide = false`).
    fn collides(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.shapes[a].body, self.shapes[b].body);
        x != y && self.pair_material(x, y).is_none_or(|m| m.collide)
    }

    /// The material set for bodies `x` and `y` (`None`: ground), in either order, if any.
    fn pair_material(&self, x: Option<usize>, y: Option<usize>) -> Option<&ContactMaterial> {
        self.pair_materials.get(&body_pair(x, y))
    }

    /// Detects contacts and computes their forces into `self.points`. With `commit`, captures
    /// v₀ of new contacts and forgets contacts that opened.
    fn evaluate(&mut self, commit: bool) {
        self.broad_phase();
        self.points.clear();
        let pairs = std::mem::take(&mut self.pairs);
        let mut touching: Vec<ContactKey> = Vec::new();
        self.evaluate_ground(commit, &mut touching);
        for &(a, b) in &pairs {
            if self.ground.iter().any(|g| g.shapes == (a.min(b), a.max(b))) {
                continue;
            }
            let mut found: [(Vector, Vector, f64, u8); 8] = [(Vector::ZERO, Vector::ZERO, 0.0, 0); 8];
            let n = self.narrow_phase(a, b, &mut found);
            if n == 0 {
                continue;
            }
            let law = self.law(a, b);
            for &(p, normal, depth, k) in &found[..n] {
                let key = (a, b, k);
                let vel = |s: usize| {
                    self.shapes[s]
                        .body
                        .and_then(|i| self.frames.get(i))
                        .map_or(Vector::ZERO, |f| f.point_velocity(p))
                };
                let rel = vel(b) - vel(a);
                let rate = -rel.dot(normal);
                let floor = law.material.min_impact_speed;
                let v0 = match self.impact.get(&key) {
                    Some(&v0) => v0,
                    None => {
                        let v0 = rate.max(floor);
                        if commit {
                            self.impact.insert(key, v0);
                        }
                        v0
                    }
                };
                if commit {
                    touching.push(key);
                }
                let f_n = normal_force(law.stiffness, law.chi, depth, rate, v0);
                let slip = rel - normal * rel.dot(normal);
                let ft = friction_force(
                    law.material.friction,
                    f_n,
                    slip.to_array(),
                    law.material.friction_regularization,
                );
                self.points.push(ContactRecord {
                    shape_a: a,
                    shape_b: b,
                    point_index: k,
                    point: p.to_array(),
                    normal: normal.to_array(),
                    penetration: depth,
                    penetration_rate: rate,
                    impact_speed: v0,
                    normal_force: f_n,
                    friction_force: ft,
                });
            }
        }
        self.pairs = pairs;
        if commit {
            self.impact.retain(|k, _| touching.contains(k));
        }
    }

    /// The kernel's pairs ([`Self::ground_pairs`]) into `self.points`, as
    /// [`ferrodyn_kernel::contact::GroundContacts`] evaluates them; keys (a, b, corner).
    fn evaluate_ground(&mut self, commit: bool, touching: &mut Vec<ContactKey>) {
        for pair in &self.ground {
            let Some(&(x, rot, v, w)) = self.states.get(pair.body) else {
                continue;
            };
            let (a, b) = pair.shapes;
            for (k, contact) in pair.contacts.iter().enumerate() {
                let key = (a, b, k as u8);
                let contact = GroundContact {
                    impact_speed: self.impact.get(&key).copied(),
                    ..*contact
                };
                let Some(touch) = contact.evaluate(x, &rot, v, w) else {
                    continue;
                };
                let v0 = contact
                    .impact_speed
                    .unwrap_or_else(|| touch.penetration_rate.max(contact.law.min_impact_speed));
                if commit {
                    self.impact.entry(key).or_insert(v0);
                    touching.push(key);
                }
                // Normal from a to b, friction on b: the plane is a or b.
                let (normal, friction) = if pair.plane_first {
                    (contact.plane.normal, touch.friction)
                } else {
                    (-contact.plane.normal, -touch.friction)
                };
                self.points.push(ContactRecord {
                    shape_a: a,
                    shape_b: b,
                    point_index: k as u8,
                    point: touch.point.to_array(),
                    normal: normal.to_array(),
                    penetration: touch.penetration,
                    penetration_rate: touch.penetration_rate,
                    impact_speed: v0,
                    normal_force: touch.normal_force,
                    friction_force: friction.to_array(),
                });
            }
        }
    }

    /// Contact points of shapes a and b: (point, unit normal from a to b, penetration > 0, the
    /// point's index: a box's corner, whose contact keeps its own v₀).
    fn narrow_phase(&self, a: usize, b: usize, out: &mut [(Vector, Vector, f64, u8); 8]) -> usize {
        let (sa, sb) = (&self.shapes[a], &self.shapes[b]);
        let (pa, pb) = (&self.poses[a], &self.poses[b]);
        if uses_plane_vertices(sa, sb) {
            // Box on a plane: every corner below the plane is a contact, so a resting box
            // stands on four points instead of rocking on the deepest one.
            let (plane, boxed, sign) = if sa.geometry == Geometry::Plane {
                (pa, (sb, pb), 1.0)
            } else {
                (pb, (sa, pa), -1.0)
            };
            let n_plane = plane.rotation * Vector::Z;
            let mut count = 0;
            for (corner, v) in (0..).zip(box_vertices(boxed.0).unwrap_or([Vector::ZERO; 8])) {
                let p = boxed.1.transform_point(v);
                let depth = -(p - plane.translation).dot(n_plane);
                if depth > 0.0 {
                    out[count] = (p + n_plane * (0.5 * depth), n_plane * sign, depth, corner);
                    count += 1;
                }
            }
            return count;
        }
        match query::contact(pa, self.parry[a].as_ref(), pb, self.parry[b].as_ref(), 0.0) {
            Ok(Some(c)) if c.dist < 0.0 => {
                out[0] = ((c.point1 + c.point2) * 0.5, c.normal1, -c.dist, 0);
                1
            }
            _ => 0,
        }
    }

    /// Sets body frames directly (benchmarks of the broad phase without a model).
    pub fn set_body_positions(&mut self, positions: &[[f64; 3]]) {
        self.frames.clear();
        self.frames.extend(positions.iter().map(|&x| BodyFrame {
            x: Vector::from_array(x),
            rot: Matrix::IDENTITY,
            v: Vector::ZERO,
            w: Vector::ZERO,
        }));
    }
}

/// Whether the pair is a box and a plane (handled by the corner test, not parry).
fn uses_plane_vertices(a: &Shape, b: &Shape) -> bool {
    matches!(
        (&a.geometry, &b.geometry),
        (Geometry::Plane, Geometry::Box { .. }) | (Geometry::Box { .. }, Geometry::Plane)
    )
}

impl ExternalForces<f64> for ContactWorld {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        read_frames(loads, &mut self.frames);
        read_states(loads, &mut self.states);
        self.evaluate(false);
        for c in &self.points {
            let n = Vector::from_array(c.normal);
            let f = n * c.normal_force + Vector::from_array(c.friction_force);
            let p = Vec3::from_array(c.point);
            if let Some(b) = self.shapes[c.shape_b].body {
                loads.add_force_at(b, p, vec3(f));
            }
            if let Some(a) = self.shapes[c.shape_a].body {
                loads.add_force_at(a, p, vec3(-f));
            }
        }
    }
    /// Detects the contacts at the accepted state (see the module doc).
    fn accept(&mut self, _t: f64, state: &ExternalLoads<'_, f64>) {
        read_frames(state, &mut self.frames);
        read_states(state, &mut self.states);
        self.evaluate(true);
        self.active.clone_from(&self.points);
    }
}

/// The bodies' states of `loads` as the kernel gives them, for the kernel's pairs.
fn read_states(loads: &ExternalLoads<'_, f64>, states: &mut Vec<KernelFrame>) {
    states.clear();
    for b in 0..loads.body_count() {
        if let (Some(x), Some(r), Some(v), Some(w)) = (
            loads.position(b),
            loads.rotation(b),
            loads.velocity(b),
            loads.angular_velocity(b),
        ) {
            states.push((x, r, v, w));
        }
    }
}
