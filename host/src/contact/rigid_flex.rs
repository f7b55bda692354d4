//! Contact of flexible (ANCF) bodies with rigid shapes — spheres, boxes, cylinders, cones,
//! planes and triangle meshes, on rigid bodies or on the ground — node to shape: each surface
//! node of a flexible body is a point tested against every shape; inside one it is pushed out
//! along the shape's surface normal by the Hertz–Flores–Coulomb law ([`super::force`]) with
//! the node as a sphere of radius `node_radius`.
//!
//! The force enters the node's position coordinates only (Kronecker property of the ANCF
//! shape functions, as in [`super::flexible`]) and the equal and opposite force acts on the
//! shape's body at the node, so linear and angular momentum are exchanged exactly.
//!
//! Narrow phase: the node in the shape's frame projected on its boundary by parry3d
//! (`project_local_point`): the penetration is the distance to the nearest boundary point of a
//! node inside the shape (triangle meshes use their pseudo-normals to tell inside from
//! outside). Broad phase: the box of a body's nodes against each shape's box, then each node
//! against the shape's box.

use super::broad::Aabb;
use super::force::{damping_factor, effective_modulus, effective_radius, hertz_energy, hertz_stiffness};
use super::node::{node_response, NodeTangent};
use super::shape::{local_pose, read_frames, to_parry, vec3, BodyFrame};
use super::ContactError;
use crate::spec::{ContactMaterial, Elastic, Geometry, Shape};
use ferrodyn_kernel::ancf::NODE_COORDS;
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::{ExternalForces, ExternalLoads};
use parry3d_f64::math::{Pose, Vector};
use parry3d_f64::shape::{SharedShape, TriMeshFlags};
use std::collections::HashMap;

/// One node inside one shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeNodeContact {
    /// Index of the shape.
    pub shape: usize,
    /// Index of the node.
    pub node: usize,
    /// The node's position, where the forces act (global).
    pub point: [f64; 3],
    /// Unit normal out of the shape, towards the node.
    pub normal: [f64; 3],
    /// Penetration δ > 0 (m).
    pub penetration: f64,
    /// Penetration rate δ̇ (m/s, > 0 approaching).
    pub penetration_rate: f64,
    /// Impact speed v₀ used for the dissipation (m/s).
    pub impact_speed: f64,
    /// Normal force magnitude F_n ≥ 0 (N).
    pub normal_force: f64,
    /// Total force on the node (N, global); the shape's body takes the opposite.
    pub force: [f64; 3],
    /// Its derivatives for an implicit tangent (slip relative to the shape).
    pub tangent: NodeTangent,
    /// The contact point less the origin of the shape's body (zero for a ground shape).
    pub lever: [f64; 3],
}

/// The law of one flexible body against one shape.
#[derive(Clone, Copy, Debug)]
struct ShapeLaw {
    stiffness: f64,
    chi: f64,
    material: ContactMaterial,
}

/// The surface nodes of one flexible body and its law against each shape.
#[derive(Clone, Debug)]
struct NodeGroup {
    nodes: Vec<usize>,
    laws: Vec<ShapeLaw>,
    /// The rigid body the flexible body is attached to: its shapes are not met.
    carrier: Option<usize>,
    /// Box of the nodes at the last evaluation.
    bounds: Aabb,
}

/// Radius of curvature of a shape's surface where a node meets it: a sphere's, cylinder's or
/// cone's radius, `curvature_radius` if given, flat otherwise (box faces, planes, meshes).
fn surface_radius(shape: &Shape) -> f64 {
    match (&shape.geometry, shape.curvature_radius) {
        (Geometry::Box { .. }, None) => f64::INFINITY,
        _ => shape.curvature(),
    }
}

