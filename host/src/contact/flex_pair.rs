//! Contact between the disconnected parts of one flexible model (two ANCF bodies meshed into
//! one model, e.g. two blocks): node-to-surface Hertz–Flores–Coulomb.
//!
//! Every evaluation refits an [`AabbTree`] over the boxes of the boundary triangles (current
//! vertex positions, grown by the largest depth searched) and queries it at every surface
//! node. A node touches another body at its deepest [`face_penetration`] behind
//! that body's faces that face it: continuous as the node slides across face edges or off a
//! free edge, so the Hertz force has a potential, and the forces on the node and on the face's
//! vertices are that potential's gradients (energy conserved without damping and friction,
//! momentum exactly).

use super::broad::Aabb;
use super::bvh::AabbTree;
use super::flexible::surface_faces;
use super::force::{
    damping_factor, effective_modulus, friction_damping, hertz_energy, hertz_stiffness, normal_force,
    normal_force_derivatives,
};
use super::ContactError;
use crate::spec::{ContactMaterial, Elastic, Proximity};
use ferrodyn_kernel::ancf::{TetShape, NODE_COORDS};
use ferrodyn_kernel::math::Vec3;
use ferrodyn_kernel::{ExternalForces, ExternalLoads};
use parry3d_f64::query::PointQueryWithLocation;
use parry3d_f64::shape::{Triangle, TrianglePointLocation};
use std::collections::HashMap;

/// A surface node of one part pressed into a face of another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeFaceContact {
    /// The node, or for a point on a face the face's first vertex (it names the body).
    pub node: usize,
    /// Index of the surface point (a node, or a point on a face with surface-to-surface).
    pub point: usize,
    /// Index of the face in [`FlexPairContact::faces`].
    pub face: usize,
    /// Penetration below the face (m).
    pub penetration: f64,
    /// Unit direction of the normal force on the node (out of the face's body).
    pub normal: [f64; 3],
    /// Normal force on the node (N).
    pub normal_force: f64,
    /// Force on the node (N, global); the face gets the opposite.
    pub force: [f64; 3],
}

/// How a node of one group meets a face of another: Hertz stiffness, damping factor,
/// material and the deepest penetration searched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupLaw {
    /// Hertz stiffness K (N/m^{3/2}).
    pub stiffness: f64,
    /// Damping factor χ.
    pub chi: f64,
    /// The pair's material.
    pub material: ContactMaterial,
    /// Depths beyond this are not searched (a node that far in is on the other side of a thin
    /// part) (m).
    pub max_depth: f64,
}

/// Node-to-surface contact between groups of nodes of a flexible model (the parts of a mesh,
/// or the bodies of a scene merged into one model).
#[derive(Clone)]
pub struct FlexPairContact {
    faces: Vec<([usize; 3], usize)>,
    group: Vec<usize>,
    group_count: usize,
    /// Law of (node group, face group) at `node_group * group_count + face_group`.
    laws: Vec<Option<GroupLaw>>,
    max_depth: f64,
    points: Vec<SurfacePoint>,
    reference: Vec<[f64; 3]>,
    connectivity: Vec<[usize; 4]>,
    /// Flores impact speed v₀ of each touching (node, other body).
    impact: HashMap<(usize, usize), f64>,
    tree: AabbTree,
    boxes: Vec<Aabb>,
    near: Vec<usize>,
    face_normals: Vec<Vec3<f64>>,
    deepest: Vec<Deepest>,
    /// Contacts of the last evaluation with the forces on their face's vertices.
    last: Vec<(NodeFaceContact, [[f64; 3]; 3])>,
    tangents: Vec<PairTangent>,
    active: Vec<NodeFaceContact>,
}

/// A face counts for a node when their normals are more than 75.5° from parallel,
/// n_f·n_p < −¼. A box's corner node (its normal 125° from each face it may press) and edge
/// node (135°) count with a wide margin, and faces at right angles to the node do not: those
/// are a block's side faces whose 45° bevel reaches under the block, and a dot product that
/// flickers about zero as they deform switched such contacts on and off at depth.
const FACING: f64 = 0.25;

