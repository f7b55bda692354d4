//! Contact of ANCF tetrahedral bodies with the ground: boundary-surface extraction and
//! node-to-plane Hertz–Flores–Coulomb forces, added to the generalized force of the node's
//! position coordinates through the kernel's [`ExternalForces`] hook at every stage.
//!
//! A force at a node enters only that node's position coordinates: the ANCF shape functions
//! interpolate vertex values (Kronecker property), so Sᵀ(X_node) F is exactly that, and the
//! body's momentum changes by exactly Σ F (the mass matrix reproduces constant fields).

use super::force::{damping_factor, effective_modulus, hertz_energy, hertz_stiffness};
use super::node::{node_response, NodeTangent};
use super::ContactError;
use crate::spec::{ContactMaterial, Elastic};
use ferrodyn_kernel::ancf::NODE_COORDS;
use ferrodyn_kernel::{ExternalForces, ExternalLoads};
use std::collections::HashMap;

/// The boundary triangles of a tetrahedral mesh (faces of exactly one tet), each oriented
/// with its normal pointing out of its tet at the reference positions `reference(node)`.
pub fn surface_triangles(
    connectivity: &[[usize; 4]],
    reference: impl Fn(usize) -> [f64; 3],
) -> Vec<[usize; 3]> {
    surface_faces(connectivity, reference)
        .into_iter()
        .map(|(f, _)| f)
        .collect()
}

/// [`surface_triangles`] with the index of the tet owning each face.
pub fn surface_faces(
    connectivity: &[[usize; 4]],
    reference: impl Fn(usize) -> [f64; 3],
) -> Vec<([usize; 3], usize)> {
    // Sorted vertex triple → (face as seen from its tet, opposite vertex, tet, uses).
    let mut faces: HashMap<[usize; 3], ([usize; 3], usize, usize, usize)> = HashMap::new();
    for (element, tet) in connectivity.iter().enumerate() {
        for k in 0..4 {
            let face = [tet[(k + 1) % 4], tet[(k + 2) % 4], tet[(k + 3) % 4]];
            let mut key = face;
            key.sort_unstable();
            faces
                .entry(key)
                .and_modify(|e| e.3 += 1)
                .or_insert((face, tet[k], element, 1));
        }
    }
    let mut out: Vec<([usize; 3], usize)> = faces
        .into_values()
        .filter(|&(_, _, _, uses)| uses == 1)
        .map(|(f, opposite, element, _)| {
            let (a, b, c, d) = (
                reference(f[0]),
                reference(f[1]),
                reference(f[2]),
                reference(opposite),
            );
            let n = cross(sub(b, a), sub(c, a));
            // The opposite vertex lies inside: flip a face whose normal points at it.
            if dot3(n, sub(d, a)) > 0.0 {
                ([f[0], f[2], f[1]], element)
            } else {
                (f, element)
            }
        })
        .collect();
    out.sort_unstable();
    out
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ]
}

fn dot3(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// One node touching the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NodeContact {
    /// Node index.
    pub node: usize,
    /// Penetration δ > 0 (m).
    pub penetration: f64,
    /// Normal force (N).
    pub normal_force: f64,
    /// Total force on the node (N, global).
    pub force: [f64; 3],
    /// Its derivatives for an implicit tangent.
    pub tangent: NodeTangent,
}

/// Node-to-plane contact of one flexible body with the ground plane.
#[derive(Clone, Debug)]
pub struct FlexGroundContact {
    nodes: Vec<usize>,
    point: [f64; 3],
    normal: [f64; 3],
    stiffness: f64,
    chi: f64,
    material: ContactMaterial,
    impact: HashMap<usize, f64>,
    last: Vec<NodeContact>,
    active: Vec<NodeContact>,
}