/// Node-to-shape contact of flexible bodies with rigid shapes.
#[derive(Clone)]
pub struct RigidFlexContact {
    shapes: Vec<Shape>,
    parry: Vec<SharedShape>,
    local: Vec<Pose>,
    groups: Vec<NodeGroup>,
    impact: HashMap<(usize, usize), f64>,
    frames: Vec<BodyFrame>,
    poses: Vec<Pose>,
    boxes: Vec<Aabb>,
    last: Vec<ShapeNodeContact>,
    active: Vec<ShapeNodeContact>,
}

impl RigidFlexContact {
    /// Contact with `shapes` on a model of `body_count` rigid bodies (no flexible body yet:
    /// see [`RigidFlexContact::add_body`]). Checks every shape.
    pub fn new(shapes: Vec<Shape>, body_count: usize) -> Result<Self, ContactError> {
        let mut parry = Vec::with_capacity(shapes.len());
        for s in &shapes {
            s.validate(body_count)?;
            let mut form = to_parry(s)?;
            if let Some(mesh) = form.make_mut().as_trimesh_mut() {
                // Pseudo-normals tell a point inside the mesh from one outside.
                mesh.set_flags(TriMeshFlags::ORIENTED).map_err(|e| {
                    ContactError::invalid(&format!("shape '{}'", s.name), format!("bad mesh: {e:?}"))
                })?;
            }
            parry.push(form);
        }
        let local = shapes.iter().map(local_pose).collect();
        Ok(Self {
            shapes,
            parry,
            local,
            groups: Vec::new(),
            impact: HashMap::new(),
            frames: Vec::new(),
            poses: Vec::new(),
            boxes: Vec::new(),
            last: Vec::new(),
            active: Vec::new(),
        })
    }

    /// Adds a flexible body: its surface `nodes`, each a sphere of `node_radius` of the body's
    /// `elastic` constants, against each shape with `material(shape)`, except the shapes of
    /// the rigid body `carrier` it is attached to (its root sits in them). `item` names the body
    /// in errors.
    pub fn add_body(
        &mut self,
        item: &str,
        nodes: &[usize],
        node_radius: f64,
        elastic: Elastic,
        carrier: Option<usize>,
        material: impl Fn(&Shape) -> ContactMaterial,
    ) -> Result<(), ContactError> {
        elastic.validate(item)?;
        if !(node_radius.is_finite() && node_radius > 0.0) {
            return Err(ContactError::invalid(
                item,
                format!("node radius must be > 0, got {node_radius}"),
            ));
        }
        let mut laws = Vec::with_capacity(self.shapes.len());
        for shape in &self.shapes {
            let m = material(shape);
            m.validate(&format!("{item} against shape '{}'", shape.name))?;
            let r_star = effective_radius(node_radius, surface_radius(shape));
            laws.push(ShapeLaw {
                stiffness: hertz_stiffness(effective_modulus(&elastic, &shape.elastic), r_star),
                chi: damping_factor(&m),
                material: m,
            });
        }
        let mut nodes = nodes.to_vec();
        nodes.sort_unstable();
        nodes.dedup();
        self.groups.push(NodeGroup {
            nodes,
            laws,
            carrier,
            bounds: Aabb::EVERYWHERE,
        });
        Ok(())
    }

    /// The shapes.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// Every (rigid body, flexible node) that may touch: the nodes of each flexible body with
    /// the bodies carrying shapes it meets (an implicit matrix's coupling pattern).
    pub fn body_node_pairs(&self) -> Vec<(usize, usize)> {
        let mut bodies: Vec<usize> = self.shapes.iter().filter_map(|s| s.body).collect();
        bodies.sort_unstable();
        bodies.dedup();
        let mut pairs = Vec::new();
        for group in &self.groups {
            for &b in bodies.iter().filter(|&&b| Some(b) != group.carrier) {
                pairs.extend(group.nodes.iter().map(|&n| (b, n)));
            }
        }
        pairs
    }