/// What an implicit tangent needs of one node–face contact: the generalized force on
/// participant a (the node, then the face's vertices) is f(δ, δ̇)·Dₐ plus friction ωₐ·F_t, so
/// −∂Qₐ/∂x_b = k_n Dₐ D_bᵀ and −∂Qₐ/∂v_b = c_n Dₐ D_bᵀ + c_t ωₐ ω_b (I − n nᵀ − d dᵀ) (the
/// curvature of δ is left out).
#[derive(Clone, Debug, PartialEq)]
pub struct PairTangent {
    /// The coordinate triples the contact acts on: the surface point's, then the face's three
    /// vertices' positions.
    pub participants: Vec<Participant>,
    /// ∂f/∂δ (N/m).
    pub normal_stiffness: f64,
    /// ∂f/∂δ̇ (N·s/m).
    pub normal_damping: f64,
    /// μ f / max(|v_t|, v_reg) (N·s/m).
    pub friction_damping: f64,
    /// Unit normal direction of the force on the node.
    pub normal: [f64; 3],
    /// Unit slip direction while sliding, zero while sticking.
    pub sliding_direction: [f64; 3],
}

/// One coordinate triple of a contact's [`PairTangent`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Participant {
    /// The node.
    pub node: usize,
    /// Which of its four coordinate triples (0: position, 1–3: gradients).
    pub triple: usize,
    /// Dₐ = −∂δ/∂xₐ.
    pub direction: [f64; 3],
    /// ωₐ: the slip velocity is Σ ωₐ ẋₐ.
    pub slip_weight: f64,
}

/// A point of a body's surface tested against the faces of the other bodies.
#[derive(Clone, Debug, PartialEq)]
struct SurfacePoint {
    /// r = Σ w·e[node, triple]: for a node its position alone, for a face point the shape
    /// functions of its element at the point's reference position.
    terms: Vec<(usize, usize, f64)>,
    /// The faces whose normals give the point's own (around a node, or the point's face).
    faces: Vec<usize>,
    /// A node of the point's body (names the body).
    node: usize,
    /// Factor on the Hertz stiffness (1 for a node).
    share: f64,
}

impl SurfacePoint {
    /// Position (from the coordinates `e`) or velocity (from `ė`).
    fn interpolate(&self, x: &[f64]) -> Vec3<f64> {
        self.terms.iter().fold(Vec3::ZERO, |r, &(node, triple, w)| {
            let i = NODE_COORDS * node + 3 * triple;
            r + x.get(i..i + 3).map_or(Vec3::ZERO, v3) * w
        })
    }
}

/// The deepest penetration of a node into one other body's faces.
#[derive(Clone, Copy, Debug)]
struct Deepest {
    group: usize,
    face: usize,
    penetration: FacePenetration,
}

/// How far a point is in behind a face, and the gradients that make the contact force
/// conservative.
///
/// δ = d − s, with d the depth of the point below the face's plane and s the in-plane distance
/// of its projection from the triangle (zero over the face). Beyond a free edge δ thus falls
/// to zero on a 45° bevel instead of vanishing at depth, so a node sliding off a face's edge,
/// or across the edge between two faces (δ = d on both sides), sees a continuous penetration.
/// The force f on the node is f·(−∂δ/∂p) and on vertex i of the face f·(−∂δ/∂xᵢ): the forces
/// derive from the potential U(δ), sum to zero and have no net moment.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FacePenetration {
    /// δ > 0 (m).
    pub depth: f64,
    /// −∂δ/∂p: n̂ over the face, n̂ + t̂ beyond it (t̂ the in-plane direction away from the
    /// triangle).
    pub node_direction: Vec3<f64>,
    /// −∂δ/∂xᵢ of the face's vertices (they sum to −`node_direction`).
    pub vertex_directions: [Vec3<f64>; 3],
    /// Barycentric weights of the face's point closest to the node (its material point for
    /// the relative velocity and friction).
    pub weights: [f64; 3],
}