fn dot(a: &[f64], b: &[f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

impl FlexGroundContact {
    /// Contact of the `surface` nodes with the plane through `point` with outward `normal`.
    /// Each node acts as a sphere of radius `node_radius` of the body's material `body`
    /// against the ground's `ground` in Hertz's law.
    pub fn new(
        surface: &[[usize; 3]],
        point: [f64; 3],
        normal: [f64; 3],
        node_radius: f64,
        body: Elastic,
        ground: Elastic,
        material: ContactMaterial,
    ) -> Result<Self, ContactError> {
        let item = "flexible ground contact";
        material.validate(item)?;
        body.validate(item)?;
        ground.validate(item)?;
        if !(node_radius.is_finite() && node_radius > 0.0) {
            return Err(ContactError::invalid(
                item,
                format!("node radius must be > 0, got {node_radius}"),
            ));
        }
        let length = dot(&normal, &normal).sqrt();
        if !(length.is_finite() && length > 0.0) || point.iter().any(|c| !c.is_finite()) {
            return Err(ContactError::invalid(
                item,
                "plane normal must be nonzero and point finite".into(),
            ));
        }
        let mut nodes: Vec<usize> = surface.iter().flatten().copied().collect();
        nodes.sort_unstable();
        nodes.dedup();
        Ok(Self {
            nodes,
            point,
            normal: normal.map(|c| c / length),
            stiffness: hertz_stiffness(effective_modulus(&body, &ground), node_radius),
            chi: damping_factor(&material),
            material,
            impact: HashMap::new(),
            last: Vec::new(),
            active: Vec::new(),
        })
    }

    /// The surface nodes tested.
    pub fn nodes(&self) -> &[usize] {
        &self.nodes
    }

    /// The plane's unit normal (out of the ground).
    pub fn normal(&self) -> [f64; 3] {
        self.normal
    }

    /// Contacts at the last commit.
    pub fn active(&self) -> &[NodeContact] {
        &self.active
    }

    /// Energy stored in the Hertz springs of the contacts at the last commit (J).
    pub fn elastic_energy(&self) -> f64 {
        self.active
            .iter()
            .map(|c| hertz_energy(self.stiffness, c.penetration))
            .sum()
    }

    /// Contacts at the last force evaluation (what the forces just applied came from).
    pub fn evaluated(&self) -> &[NodeContact] {
        &self.last
    }

    fn evaluate(&mut self, e: &[f64], ed: &[f64], commit: bool) {
        self.last.clear();
        let n = self.normal;
        for &node in &self.nodes {
            let i = NODE_COORDS * node;
            let (Some(r), Some(v)) = (e.get(i..i + 3), ed.get(i..i + 3)) else {
                continue;
            };
            let depth = -(dot(r, &n) - dot(&self.point, &n));
            if depth <= 0.0 {
                continue;
            }
            let velocity = [v[0], v[1], v[2]];
            let committed = self.impact.get(&node).copied();
            let response = node_response(
                self.stiffness,
                self.chi,
                &self.material,
                depth,
                n,
                velocity,
                committed,
            );
            if commit && committed.is_none() {
                self.impact.insert(node, response.impact_speed);
            }
            self.last.push(NodeContact {
                node,
                penetration: depth,
                normal_force: response.normal_force,
                force: response.force,
                tangent: response.tangent,
            });
        }
        if commit {
            let last = &self.last;
            self.impact.retain(|node, _| last.iter().any(|c| c.node == *node));
            self.active.clone_from(&self.last);
        }
    }
}

impl ExternalForces<f64> for FlexGroundContact {
    fn apply(&mut self, _t: f64, loads: &mut ExternalLoads<'_, f64>) {
        let (e, ed, force) = loads.nodes();
        self.evaluate(e, ed, false);
        for c in &self.last {
            let i = NODE_COORDS * c.node;
            if let Some(f) = force.get_mut(i..i + 3) {
                for (fk, ck) in f.iter_mut().zip(c.force) {
                    *fk += ck;
                }
            }
        }
    }
    /// Evaluates contacts at the accepted state (after every step): captures v₀ of new
    /// contacts, forgets opened ones, records the active contacts.
    fn accept(&mut self, _t: f64, state: &ExternalLoads<'_, f64>) {
        self.evaluate(state.coordinates(), state.rates(), true);
    }
}