    /// Whether no flexible body takes part.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty() || self.shapes.is_empty()
    }

    /// Contacts at the last accepted state.
    pub fn active(&self) -> &[ShapeNodeContact] {
        &self.active
    }

    /// Contacts at the last force evaluation (what the forces just applied came from).
    pub fn evaluated(&self) -> &[ShapeNodeContact] {
        &self.last
    }

    /// Energy stored in the Hertz springs of the contacts at the last accepted state (J).
    pub fn elastic_energy(&self) -> f64 {
        self.active
            .iter()
            .filter_map(|c| {
                let group = self
                    .groups
                    .iter()
                    .find(|g| g.nodes.binary_search(&c.node).is_ok())?;
                Some(hertz_energy(group.laws.get(c.shape)?.stiffness, c.penetration))
            })
            .sum()
    }

    /// Shape poses and boxes at the body frames last read.
    fn place_shapes(&mut self) {
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
    }

    /// Detects the contacts of the state `loads` describes and computes their forces into
    /// `self.last`. With `commit`, captures v₀ of new contacts and forgets opened ones.
    fn evaluate(&mut self, loads: &ExternalLoads<'_, f64>, commit: bool) {
        read_frames(loads, &mut self.frames);
        self.place_shapes();
        self.last.clear();
        let (e, ed) = (loads.coordinates(), loads.rates());
        let position = |node: usize| e.get(NODE_COORDS * node..NODE_COORDS * node + 3);
        for group in &mut self.groups {
            let mut bounds = Aabb {
                min: [f64::INFINITY; 3],
                max: [f64::NEG_INFINITY; 3],
            };
            for r in group.nodes.iter().filter_map(|&n| position(n)) {
                for ((lo, hi), &x) in bounds.min.iter_mut().zip(&mut bounds.max).zip(r) {
                    *lo = lo.min(x);
                    *hi = hi.max(x);
                }
            }
            group.bounds = bounds;
        }
        for group in &self.groups {
            for (s, (shape_box, pose)) in self.boxes.iter().zip(&self.poses).enumerate() {
                let body = self.shapes[s].body;
                if !group.bounds.overlaps(shape_box) || (body.is_some() && body == group.carrier) {
                    continue;
                }
                let (Some(law), Some(form)) = (group.laws.get(s), self.parry.get(s)) else {
                    continue;
                };
                let frame = body.and_then(|b| self.frames.get(b));
                for &node in &group.nodes {
                    let i = NODE_COORDS * node;
                    let (Some(r), Some(v)) = (e.get(i..i + 3), ed.get(i..i + 3)) else {
                        continue;
                    };
                    let p = Vector::new(r[0], r[1], r[2]);
                    let at = Aabb {
                        min: p.to_array(),
                        max: p.to_array(),
                    };
                    if !at.overlaps(shape_box) {
                        continue;
                    }
                    let local = pose.inverse_transform_point(p);
                    let projection = form.project_local_point(local, false);
                    let outward = projection.point - local;
                    let depth = outward.length();
                    if !projection.is_inside || depth.is_nan() || depth <= 0.0 {
                        continue;
                    }
                    let n = pose.rotation * (outward / depth);
                    let body_velocity = frame.map_or(Vector::ZERO, |f| f.point_velocity(p));
                    let rel = Vector::new(v[0], v[1], v[2]) - body_velocity;
                    let committed = self.impact.get(&(s, node)).copied();
                    let r = node_response(
                        law.stiffness,
                        law.chi,
                        &law.material,
                        depth,
                        n.to_array(),
                        rel.to_array(),
                        committed,
                    );
                    self.last.push(ShapeNodeContact {
                        shape: s,
                        node,
                        point: p.to_array(),
                        normal: n.to_array(),
                        penetration: depth,
                        penetration_rate: r.rate,
                        impact_speed: r.impact_speed,
                        normal_force: r.normal_force,
                        force: r.force,
                        tangent: r.tangent,
                        lever: frame.map_or([0.0; 3], |f| (p - f.x).to_array()),
                    });
                }
            }
        }
        if commit {
            let last = &self.last;
            self.impact
                .retain(|&(s, n), _| last.iter().any(|c| (c.shape, c.node) == (s, n)));
            for c in last {
                self.impact.entry((c.shape, c.node)).or_insert(c.impact_speed);
            }
            self.active.clone_from(&self.last);
        }
    }
}