/// The penetration of `p` behind triangle `t` (outward normal by the right-hand rule), or
/// `None` when it is in front of the plane, beyond the bevel, or the triangle is degenerate.
pub fn face_penetration(p: Vec3<f64>, t: [Vec3<f64>; 3]) -> Option<FacePenetration> {
    let to = super::shape::vector;
    let twice_area = (t[1] - t[0]).cross(t[2] - t[0]);
    let area2 = twice_area.norm();
    let n = twice_area.normalized()?;
    let d = -(p - t[0]).dot(n);
    if d.is_nan() || d <= 0.0 {
        return None;
    }
    let q = p + n * d;
    let triangle = Triangle::new(to(t[0]), to(t[1]), to(t[2]));
    let (_, location) = triangle.project_local_point_and_get_location(to(q), false);
    // `None` only for a point inside a solid query, which this is not.
    let w = location.barycentric_coordinates()?;
    let closest = t[0] * w[0] + t[1] * w[1] + t[2] * w[2];
    // In-plane direction away from the triangle: the edge's outward normal, or towards the
    // projection from a vertex; none over the face.
    let away = match location {
        TrianglePointLocation::OnFace(..) | TrianglePointLocation::OnSolid => None,
        TrianglePointLocation::OnEdge(e, _) => {
            let (i, j, k) = [(0, 1, 2), (1, 2, 0), (0, 2, 1)][(e as usize).min(2)];
            let m = (t[j] - t[i]).cross(n).normalized()?;
            Some(if m.dot(t[k] - t[i]) > 0.0 { -m } else { m })
        }
        TrianglePointLocation::OnVertex(_) => (q - closest).normalized(),
    };
    let (s, away) = match away {
        Some(m) => ((q - closest).dot(m).max(0.0), m),
        None => (0.0, Vec3::ZERO),
    };
    let depth = d - s;
    if depth.is_nan() || depth <= 0.0 {
        return None;
    }
    // ∂δ/∂xᵢ = wᵢ(n̂ + t̂) + (d + s)(gᵢ·t̂) n̂ with gᵢ = (xⱼ − x_k) × n̂ / 2A the in-plane gradient
    // of the barycentric coordinate i ((i, j, k) cyclic): the plane's tilt under the point
    // and the bevel moving with the edge.
    let vertex_directions = [0, 1, 2].map(|i| {
        let g = (t[(i + 1) % 3] - t[(i + 2) % 3]).cross(n) * (1.0 / area2);
        -((n + away) * w[i] + n * ((d + s) * g.dot(away)))
    });
    Some(FacePenetration {
        depth,
        node_direction: n + away,
        vertex_directions,
        weights: w,
    })
}

/// out[i..i + 3] += scale · f (nothing when out of range).
fn add_scaled(out: &mut [f64], i: usize, scale: f64, f: [f64; 3]) {
    if let Some(o) = out.get_mut(i..i + 3) {
        for (ok, fk) in o.iter_mut().zip(f) {
            *ok += scale * fk;
        }
    }
}

fn v3(s: &[f64]) -> Vec3<f64> {
    Vec3::new(s[0], s[1], s[2])
}

/// Connected parts of a mesh: part index of every node (union–find over the tets).
pub fn mesh_parts(node_count: usize, connectivity: &[[usize; 4]]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..node_count).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for tet in connectivity {
        for &n in &tet[1..] {
            if n < node_count && tet[0] < node_count {
                let (a, b) = (root(&mut parent, tet[0]), root(&mut parent, n));
                parent[a] = b;
            }
        }
    }
    let mut label = HashMap::new();
    (0..node_count)
        .map(|i| {
            let r = root(&mut parent, i);
            let next = label.len();
            *label.entry(r).or_insert(next)
        })
        .collect()
}

impl FlexPairContact {
    /// Contact between the parts of a mesh (`reference` node positions, tets
    /// `connectivity`) of material `body`; nodes act as spheres of `node_radius` in Hertz's
    /// law; depths beyond `max_depth` are not searched (a node that far in is on the other
    /// side of a thin part).
    pub fn new(
        reference: &[[f64; 3]],
        connectivity: &[[usize; 4]],
        node_radius: f64,
        max_depth: f64,
        body: Elastic,
        material: ContactMaterial,
    ) -> Result<Self, ContactError> {
        let item = "flexible pair contact";
        material.validate(item)?;
        body.validate(item)?;
        for (name, v) in [("node radius", node_radius), ("max depth", max_depth)] {
            if !(v.is_finite() && v > 0.0) {
                return Err(ContactError::invalid(
                    item,
                    format!("{name} must be > 0, got {v}"),
                ));
            }
        }
        let law = GroupLaw {
            stiffness: hertz_stiffness(effective_modulus(&body, &body), node_radius),
            chi: damping_factor(&material),
            material,
            max_depth,
        };
        let parts = mesh_parts(reference.len(), connectivity);
        Self::with_groups(reference, connectivity, parts, |a, b| (a != b).then_some(law))
    }

