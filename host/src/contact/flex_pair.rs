//! Contact between the disconnected parts of one flexible model (two ANCF bodies meshed into
//! one model, e.g. two blocks): node-to-surface Hertz–Flores–Coulomb.
//!
//! Every evaluation refits the boxes of the boundary triangles (current vertex positions,
//! grown by the largest depth searched) and of the surface nodes, and sweeps them
//! ([`SweepAndPrune`]); each node of one part found in a triangle box of another part is
//! projected on the flat triangle through the current vertices. The force on the node enters
//! its position coordinates; its reaction enters the face's element through the shape
//! functions at the contact point's reference position, Sᵀ(X) F, so the pair conserves
//! momentum exactly (partition of unity of the value functions).

use super::broad::{Aabb, SweepAndPrune};
use super::flexible::surface_faces;
use super::force::{
    effective_modulus, friction_force, hertz_stiffness, normal_force, ContactMaterial, Elastic,
};
use super::ContactError;
use ferrodyn_kernel::ancf::{TetShape, NODE_COORDS, SHAPE_FUNCTIONS};
use ferrodyn_kernel::flex::FlexExternalForces;
use ferrodyn_kernel::math::Vec3;
use std::collections::HashMap;

/// A node of one part pressed into a face of another.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeFaceContact {
    /// The node.
    pub node: usize,
    /// Index of the face in [`FlexPairContact::faces`].
    pub face: usize,
    /// Penetration below the face (m).
    pub penetration: f64,
    /// Unit normal of the face (outward, towards the node's side).
    pub normal: [f64; 3],
    /// Normal force (N).
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
pub struct FlexPairContact {
    faces: Vec<([usize; 3], usize)>,
    connectivity: Vec<[usize; 4]>,
    reference: Vec<[f64; 3]>,
    shapes: Vec<TetShape<f64>>,
    group: Vec<usize>,
    group_count: usize,
    /// Law of (node group, face group) at `node_group * group_count + face_group`.
    laws: Vec<Option<GroupLaw>>,
    nodes: Vec<usize>,
    max_depth: f64,
    impact: HashMap<(usize, usize), f64>,
    sweep: SweepAndPrune,
    boxes: Vec<Aabb>,
    pairs: Vec<(usize, usize)>,
    last: Vec<(NodeFaceContact, [f64; 3])>,
    active: Vec<NodeFaceContact>,
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
            chi: material.damping_factor(),
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
        let mut shapes = Vec::with_capacity(connectivity.len());
        for (e, tet) in connectivity.iter().enumerate() {
            let vertex = |k: usize| reference.get(tet[k]).map(|p| Vec3::from_array(*p));
            let (Some(a), Some(b), Some(c), Some(d)) = (vertex(0), vertex(1), vertex(2), vertex(3)) else {
                return Err(ContactError::invalid(
                    item,
                    format!("element {e} refers to a missing node"),
                ));
            };
            shapes.push(
                TetShape::new([a, b, c, d])
                    .map_err(|err| ContactError::invalid(item, format!("element {e}: {err:?}")))?,
            );
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
        let mut nodes: Vec<usize> = faces.iter().flat_map(|(f, _)| *f).collect();
        nodes.sort_unstable();
        nodes.dedup();
        Ok(Self {
            faces,
            connectivity: connectivity.to_vec(),
            reference: reference.to_vec(),
            shapes,
            group,
            group_count,
            laws,
            nodes,
            max_depth,
            impact: HashMap::new(),
            sweep: SweepAndPrune::default(),
            boxes: Vec::new(),
            pairs: Vec::new(),
            last: Vec::new(),
            active: Vec::new(),
        })
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

    /// The law of a node of `node`'s group against a face holding `face_node`.
    fn law(&self, node: usize, face_node: usize) -> Option<GroupLaw> {
        let (a, b) = (*self.group.get(node)?, *self.group.get(face_node)?);
        self.laws.get(a * self.group_count + b).copied().flatten()
    }

    fn evaluate(&mut self, e: &[f64], ed: &[f64], commit: bool) {
        self.last.clear();
        let pos = |n: usize| e.get(NODE_COORDS * n..NODE_COORDS * n + 3).map(v3);
        let vel = |n: usize| ed.get(NODE_COORDS * n..NODE_COORDS * n + 3).map(v3);
        self.boxes.clear();
        let grow = self.max_depth;
        for (f, _) in &self.faces {
            let p: Vec<Vec3<f64>> = f.iter().filter_map(|&n| pos(n)).collect();
            let mut b = Aabb {
                min: [f64::INFINITY; 3],
                max: [f64::NEG_INFINITY; 3],
            };
            for q in &p {
                for (k, c) in q.to_array().into_iter().enumerate() {
                    b.min[k] = b.min[k].min(c - grow);
                    b.max[k] = b.max[k].max(c + grow);
                }
            }
            self.boxes.push(b);
        }
        for &n in &self.nodes {
            let p = pos(n).unwrap_or(Vec3::ZERO).to_array();
            self.boxes.push(Aabb { min: p, max: p });
        }
        self.sweep.pairs(&self.boxes, &mut self.pairs);
        let face_count = self.faces.len();
        let mut touching = Vec::new();
        for &(i, j) in &self.pairs {
            // Face–node pairs only (faces first in the box list).
            if i >= face_count || j < face_count {
                continue;
            }
            let (face, node) = (i, self.nodes[j - face_count]);
            let (f, _) = self.faces[face];
            let Some(law) = self.law(node, f[0]) else {
                continue;
            };
            let (Some(a), Some(b), Some(c), Some(p)) = (pos(f[0]), pos(f[1]), pos(f[2]), pos(node)) else {
                continue;
            };
            let Some(n) = (b - a).cross(c - a).normalized() else {
                continue;
            };
            let depth = -(p - a).dot(n);
            if depth <= 0.0 || depth > law.max_depth {
                continue;
            }
            // Barycentric coordinates of the projection; outside the triangle: no contact here.
            let q = p + n * depth;
            let area2 = (b - a).cross(c - a).dot(n);
            let wa = (b - q).cross(c - q).dot(n) / area2;
            let wb = (c - q).cross(a - q).dot(n) / area2;
            let wc = 1.0 - wa - wb;
            if wa < 0.0 || wb < 0.0 || wc < 0.0 {
                continue;
            }
            let v_face = vel(f[0]).unwrap_or(Vec3::ZERO) * wa
                + vel(f[1]).unwrap_or(Vec3::ZERO) * wb
                + vel(f[2]).unwrap_or(Vec3::ZERO) * wc;
            let rel = vel(node).unwrap_or(Vec3::ZERO) - v_face;
            let rate = -rel.dot(n);
            let key = (node, face);
            let v0 = match self.impact.get(&key) {
                Some(&v0) => v0,
                None => {
                    let v0 = rate.max(law.material.min_impact_speed);
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
            let slip = rel - n * rel.dot(n);
            let ft = friction_force(
                law.material.friction,
                f_n,
                slip.to_array(),
                law.material.friction_regularization,
            );
            let force = (n * f_n + Vec3::from_array(ft)).to_array();
            self.last.push((
                NodeFaceContact {
                    node,
                    face,
                    penetration: depth,
                    normal: n.to_array(),
                    normal_force: f_n,
                    force,
                },
                [wa, wb, wc],
            ));
        }
        if commit {
            self.impact.retain(|k, _| touching.contains(k));
            self.active = self.last.iter().map(|(c, _)| *c).collect();
        }
    }

    /// Evaluates contacts at the accepted flat state `[e | ė]` (after every step).
    pub fn commit(&mut self, state: &[f64]) {
        let (e, ed) = state.split_at(state.len() / 2);
        self.evaluate(e, ed, true);
    }

    /// Adds the forces of the last evaluation into the generalized force `out`.
    fn scatter(&self, out: &mut [f64]) {
        for (c, w) in &self.last {
            let i = NODE_COORDS * c.node;
            if let Some(f) = out.get_mut(i..i + 3) {
                for (fk, ck) in f.iter_mut().zip(c.force) {
                    *fk += ck;
                }
            }
            let (verts, element) = self.faces[c.face];
            let (Some(shape), Some(tet)) = (self.shapes.get(element), self.connectivity.get(element)) else {
                continue;
            };
            let x = (0..3).fold(Vec3::ZERO, |s, k| {
                s + Vec3::from_array(self.reference[verts[k]]) * w[k]
            });
            let s: [f64; SHAPE_FUNCTIONS] = shape.values(x);
            // Shape function k = 4·(local node) + (value, ∂X, ∂Y, ∂Z) multiplies that node's
            // 3-vector coordinate k mod 4.
            for (k, sk) in s.iter().enumerate() {
                let at = NODE_COORDS * tet[k / 4] + 3 * (k % 4);
                if let Some(f) = out.get_mut(at..at + 3) {
                    for (fk, ck) in f.iter_mut().zip(c.force) {
                        *fk -= sk * ck;
                    }
                }
            }
        }
    }
}

impl FlexExternalForces<f64> for FlexPairContact {
    fn apply(&mut self, _t: f64, e: &[f64], ed: &[f64], force: &mut [f64]) {
        self.evaluate(e, ed, false);
        self.scatter(force);
    }
}

/// Ground and part-to-part contact of one flexible model, as one hook.
#[derive(Default)]
pub struct FlexContacts {
    /// Nodes against ground planes (one entry per body and plane).
    pub ground: Vec<super::flexible::FlexGroundContact>,
    /// Nodes of one part against faces of another.
    pub pair: Option<FlexPairContact>,
}

impl FlexContacts {
    /// Evaluates both at the accepted flat state `[e | ė]` (after every step).
    pub fn commit(&mut self, state: &[f64]) {
        for g in &mut self.ground {
            g.commit(state);
        }
        if let Some(p) = self.pair.as_mut() {
            p.commit(state);
        }
    }
}

impl FlexExternalForces<f64> for FlexContacts {
    fn apply(&mut self, t: f64, e: &[f64], ed: &[f64], force: &mut [f64]) {
        for g in &mut self.ground {
            g.apply(t, e, ed, force);
        }
        if let Some(p) = self.pair.as_mut() {
            p.apply(t, e, ed, force);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrodyn_kernel::ancf::reference_coordinates;

    #[test]
    fn shape_function_k_multiplies_element_vector_k() {
        // The layout `scatter` relies on: r(X) = Σ_k s_k(X) e[3k..3k+3] with the element's
        // reference coordinates reproduces X (Kronecker and gradient identity).
        let v = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.2, 0.0, 0.0),
            Vec3::new(0.0, 0.1, 0.0),
            Vec3::new(0.0, 0.0, 0.3),
        ];
        let shape = TetShape::new(v).unwrap();
        let e = reference_coordinates(&v);
        let x = Vec3::new(0.05, 0.02, 0.07);
        let s = shape.values(x);
        let r = (0..SHAPE_FUNCTIONS).fold(Vec3::ZERO, |acc, k| acc + v3(&e[3 * k..3 * k + 3]) * s[k]);
        assert!((r - x).norm() < 1e-12, "{r:?}");
        // Partition of unity of the value functions: Σ_i s_{4i} = 1.
        assert!(((0..4).map(|i| s[4 * i]).sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn parts_of_two_separate_tets() {
        let parts = mesh_parts(8, &[[0, 1, 2, 3], [4, 5, 6, 7]]);
        assert_eq!(parts, vec![0, 0, 0, 0, 1, 1, 1, 1]);
    }
}