impl ExternalForces<f64> for RigidFlexContact {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        self.evaluate(loads, false);
        let (_, _, generalized) = loads.nodes();
        for c in &self.last {
            let i = NODE_COORDS * c.node;
            if let Some(f) = generalized.get_mut(i..i + 3) {
                for (fk, ck) in f.iter_mut().zip(c.force) {
                    *fk += ck;
                }
            }
        }
        for c in &self.last {
            if let Some(b) = self.shapes[c.shape].body {
                let f = Vector::from_array(c.force);
                loads.add_force_at(b, Vec3::from_array(c.point), vec3(-f));
            }
        }
    }
    /// Evaluates contacts at the accepted state (after every step): captures v₀ of new
    /// contacts, forgets opened ones, records the active contacts.
    fn accept(&mut self, _t: f64, state: &ExternalLoads<'_, f64>) {
        self.evaluate(state, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrodyn_kernel::math::Quat;

    fn shape(name: &str, geometry: Geometry, position: [f64; 3]) -> Shape {
        Shape {
            name: name.into(),
            body: None,
            position: Vec3::from_array(position),
            orientation: Quat::IDENTITY,
            geometry,
            elastic: Elastic::STEEL,
            curvature_radius: None,
            mesh_file: None,
        }
    }

    /// Forces on one node at `r` with velocity `v` against `shapes` (on the ground).
    fn forces(shapes: Vec<Shape>, r: [f64; 3], v: [f64; 3]) -> (Vec<ShapeNodeContact>, [f64; 3]) {
        let mut contact = RigidFlexContact::new(shapes, 0).unwrap();
        let rubber = Elastic {
            youngs_modulus: 1e6,
            poisson_ratio: 0.45,
        };
        let material = ContactMaterial::elastic();
        contact
            .add_body("flexible 'b'", &[0], 0.01, rubber, None, |_| material)
            .unwrap();
        let mut e = [0.0; NODE_COORDS];
        let mut ed = [0.0; NODE_COORDS];
        e[..3].copy_from_slice(&r);
        ed[..3].copy_from_slice(&v);
        let mut f = [0.0; NODE_COORDS];
        contact.apply(0.0, &mut ExternalLoads::on_nodes(&e, &ed, &mut f));
        (contact.evaluated().to_vec(), [f[0], f[1], f[2]])
    }

    #[test]
    fn a_node_inside_a_box_is_pushed_out_of_the_nearest_face() {
        // Reference: the nearest face of a 0.2 × 0.2 × 0.1 m box centred at z = −0.05 is its
        // top (z = 0) for a node 1 mm below it; the law is Hertz, F = K δ^{3/2} with
        // K = 4/3 E* √R*, R* = the node radius on a flat face.
        let boxed = shape(
            "block",
            Geometry::Box {
                half_extents: [0.1, 0.1, 0.05],
            },
            [0.0, 0.0, -0.05],
        );
        let (contacts, f) = forces(vec![boxed.clone()], [0.02, 0.01, -1e-3], [0.0; 3]);
        assert_eq!(contacts.len(), 1);
        let c = contacts[0];
        assert!((c.penetration - 1e-3).abs() < 1e-15 && c.normal == [0.0, 0.0, 1.0]);
        let rubber = Elastic {
            youngs_modulus: 1e6,
            poisson_ratio: 0.45,
        };
        let k = hertz_stiffness(effective_modulus(&rubber, &Elastic::STEEL), 0.01);
        assert!((f[2] - k * 1e-3f64.powf(1.5)).abs() < 1e-12 * f[2], "{f:?}");
        // Outside: nothing.
        let (contacts, f) = forces(vec![boxed], [0.02, 0.01, 1e-3], [0.0; 3]);
        assert!(contacts.is_empty() && f == [0.0; 3]);
    }

    #[test]
    fn a_node_inside_a_sphere_is_pushed_out_radially() {
        // Reference: a point at distance d from the centre of a sphere of radius R is R − d
        // deep along the radius; R* combines the node radius with the sphere's.
        let ball = shape("ball", Geometry::Sphere { radius: 0.05 }, [0.0; 3]);
        let p: [f64; 3] = [0.03, 0.0, 0.04 * 0.99];
        let d = (p[0] * p[0] + p[2] * p[2]).sqrt();
        let (contacts, _) = forces(vec![ball], p, [0.0; 3]);
        let c = contacts[0];
        // Up to the round-off of parry's projection.
        assert!((c.penetration - (0.05 - d)).abs() < 1e-15);
        assert!((c.normal[0] - p[0] / d).abs() < 1e-12 && (c.normal[2] - p[2] / d).abs() < 1e-12);
    }

    #[test]
    fn a_node_below_a_mesh_surface_touches_it() {
        // A closed tetrahedron as a triangle mesh (outward faces): a node just inside its
        // base is pushed down through the base; one outside is not touched.
        let mesh = Geometry::TriMesh {
            vertices: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        };
        let (contacts, f) = forces(
            vec![shape("tet", mesh.clone(), [0.0; 3])],
            [0.2, 0.2, 1e-3],
            [0.0; 3],
        );
        assert_eq!(contacts.len(), 1, "{contacts:?}");
        assert!((contacts[0].penetration - 1e-3).abs() < 1e-12 && f[2] < 0.0);
        let (contacts, _) = forces(vec![shape("tet", mesh, [0.0; 3])], [0.2, 0.2, -1e-3], [0.0; 3]);
        assert!(contacts.is_empty());
    }

    #[test]
    fn bad_input_names_the_body_or_shape() {
        let mut ball = shape("ball", Geometry::Sphere { radius: 0.05 }, [0.0; 3]);
        ball.body = Some(0);
        let mut contact = RigidFlexContact::new(vec![ball.clone()], 1).unwrap();
        assert!(contact.is_empty());
        contact
            .add_body("flexible 'b'", &[0], 0.01, Elastic::STEEL, None, |_| {
                ContactMaterial::elastic()
            })
            .unwrap();
        assert!(!contact.is_empty());
        let bad = contact.add_body("flexible 'c'", &[1], 0.0, Elastic::STEEL, None, |_| {
            ContactMaterial::elastic()
        });
        assert!(bad.unwrap_err().to_string().contains("flexible 'c'"));
        // A shape on a body the model does not have.
        let e = RigidFlexContact::new(vec![ball], 0).err().unwrap().to_string();
        assert!(e.contains("ball"), "{e}");
    }

    #[test]
    fn a_body_does_not_meet_the_shapes_of_the_body_carrying_it() {
        // A beam's root sits inside its hub: the hub's shapes are not met by the beam's nodes.
        let mut hub = shape("hub", Geometry::Sphere { radius: 0.05 }, [0.0; 3]);
        hub.body = Some(0);
        let (mut e, ed) = ([0.0; NODE_COORDS], [0.0; NODE_COORDS]);
        e[0] = 0.04;
        for (carrier, expected) in [(Some(0), 0), (None, 1)] {
            let mut contact = RigidFlexContact::new(vec![hub.clone()], 1).unwrap();
            contact
                .add_body("flexible 'beam'", &[0], 0.01, Elastic::STEEL, carrier, |_| {
                    ContactMaterial::elastic()
                })
                .unwrap();
            let mut f = [0.0; NODE_COORDS];
            contact.apply(0.0, &mut ExternalLoads::on_nodes(&e, &ed, &mut f));
            assert_eq!(contact.evaluated().len(), expected, "carrier {carrier:?}");
        }
    }
}