    /// Contact between groups of nodes (`group[node]`, e.g. the body each node belongs to):
    /// a node of group a meets a face of group b by `law(a, b)`, or not at all when it is
    /// `None` (nodes never meet faces of their own group).
    pub fn with_groups(
        reference: &[[f64; 3]],
        connectivity: &[[usize; 4]],
        group: Vec<usize>,
        law: impl Fn(usize, usize) -> Option<GroupLaw>,
    ) -> Result<Self, ContactError> {
        let item = "flexible pair contact";
        if group.len() != reference.len() {
            return Err(ContactError::invalid(
                item,
                format!("{} node groups for {} nodes", group.len(), reference.len()),
            ));
        }
        if let Some(e) = connectivity
            .iter()
            .position(|t| t.iter().any(|&n| n >= reference.len()))
        {
            return Err(ContactError::invalid(
                item,
                format!("element {e} refers to a missing node"),
            ));
        }
        let group_count = group.iter().max().map_or(0, |g| g + 1);
        let mut laws = Vec::with_capacity(group_count * group_count);
        for a in 0..group_count {
            for b in 0..group_count {
                let l = law(a, b).filter(|_| a != b);
                if let Some(l) = &l {
                    l.material.validate(item)?;
                    if !(l.max_depth.is_finite() && l.max_depth > 0.0) {
                        return Err(ContactError::invalid(
                            item,
                            format!("max depth must be > 0, got {}", l.max_depth),
                        ));
                    }
                }
                laws.push(l);
            }
        }
        let max_depth = laws.iter().flatten().fold(0.0_f64, |m, l| m.max(l.max_depth));
        let faces = surface_faces(connectivity, |n| reference[n]);
        let mut contact = Self {
            faces,
            group,
            group_count,
            laws,
            max_depth,
            points: Vec::new(),
            reference: reference.to_vec(),
            connectivity: connectivity.to_vec(),
            impact: HashMap::new(),
            tree: AabbTree::default(),
            boxes: Vec::new(),
            near: Vec::new(),
            face_normals: Vec::new(),
            deepest: Vec::new(),
            last: Vec::new(),
            tangents: Vec::new(),
            active: Vec::new(),
        };
        contact.points = contact.points_for(|_| Proximity::NodeToSurface)?;
        Ok(contact)
    }

    /// The same contact with the surface points `proximity(group)` selects for each group.
    pub fn with_proximity(mut self, proximity: impl Fn(usize) -> Proximity) -> Result<Self, ContactError> {
        self.points = self.points_for(proximity)?;
        self.impact.clear();
        Ok(self)
    }

    fn points_for(&self, proximity: impl Fn(usize) -> Proximity) -> Result<Vec<SurfacePoint>, ContactError> {
        let group_of = |n: usize| self.group.get(n).copied().unwrap_or(0);
        let mut nodes: Vec<usize> = self.faces.iter().flat_map(|(f, _)| *f).collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut points: Vec<SurfacePoint> = nodes
            .iter()
            .filter(|&&n| proximity(group_of(n)) == Proximity::NodeToSurface)
            .map(|&node| SurfacePoint {
                terms: vec![(node, 0, 1.0)],
                faces: (0..self.faces.len())
                    .filter(|&f| self.faces[f].0.contains(&node))
                    .collect(),
                node,
                share: 1.0,
            })
            .collect();
        let x = |n: usize| Vec3::from_array(self.reference[n]);
        let area = |f: &[usize; 3]| 0.5 * (x(f[1]) - x(f[0])).cross(x(f[2]) - x(f[0])).norm();
        // Surface area and surface nodes of each body: its mean area per node.
        let mut per_node = vec![(0.0, 0usize); self.group_count];
        for (f, _) in &self.faces {
            per_node[group_of(f[0])].0 += area(f);
        }
        for &n in &nodes {
            per_node[group_of(n)].1 += 1;
        }
        let item = "flexible pair contact";
        for (face, &(f, element)) in self.faces.iter().enumerate() {
            if proximity(group_of(f[0])) != Proximity::SurfaceToSurface {
                continue;
            }
            let tet = self.connectivity[element];
            let shape = TetShape::new(tet.map(x))
                .map_err(|err| ContactError::invalid(item, format!("element {element}: {err:?}")))?;
            let (total, count) = per_node[group_of(f[0])];
            let share = area(&f) / 3.0 / (total / count.max(1) as f64);
            for k in 0..3 {
                let w = [0, 1, 2].map(|i| if i == k { 2.0 / 3.0 } else { 1.0 / 6.0 });
                let s = shape.values(x(f[0]) * w[0] + x(f[1]) * w[1] + x(f[2]) * w[2]);
                // Shape function j multiplies coordinate triple j mod 4 of local node j / 4.
                let terms = s
                    .iter()
                    .enumerate()
                    .map(|(j, &sj)| (tet[j / 4], j % 4, sj))
                    .collect();
                points.push(SurfacePoint {
                    terms,
                    faces: vec![face],
                    node: f[0],
                    share,
                });
            }
        }
        Ok(points)
    }

    /// Boundary faces (vertices, owning element).
    pub fn faces(&self) -> &[([usize; 3], usize)] {
        &self.faces
    }
    /// Group (part or body) of every node.
    pub fn groups(&self) -> &[usize] {
        &self.group
    }
    /// Contacts at the last commit.
    pub fn active(&self) -> &[NodeFaceContact] {
        &self.active
    }

    /// Tangent data of the contacts of the last force evaluation.
    pub fn evaluated_tangents(&self) -> &[PairTangent] {
        &self.tangents
    }

    /// Energy stored in the Hertz springs of the contacts at the last commit,
    /// Σ (2/5) K δ^{5/2} (J): the potential of the elastic part of the normal force.
    pub fn elastic_energy(&self) -> f64 {
        self.active
            .iter()
            .filter_map(|c| {
                let law = self.law(c.node, self.faces[c.face].0[0])?;
                Some(self.points[c.point].share * hertz_energy(law.stiffness, c.penetration))
            })
            .sum()
    }

    /// The law of a node of `node`'s group against a face holding `face_node`.
    fn law(&self, node: usize, face_node: usize) -> Option<GroupLaw> {
        let (a, b) = (*self.group.get(node)?, *self.group.get(face_node)?);
        self.laws.get(a * self.group_count + b).copied().flatten()
    }

    /// Face normals and the face tree at the positions `e`.
    fn refit(&mut self, e: &[f64]) {
        let pos = |n: usize| e.get(NODE_COORDS * n..NODE_COORDS * n + 3).map(v3);
        // Current faces: twice-area normals (area-weighted in the node normals) and boxes grown
        // by the deepest penetration searched.
        self.face_normals.clear();
        self.boxes.clear();
        let grow = self.max_depth;
        for (f, _) in &self.faces {
            let [a, b, c] = f.map(|n| pos(n).unwrap_or(Vec3::ZERO));
            self.face_normals.push((b - a).cross(c - a));
            let mut bx = Aabb {
                min: [f64::INFINITY; 3],
                max: [f64::NEG_INFINITY; 3],
            };
            for q in [a, b, c] {
                for (k, v) in q.to_array().into_iter().enumerate() {
                    bx.min[k] = bx.min[k].min(v - grow);
                    bx.max[k] = bx.max[k].max(v + grow);
                }
            }
            self.boxes.push(bx);
        }
        // The tree is built over the faces at the first evaluation (the topology never
        // changes) and refitted afterwards.
        if self.tree.len() != self.boxes.len() || self.tree.refit(&self.boxes).is_err() {
            self.tree = AabbTree::build(&self.boxes);
        }
    }

    /// The (surface node, face vertex) pairs of different bodies that may meet at the positions
    /// `e` of the last evaluation or commit (the node within the face's box, refitted then and
    /// grown by the deepest penetration searched): what an implicit matrix must couple.
    pub fn couplings(&self, e: &[f64]) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut near = Vec::new();
        for point in &self.points {
            let at = point.interpolate(e).to_array();
            self.tree.overlapping(&Aabb { min: at, max: at }, &mut near);
            for &face in &near {
                let verts = self.faces[face].0;
                if self.law(point.node, verts[0]).is_some() {
                    for &(node, _, _) in &point.terms {
                        out.extend(verts.map(|v| (node, v)));
                    }
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    fn evaluate(&mut self, e: &[f64], ed: &[f64], commit: bool) {
        self.last.clear();
        self.tangents.clear();
        self.refit(e);
        let pos = |n: usize| e.get(NODE_COORDS * n..NODE_COORDS * n + 3).map(v3);
        let mut near = std::mem::take(&mut self.near);
        let mut touching = Vec::new();
        for slot in 0..self.points.len() {
            let p = self.points[slot].interpolate(e);
            let at = p.to_array();
            self.tree.overlapping(&Aabb { min: at, max: at }, &mut near);
            let (node, around) = (self.points[slot].node, &self.points[slot].faces);
            let own_normal = around.iter().fold(Vec3::ZERO, |s, &f| s + self.face_normals[f]);
            if let Some(own_normal) = own_normal.normalized() {
                // One contact per (point, other body): its deepest penetration behind that
                // body's faces that face the point (normals against its own; side faces of a
                // block under a node pressing its top are left out). The maximum of
                // continuous penetrations is continuous, and no face is counted twice.
                self.deepest.clear();
                for &face in &near {
                    let (verts, _) = self.faces[face];
                    let facing =
                        self.face_normals[face].dot(own_normal) < -FACING * self.face_normals[face].norm();
                    if self.law(node, verts[0]).is_none() || !facing {
                        continue;
                    }
                    let Some(penetration) = face_penetration(p, verts.map(|n| pos(n).unwrap_or(Vec3::ZERO)))
                    else {
                        continue;
                    };
                    let found = Deepest {
                        group: self.group[verts[0]],
                        face,
                        penetration,
                    };
                    match self.deepest.iter_mut().find(|c| c.group == found.group) {
                        Some(c) if penetration.depth > c.penetration.depth => *c = found,
                        Some(_) => {}
                        None => self.deepest.push(found),
                    }
                }
                for k in 0..self.deepest.len() {
                    let found = self.deepest[k];
                    self.contact(slot, found, ed, commit, &mut touching);
                }
            }
        }
        self.near = near;
        if commit {
            self.impact.retain(|k, _| touching.contains(k));
            self.active = self.last.iter().map(|(c, _)| *c).collect();
        }
    }

    /// The Hertz–Flores–Coulomb contact of surface node `slot` with its deepest penetration `found`
    /// of another body's faces, unless deeper than searched.
    fn contact(
        &mut self,
        slot: usize,
        found: Deepest,
        ed: &[f64],
        commit: bool,
        touching: &mut Vec<(usize, usize)>,
    ) {
        let verts = self.faces[found.face].0;
        let point = &self.points[slot];
        let node = point.node;
        let Some(law) = self.law(node, verts[0]) else {
            return;
        };
        let FacePenetration {
            depth,
            node_direction,
            vertex_directions,
            weights: w,
        } = found.penetration;
        if depth > law.max_depth {
            return;
        }
        let vel = |n: usize| {
            ed.get(NODE_COORDS * n..NODE_COORDS * n + 3)
                .map_or(Vec3::ZERO, v3)
        };
        let (v_node, share) = (point.interpolate(ed), point.share);
        // δ̇ = ∂δ/∂p·ṗ + Σ ∂δ/∂xᵢ·ẋᵢ, so the Flores damper only dissipates.
        let rate = -node_direction.dot(v_node)
            - (0..3)
                .map(|i| vertex_directions[i].dot(vel(verts[i])))
                .sum::<f64>();
        let key = (slot, found.group);
        let (v0, v0_follows_rate) = match self.impact.get(&key) {
            Some(&v0) => (v0, false),
            None => {
                let v0 = rate.max(law.material.min_impact_speed);
                if commit {
                    self.impact.insert(key, v0);
                }
                (v0, rate > law.material.min_impact_speed)
            }
        };
        if commit {
            touching.push(key);
        }
        let f = share * normal_force(law.stiffness, law.chi, depth, rate, v0);
        // Friction against the face's material point under the node, across the normal.
        let Some(n) = node_direction.normalized() else {
            return;
        };
        let v_face = vel(verts[0]) * w[0] + vel(verts[1]) * w[1] + vel(verts[2]) * w[2];
        let rel = v_node - v_face;
        let slip = rel - n * rel.dot(n);
        let normal_on_node = node_direction * f;
        let (slip_speed, v_reg) = (slip.norm(), law.material.friction_regularization);
        let friction_damping =
            friction_damping(law.material.friction, normal_on_node.norm(), slip_speed, v_reg);
        let ft = slip * -friction_damping;
        let on_vertex = [0, 1, 2].map(|i| (vertex_directions[i] * f - ft * w[i]).to_array());
        let (normal_stiffness, normal_damping) =
            normal_force_derivatives(law.stiffness, law.chi, depth, rate, v0, v0_follows_rate);
        let point_terms = self.points[slot]
            .terms
            .iter()
            .map(|&(node, triple, weight)| Participant {
                node,
                triple,
                direction: (node_direction * weight).to_array(),
                slip_weight: weight,
            });
        let vertex_terms = (0..3).map(|i| Participant {
            node: verts[i],
            triple: 0,
            direction: vertex_directions[i].to_array(),
            slip_weight: -w[i],
        });
        self.tangents.push(PairTangent {
            participants: point_terms.chain(vertex_terms).collect(),
            normal_stiffness: share * normal_stiffness,
            normal_damping: share * normal_damping,
            friction_damping,
            normal: n.to_array(),
            sliding_direction: if slip_speed > v_reg {
                (slip * (1.0 / slip_speed)).to_array()
            } else {
                [0.0; 3]
            },
        });
        self.last.push((
            NodeFaceContact {
                node,
                point: slot,
                face: found.face,
                penetration: depth,
                normal: n.to_array(),
                normal_force: normal_on_node.norm(),
                force: (normal_on_node + ft).to_array(),
            },
            on_vertex,
        ));
    }

    /// Adds the forces of the last evaluation into the generalized force `out`: on the surface
    /// point's coordinates through its shape functions (a node's position alone), on the face's
    /// vertices by the gradients of the penetration (friction by the barycentric weights of the
    /// face point under the surface point).
    fn scatter(&self, out: &mut [f64]) {
        for (c, on_vertex) in &self.last {
            for &(node, triple, weight) in &self.points[c.point].terms {
                add_scaled(out, NODE_COORDS * node + 3 * triple, weight, c.force);
            }
            for (&vertex, &force) in self.faces[c.face].0.iter().zip(on_vertex) {
                add_scaled(out, NODE_COORDS * vertex, 1.0, force);
            }
        }
    }
}

impl ExternalForces<f64> for FlexPairContact {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        let (e, ed, force) = loads.nodes();
        self.evaluate(e, ed, false);
        self.scatter(force);
    }
    /// Evaluates contacts at the accepted state (after every step).
    fn accept(&mut self, _t: f64, state: &ExternalLoads<'_, f64>) {
        self.evaluate(state.coordinates(), state.rates(), true);
    }
}

/// Ground and part-to-part contact of one flexible model, as one hook.
#[derive(Clone, Default)]
pub struct FlexContacts {
    /// Nodes against ground planes (one entry per body and plane).
    pub ground: Vec<super::flexible::FlexGroundContact>,
    /// Nodes of one part against faces of another.
    pub pair: Option<FlexPairContact>,
    /// Nodes against rigid shapes other than ground planes (on bodies or the ground).
    pub shapes: Option<super::RigidFlexContact>,
}

impl FlexContacts {
    /// Whether there is no contact at all (no ground plane, no pair, no shape contact).
    pub fn is_empty(&self) -> bool {
        self.ground.is_empty() && self.pair.is_none() && self.shapes.is_none()
    }

    /// Node contacts active at the last accepted state (ground, pair and shape contacts).
    pub fn active_count(&self) -> usize {
        self.ground.iter().map(|g| g.active().len()).sum::<usize>()
            + self.pair.as_ref().map_or(0, |p| p.active().len())
            + self.shapes.as_ref().map_or(0, |s| s.active().len())
    }
}

impl FlexContacts {
    /// Energy stored in the Hertz springs of every contact at the last commit (J).
    pub fn elastic_energy(&self) -> f64 {
        let ground: f64 = self.ground.iter().map(|g| g.elastic_energy()).sum();
        let shapes = self.shapes.as_ref().map_or(0.0, |s| s.elastic_energy());
        ground + shapes + self.pair.as_ref().map_or(0.0, |p| p.elastic_energy())
    }
}

impl ExternalForces<f64> for FlexContacts {
    fn apply(&mut self, t: f64, loads: &mut ExternalLoads<'_, f64>) {
        for g in &mut self.ground {
            g.apply(t, loads);
        }
        if let Some(p) = self.pair.as_mut() {
            p.apply(t, loads);
        }
        if let Some(s) = self.shapes.as_mut() {
            s.apply(t, loads);
        }
    }
    fn accept(&mut self, t: f64, state: &ExternalLoads<'_, f64>) {
        for g in &mut self.ground {
            g.accept(t, state);
        }
        if let Some(p) = self.pair.as_mut() {
            p.accept(t, state);
        }
        if let Some(s) = self.shapes.as_mut() {
            s.accept(t, state);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn face_penetration_gradients_match_finite_differences() {
        // Reference: central differences of δ(p, x₀, x₁, x₂) (step 1e-7) for a point over the
        // face, beyond each kind of edge and beyond a vertex, all behind the plane.
        let t = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.3, 0.02, 0.01),
            Vec3::new(0.05, 0.25, -0.02),
        ];
        let depth = |p: Vec3<f64>, t: [Vec3<f64>; 3]| face_penetration(p, t).map_or(0.0, |c| c.depth);
        let normal = (t[1] - t[0]).cross(t[2] - t[0]).normalized().unwrap();
        let points = [
            (0.1, 0.08, "face"),
            (0.15, -0.01, "edge 0-1"),
            (0.19, 0.135, "edge 1-2"),
            (0.01, 0.1, "edge 0-2"),
            (-0.008, -0.006, "vertex 0"),
            (0.31, 0.0, "vertex 1"),
        ];
        for (x, y, region) in points {
            let p = Vec3::new(x, y, 0.0) - normal * 0.03;
            let c = face_penetration(p, t).unwrap_or_else(|| panic!("{region}: no penetration"));
            let h = 1e-7;
            let mut worst = 0.0_f64;
            for k in 0..3 {
                let mut e = [0.0; 3];
                e[k] = h;
                let e = Vec3::from_array(e);
                let dp = (depth(p + e, t) - depth(p - e, t)) / (2.0 * h);
                worst = worst.max((dp + c.node_direction.to_array()[k]).abs());
                for i in 0..3 {
                    let (mut plus, mut minus) = (t, t);
                    plus[i] += e;
                    minus[i] -= e;
                    let dx = (depth(p, plus) - depth(p, minus)) / (2.0 * h);
                    worst = worst.max((dx + c.vertex_directions[i].to_array()[k]).abs());
                }
            }
            println!(
                "{region}: δ = {:.4e} m, worst gradient error {worst:.1e}",
                c.depth
            );
            assert!(worst < 1e-6, "{region}: gradient error {worst}");
            // The forces balance: Σ vertex directions = −node direction.
            let sum = c.vertex_directions.iter().fold(c.node_direction, |s, &v| s + v);
            assert!(sum.norm() < 1e-12, "{region}: {sum:?}");
        }
        // In front of the plane, or beyond the 45° bevel of an edge: no penetration.
        assert!(face_penetration(Vec3::new(0.1, 0.08, 0.0) + normal * 0.01, t).is_none());
        assert!(face_penetration(Vec3::new(0.1, -0.05, 0.0) - normal * 0.03, t).is_none());
    }

    #[test]
    fn parts_of_two_separate_tets() {
        let parts = mesh_parts(8, &[[0, 1, 2, 3], [4, 5, 6, 7]]);
        assert_eq!(parts, vec![0, 0, 0, 0, 1, 1, 1, 1]);
    }
}
